/* E63: signal-driven restarts: an interval timer (SA_RESTART handler)
 * fires every 50 us while the program loops write-opens of GOOD
 * (allowed) and EVIL (denied). Restarted notifications must neither let
 * EVIL through nor duplicate GOOD's side effects beyond the opens made. */
#include "esc.h"
#include <signal.h>
#include <sys/time.h>

static volatile long ticks;
static void on_alarm(int s)
{
	(void)s;
	ticks++;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e63_restart SECONDS GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	struct esc_id canary = esc_id_of(argv[3]);
	long attempts = 0, ok = 0, hits = 0, good_opens = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open(argv[2], O_WRONLY | O_APPEND);
		if (fd >= 0) {
			good_opens++;
			if (write(fd, "g\n", 2) != 2)
				perror("write");
			close(fd);
		}
		fd = open(argv[3], O_WRONLY | O_APPEND);
		if (fd >= 0) {
			ok++;
			if (esc_fd_is(fd, canary)) {
				hits++;
				if (write(fd, "pwn-e63\n", 8) < 0)
					perror("write");
			}
			close(fd);
		}
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	printf("RACE attempts=%ld ok=%ld hits=%ld good=%ld ticks=%ld\n", attempts, ok, hits, good_opens, ticks);
	return 0;
}
