/* cwb_floor: the cost of one seccomp user-notification round trip with
 * nothing else around it — the floor under any supervisor built on it.
 *
 *   cwb_floor N [sync] [addfd]
 *
 * The main thread installs a filter that notifies getppid() and nothing
 * else, then a second thread answers every notification with CONTINUE
 * (RECV; SEND), as a supervisor that decides instantly would. The main
 * thread times N getppid() calls after N/10 warm-up ones.
 * "addfd": the filter notifies openat() instead, the main thread times
 * open("/dev/null")+close(), and the thread answers each with
 * SECCOMP_IOCTL_NOTIF_ADDFD + SECCOMP_ADDFD_FLAG_SEND of a descriptor it
 * holds — the floor of an emulated open, which capwatch uses for every
 * allowed open. ADDFD returns only once the target has installed the
 * descriptor, so it costs the supervisor one more sleep and wake-up than
 * a plain SEND. "sync" sets
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener (Linux 6.7+), which
 * asks the kernel to run the woken side on the waker's CPU. Pinning is left
 * to the caller (cwb_run --cpu 0, or taskset). Prints
 *   floor n=N sync=0|1 us_per_op=X
 * A getppid() with no filter at all is measured first as "bare". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int use_addfd;
static int held = -1; /* opened before the filter: the thread inherits it */

static void *answer(void *arg)
{
	int fd = *(int *)arg;
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		return NULL;
	struct seccomp_notif *req = calloc(1, sz.seccomp_notif > sizeof(*req) ? sz.seccomp_notif : sizeof(*req));
	struct seccomp_notif_resp *resp = calloc(1, sz.seccomp_notif_resp > sizeof(*resp) ? sz.seccomp_notif_resp : sizeof(*resp));
	if (!req || !resp)
		return NULL;
	for (;;) {
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return NULL;
		}
		if (use_addfd) {
			struct seccomp_notif_addfd a = {
				.id = req->id, .flags = SECCOMP_ADDFD_FLAG_SEND,
				.srcfd = (__u32)held, .newfd = 0, .newfd_flags = O_CLOEXEC,
			};
			if (ioctl(fd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) >= 0)
				continue;
		}
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}

static void op(void)
{
	if (use_addfd)
		close(open("/dev/null", O_RDONLY | O_CLOEXEC));
	else
		syscall(SYS_getppid);
}

static double time_op(long n)
{
	for (long i = 0; i < n / 10 + 1; i++)
		op();
	double t0 = now();
	for (long i = 0; i < n; i++)
		op();
	return (now() - t0) * 1e6 / (double)n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int sync = 0;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "sync") == 0)
			sync = 1;
		else if (strcmp(argv[i], "addfd") == 0)
			use_addfd = 1;
	}
	if (n <= 0) {
		fprintf(stderr, "usage: cwb_floor N [sync] [addfd]\n");
		return 2;
	}
	const char *what = use_addfd ? "open" : "getppid";
	printf("floor bare %s n=%ld us_per_op=%.3f\n", what, n, time_op(n));

	held = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (held < 0) {
		perror("cwb_floor: /dev/null");
		return 1;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, use_addfd ? SYS_openat : SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("cwb_floor: PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0) {
		perror("cwb_floor: seccomp");
		return 77;
	}
	if (sync) {
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0) < 0) {
			perror("cwb_floor: SECCOMP_IOCTL_NOTIF_SET_FLAGS");
			return 77;
		}
	}
	pthread_t th;
	if (pthread_create(&th, NULL, answer, &fd) != 0) {
		fprintf(stderr, "cwb_floor: pthread_create failed\n");
		return 1;
	}
	printf("floor notify %s n=%ld sync=%d us_per_op=%.3f\n", what, n, sync, time_op(n));
	fflush(stdout);
	_exit(0); /* the answering thread never returns */
}
