/* E180's flood: forks for the proc connector, as fast as they come.
 *
 *   e180_fork_flood SECS THREADS
 *
 * THREADS threads vfork a child that _exits at once, for SECS seconds
 * (each child a fork and an exit event on the connector). Prints
 * "FLOOD forks=N". Only its own children. */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

static atomic_int stop;
static atomic_long forks;

static void *flooder(void *a)
{
	(void)a;
	while (!atomic_load(&stop)) {
		pid_t c = vfork();
		if (c == 0)
			_exit(0);
		if (c > 0) {
			waitpid(c, NULL, 0);
			atomic_fetch_add(&forks, 1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e180_fork_flood SECS THREADS");
	int n = atoi(argv[2]);
	if (n < 1 || n > 16)
		n = 4;
	pthread_t t[16];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, flooder, NULL);
	double end = esc_now() + atof(argv[1]);
	while (esc_now() < end)
		usleep(10000);
	atomic_store(&stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("FLOOD forks=%ld\n", atomic_load(&forks));
	return 0;
}
