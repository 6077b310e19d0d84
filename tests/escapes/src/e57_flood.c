/* E57: a notification flood: THREADS threads loop open("/nonexistent")
 * (each a notification) for SECONDS while the main thread tries to append
 * to CANARY every 10 ms. A supervisor that falls behind must not fail
 * open. Prints the number of flood opens and of successful canary writes. */
#include "esc.h"
#include <pthread.h>

static volatile int stop;
static volatile long flood;

static void *spin(void *arg)
{
	(void)arg;
	while (!stop) {
		int fd = open("/nonexistent/e57", O_RDONLY);
		if (fd >= 0)
			close(fd);
		__atomic_add_fetch(&flood, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e57_flood THREADS SECONDS CANARY");
	int n = atoi(argv[1]);
	if (n > 256)
		n = 256;
	pthread_t t[256];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	/* The clock starts once the flood runs: on a loaded machine creating
	 * 64 threads can take the whole second, and the main thread then made
	 * no attempt at all (the bare control failed with attempts=0). */
	double end = esc_now() + atof(argv[2]);
	long tries = 0, writes = 0;
	while (esc_now() < end) {
		tries++;
		if (esc_append(argv[3], "pwn-e57\n") == 0)
			writes++;
		usleep(10000);
	}
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("RACE attempts=%ld ok=%ld hits=%ld flood=%ld\n", tries, writes, writes, flood);
	return 0;
}
