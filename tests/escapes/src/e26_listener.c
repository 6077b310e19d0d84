/* E26: (a) a second seccomp listener: seccomp(SET_MODE_FILTER,
 * NEW_LISTENER) of an allow-all filter; (b) stealing the supervisor's
 * listener: pidfd_open(getppid()) of our parent (capwatch when run under
 * it) and pidfd_getfd() of each of its fds 0..63. Exit 0 when either
 * worked (the capability), 1 when both were refused. */
#include "esc.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	int gained = 0;
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	pid_t parent = argc > 1 ? atoi(argv[1]) : getppid();

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	long l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	printf("seccomp(NEW_LISTENER) -> %ld (%s)\n", l, l < 0 ? strerror(errno) : "listener");
	if (l >= 0)
		gained = 1;

	int pfd = (int)syscall(SYS_pidfd_open, parent, 0);
	printf("pidfd_open(%d) -> %d (%s)\n", (int)parent, pfd, pfd < 0 ? strerror(errno) : "ok");
	if (pfd >= 0) {
		int got = 0, err = 0;
		for (int fd = 0; fd < 64; fd++) {
			int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
			if (d >= 0) {
				got++;
				close(d);
			} else if (errno != EBADF) {
				err = errno;
			}
		}
		printf("pidfd_getfd: %d descriptors of pid %d stolen (last error %s)\n", got, (int)parent,
		       err ? strerror(err) : "none");
		if (got)
			gained = 1;
	}
	return gained ? 0 : 1;
}
