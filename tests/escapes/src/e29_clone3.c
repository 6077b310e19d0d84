/* E29: clone3() with its flags in memory (CLONE_UNTRACED here; a BPF
 * filter cannot read them). The child creates MARKER. */
#include "esc.h"
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e29_clone3 MARKER");
	struct clone_args a;
	memset(&a, 0, sizeof(a));
	a.flags = CLONE_UNTRACED;
	a.exit_signal = SIGCHLD;
	long pid = syscall(SYS_clone3, &a, sizeof(a));
	if (pid == 0) {
		int fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
		_exit(fd < 0);
	}
	printf("clone3(CLONE_UNTRACED) -> %ld (%s)\n", pid, pid < 0 ? strerror(errno) : "child");
	if (pid < 0)
		return 1;
	int st;
	waitpid((pid_t)pid, &st, 0);
	return 0;
}
