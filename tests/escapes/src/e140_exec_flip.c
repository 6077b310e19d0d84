/* E140: the exec path flipped by a thread between an allowed program and
 * a denied one (e09-style), for SECS seconds:
 *
 *   e140_exec_flip GOOD BAD MARKER SECS [thread]
 *
 * A child per attempt: vfork-free fork, execve(buf, {buf, MARKER}); the
 * flipper thread of the child rewrites buf. With "thread" (e173) the
 * exec is made by another thread than the process's first (its leader),
 * which the kernel ends before the new image starts (de_thread), so the
 * proc connector reports the leader's exit before the exec. The parent
 * counts attempts whose child ran BAD (MARKER grew). Prints
 * "RACE attempts= ok= hits=". */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char buf[4096];
static const char *good, *bad, *marker;
static volatile int flipping;

static void *flipper(void *a)
{
	(void)a;
	for (;;) {
		strcpy(buf, bad);
		flipping = 1;
		strcpy(buf, good);
	}
	return NULL;
}

static void *execer(void *a)
{
	(void)a;
	char *av[] = { buf, (char *)marker, NULL };
	for (int i = 0; i < 50; i++)
		execve(buf, av, (char *[]){ NULL });
	_exit(127);
	return NULL;
}

static long msize(const char *m)
{
	struct stat st;
	return stat(m, &st) == 0 ? (long)st.st_size : 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e140_exec_flip GOOD BAD MARKER SECS [thread]");
	good = argv[1], bad = argv[2];
	marker = argv[3];
	int from_thread = argc > 5 && strcmp(argv[5], "thread") == 0;
	double end = esc_now() + atof(argv[4]);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		long before = msize(marker);
		pid_t c = fork();
		if (c == 0) {
			strcpy(buf, good);
			pthread_t t;
			pthread_create(&t, NULL, flipper, NULL);
			/* Not before the flipper runs: an exec right after
			 * pthread_create often ended the thread before its first
			 * flip (bare: 0 hits in 2,705 attempts, 1 run in 6). */
			while (!flipping)
				sched_yield();
			if (from_thread) {
				pthread_create(&t, NULL, execer, NULL);
				for (;;)
					pause();
			}
			execer(NULL);
		}
		int st;
		waitpid(c, &st, 0);
		attempts++;
		if (WIFEXITED(st) && WEXITSTATUS(st) != 127)
			ok++;
		if (msize(marker) > before)
			hits++;
	}
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", attempts, ok, hits);
	return 0;
}
