/* E27: the sandbox installs its own filter (no listener) and then writes
 * FILE. Modes: "allow" (SECCOMP_RET_ALLOW for everything), "trace"
 * (RET_TRACE), "log" (RET_LOG), "notif" (RET_USER_NOTIF without a
 * listener: the kernel answers ENOSYS, K14). None may beat the outer
 * notification. */
#include "esc.h"
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e27_inner_filter allow|trace|log|notif FILE");
	unsigned ret = SECCOMP_RET_ALLOW;
	if (!strcmp(argv[1], "trace"))
		ret = SECCOMP_RET_TRACE;
	else if (!strcmp(argv[1], "log"))
		ret = SECCOMP_RET_LOG;
	else if (!strcmp(argv[1], "notif"))
		ret = SECCOMP_RET_USER_NOTIF;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, ret),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, f };
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	printf("inner filter (%s) -> %ld\n", argv[1], r);
	int e = esc_append(argv[2], "pwn-e27\n");
	printf("append -> %d (%s)\n", e, e ? strerror(-e) : "ok");
	return e ? 1 : 0;
}
