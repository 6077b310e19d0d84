/* E141: a blocking call a signal interrupted while it waited for capwatch
 * to receive it is restarted through a handler without SA_RESTART
 * (ptrace.c restart_unreceived, 793d4db) and sleeps past its signal:
 * the classic alarm-bounded FIFO open loses its EINTR.
 *
 *   e141_unreceived_restart FIFO FILE US N
 *
 * Eight threads (every signal blocked) keep the supervisor busy with
 * opens of FILE through a 4000-byte "./././..." path, so that a notified
 * call of the main thread waits a while before capwatch receives it. N
 * trials: a child opens FIFO for writing 300 ms later; the main thread
 * arms a one-shot SIGALRM in US microseconds (handler without SA_RESTART,
 * SA_SIGINFO: it keeps the interrupted context's rax) and opens FIFO for
 * reading, which blocks (no writer yet). Bare, the signal comes while the
 * open sleeps in the FIFO and the open fails with EINTR. A trial where the
 * open returned the writer's descriptor after the handler ran slept past
 * its signal; when the handler saw rax == __NR_openat the kernel had
 * restarted the interrupted openat (orig_rax put back, as it does for
 * -ERESTARTNOINTR), which a handler without SA_RESTART never sees bare
 * for a call that was already in the kernel. Prints
 *   trials N eintr E slept_through S restarted R other X */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define NBUSY 8

static volatile sig_atomic_t nsig;
static volatile long seen_rax;
static void on_alarm(int s, siginfo_t *si, void *u)
{
	(void)s;
	(void)si;
	seen_rax = (long)((ucontext_t *)u)->uc_mcontext.gregs[REG_RAX];
	nsig++;
}

static char longpath[4000];
static volatile int stop;

static void *busy(void *a)
{
	(void)a;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!stop) {
		int fd = open(longpath, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: e141_unreceived_restart FIFO FILE US N\n");
		return 2;
	}
	long us = atol(argv[3]), n = atol(argv[4]);
	size_t k = 0;
	while (k + 2 + strlen(argv[2]) + 1 < sizeof(longpath)) {
		memcpy(longpath + k, "./", 2);
		k += 2;
	}
	strcpy(longpath + k, argv[2]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_alarm;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	pthread_t th[NBUSY];
	for (int j = 0; j < NBUSY; j++)
		pthread_create(&th[j], NULL, busy, NULL);
	long eintr = 0, slept = 0, restarted = 0, other = 0;
	for (long i = 0; i < n; i++) {
		pid_t c = fork();
		if (c < 0) {
			perror("fork");
			return 1;
		}
		if (c == 0) {
			/* From 300 ms on, until a reader is there: one attempt
			 * missed a reader whose open started late (a loaded
			 * machine), which then slept until --timeout. The parent
			 * kills this child once its open has returned. */
			struct timespec t = { 0, 300000000 }, again = { 0, 10000000 };
			nanosleep(&t, NULL);
			int fd;
			while ((fd = open(argv[1], O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO)
				nanosleep(&again, NULL);
			if (fd >= 0)
				close(fd);
			_exit(0);
		}
		struct timespec t = { 0, 2000000 }; /* the fork's own events first */
		while (nanosleep(&t, &t) < 0 && errno == EINTR)
			;
		nsig = 0;
		seen_rax = 0;
		struct itimerval it = { { 0, 0 }, { 0, us } };
		setitimer(ITIMER_REAL, &it, NULL);
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		int e = errno;
		if (fd >= 0) {
			close(fd);
			if (nsig) {
				slept++;
				if (seen_rax == SYS_openat)
					restarted++;
			}
		} else if (e == EINTR) {
			eintr++;
		} else {
			other++;
		}
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
	}
	stop = 1;
	for (int j = 0; j < NBUSY; j++)
		pthread_join(th[j], NULL);
	printf("trials %ld eintr %ld slept_through %ld restarted %ld other %ld\n", n, eintr, slept, restarted, other);
	return 0;
}
