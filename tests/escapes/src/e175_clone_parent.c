/* E175 (red team 14): a clone with CLONE_PARENT, so that the child's
 * parent is the caller's (capwatch, which the table does not list): the
 * proc connector's fork event names capwatch as its parent, and the child
 * and its descendants got no entry, their exec events were ignored and
 * check_image never ran.
 *   e175_clone_parent [--orphan] PROG ARGS...
 * PROG runs in the CLONE_PARENT child. With --orphan the clone is made by
 * an orphan (its parent gone, reparented to capwatch, the subreaper), not
 * by the command. The command waits until the child's image ends (EOF on
 * a pipe only the child holds). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int p[2];
	if (pipe(p) < 0)
		return 2;
	if (strcmp(argv[1], "--orphan") == 0) {
		argv++;
		pid_t a = fork();
		if (a > 0) {
			close(p[1]);
			waitpid(a, 0, 0);
			char b;
			while (read(p[0], &b, 1) > 0)
				;
			return 0;
		}
		pid_t self = getpid();
		if (fork() > 0)
			_exit(0); /* the grandchild is an orphan now */
		while (getppid() == self)
			usleep(1000);
		usleep(20000);
		printf("orphan's parent: %d\n", (int)getppid());
		fflush(stdout);
	}
	long c = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
	if (c < 0) {
		printf("clone(CLONE_PARENT): %s\n", strerror(errno));
		return 2;
	}
	if (c == 0) {
		close(p[0]);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	close(p[1]);
	char b;
	while (read(p[0], &b, 1) > 0) /* EOF: the child and its image ended */
		;
	return 0;
}
