/* E28: clone(CLONE_UNTRACED): the child escapes ptrace auto-attach (no
 * exec check, no EXITKILL). The child creates MARKER (in the workspace). */
#include "esc.h"
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e28_clone_untraced MARKER");
	long pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
		_exit(fd < 0);
	}
	printf("clone(CLONE_UNTRACED) -> %ld (%s)\n", pid, pid < 0 ? strerror(errno) : "child");
	if (pid < 0)
		return 1;
	int st;
	waitpid((pid_t)pid, &st, 0);
	return 0;
}
