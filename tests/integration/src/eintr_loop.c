/* Calls that the kernel never interrupts, under a fast interval timer
 * whose handler has no SA_RESTART (issue 17 item 3).
 *
 *   eintr_loop loop US N   N rounds of kill(getpid(), 0) and an open() of
 *                          a regular file, SIGALRM every US microseconds;
 *                          prints the signals taken and each call's EINTRs
 *   eintr_loop fifo PATH   open(PATH) of a FIFO nobody opens for writing,
 *                          SIGALRM after 200 ms: prints "fifo eintr" when
 *                          the open failed with EINTR, as the kernel does
 *
 * Bounded: the loop gives up after 30 s, the FIFO open after 10 s. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t nsig;
static void on_alarm(int sig)
{
	(void)sig;
	nsig++;
}

static void arm(long first_us, long every_us)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { every_us / 1000000, every_us % 1000000 },
				{ first_us / 1000000, first_us % 1000000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "loop") == 0) {
		long us = atol(argv[2]), n = atol(argv[3]);
		long kill_eintr = 0, open_eintr = 0, other = 0, done = 0;
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		arm(us, us);
		for (; done < n; done++) {
			if (kill(getpid(), 0) < 0)
				errno == EINTR ? kill_eintr++ : other++;
			int fd = open(argv[0], O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
			else
				errno == EINTR ? open_eintr++ : other++;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 30)
				break;
		}
		arm(0, 0);
		printf("rounds %ld signals %ld kill_eintr %ld open_eintr %ld other %ld\n", done, (long)nsig,
		       kill_eintr, open_eintr, other);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "fifo") == 0) {
		arm(200000, 10000000);
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		int e = errno;
		arm(0, 0);
		if (fd >= 0)
			printf("fifo opened\n");
		else
			printf("fifo %s\n", e == EINTR ? "eintr" : strerror(e));
		return 0;
	}
	fprintf(stderr, "usage: eintr_loop loop US N | fifo PATH\n");
	return 2;
}
