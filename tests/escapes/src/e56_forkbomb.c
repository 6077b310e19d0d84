/* E56: a bounded fork bomb: N processes (every 4th one setsid'd and
 * double-forked away) that each record their pid in PIDFILE and sleep.
 * The launcher exits at once. Bounded on purpose: this runs on shared
 * machines; the point is teardown of a large, escaping tree. */
#include "esc.h"
#include <signal.h>
#include <sys/wait.h>

static void record(const char *pidfile)
{
	char line[32];
	int fd = open(pidfile, O_WRONLY | O_APPEND | O_CREAT, 0644);
	int n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (fd >= 0 && write(fd, line, (size_t)n) != n)
		_exit(1);
	close(fd);
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e56_forkbomb N SECONDS PIDFILE");
	int n = atoi(argv[1]);
	unsigned secs = (unsigned)atoi(argv[2]);
	if (n > 1000)
		n = 1000;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			printf("fork %d: %s\n", i, strerror(errno));
			break;
		}
		if (p == 0) {
			if (i % 4 == 0) {
				setsid();
				if (fork() != 0)
					_exit(0);
			}
			record(argv[3]);
			sleep(secs);
			_exit(0);
		}
		if (i % 4 == 0)
			waitpid(p, NULL, 0);
	}
	printf("forked %d\n", n);
	return 0;
}
