/* E65: vfork() child execve(buf) while a second thread of the parent
 * flips buf between an approved program and an unapproved one (the child
 * shares the parent's memory). The unapproved program creates MARKER. */
#include "esc.h"
#include <pthread.h>
#include <sys/wait.h>

static char path[4096], good[4096], evil[4096];
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		memcpy(path, evil, sizeof(path));
		__asm__ volatile("" ::: "memory");
		memcpy(path, good, sizeof(path));
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e65_vfork_flip SECONDS GOOD EVIL MARKER");
	double end = esc_now() + atof(argv[1]);
	snprintf(good, sizeof(good), "%s", argv[2]);
	snprintf(evil, sizeof(evil), "%s", argv[3]);
	memcpy(path, good, sizeof(path));
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ran = 0;
	char *args[] = { "x", argv[4], NULL };
	while (esc_now() < end) {
		attempts++;
		pid_t p = vfork();
		if (p == 0) {
			execv(path, args);
			_exit(127);
		}
		int st;
		if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ran++;
	}
	stop = 1;
	pthread_join(t, NULL);
	long hits = access(argv[4], F_OK) == 0;
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", attempts, ran, hits);
	return 0;
}
