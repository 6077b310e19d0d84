/* E69: calls that act on another process by pid, group, user or pidfd
 * (issue 14 item 3): its limits, priority, scheduling, I/O priority,
 * memory, robust futex list, or a comparison of its resources.
 *
 *   e69_pid_calls MODE TARGET
 *
 * TARGET: a pid (a process the test started), CAPWATCH (the nearest
 * ancestor whose comm is "capwatch": the supervisor itself), SELF (the
 * program's own pid), CHILD (a child it forks, in its own process group,
 * killed at the end), STDIN (pidfd modes only: the pidfd the test put on
 * descriptor 0), or a uid with MODE *_user.
 *
 * Prints "MODE PID ok" or "MODE PID err=NAME (text)"; exit 0 when the call
 * succeeded, 3 on EPERM, 4 on any other error, 2 on a usage error. Every
 * value set is harmless for a sleep: a lower open-files limit, nice 7, the
 * batch policy, CPU 0, best-effort I/O level 7, a cold hint over no pages. */
#include "esc.h"
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif
#ifndef SYS_sched_setattr
#define SYS_sched_setattr 314
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif

struct e69_sched_attr {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t util_min, util_max;
};

/* The nearest ancestor named "capwatch" (the command may run under a
 * shell or an interpreter, so getppid() alone is not enough). */
static pid_t find_capwatch(void)
{
	pid_t p = getppid();
	for (int depth = 0; p > 1 && depth < 16; depth++) {
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p);
		FILE *f = fopen(path, "r");
		if (!f)
			return -1;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
		if (strcmp(buf, "capwatch") == 0)
			return p;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
		f = fopen(path, "r");
		if (!f)
			return -1;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *rp = strrchr(buf, ')');
		char st;
		int pp;
		if (!rp || sscanf(rp + 1, " %c %d", &st, &pp) != 2)
			return -1;
		p = pp;
	}
	return -1;
}

static int call(const char *mode, pid_t pid, int pidfd)
{
	struct rlimit rl;
	if (!strcmp(mode, "prlimit_get"))
		return prlimit(pid, RLIMIT_NOFILE, NULL, &rl);
	if (!strcmp(mode, "prlimit_set")) {
		if (prlimit(pid, RLIMIT_NOFILE, NULL, &rl) < 0)
			rl.rlim_max = 1024; /* the read alone may be refused */
		struct rlimit nl = { rl.rlim_max < 777 ? rl.rlim_max : 777, rl.rlim_max };
		return prlimit(pid, RLIMIT_NOFILE, &nl, NULL);
	}
	if (!strcmp(mode, "setpriority"))
		return setpriority(PRIO_PROCESS, (id_t)pid, 7);
	if (!strcmp(mode, "setpriority_pgrp")) {
		pid_t g = getpgid(pid);
		return g < 0 ? -1 : setpriority(PRIO_PGRP, (id_t)g, 7);
	}
	if (!strcmp(mode, "setpriority_user")) /* pid is a uid here */
		return setpriority(PRIO_USER, (id_t)pid, 7);
	if (!strcmp(mode, "ioprio")) /* IOPRIO_WHO_PROCESS, best effort level 7 */
		return (int)syscall(SYS_ioprio_set, 1, pid, (2 << 13) | 7);
	if (!strcmp(mode, "ioprio_pgrp")) {
		pid_t g = getpgid(pid);
		return g < 0 ? -1 : (int)syscall(SYS_ioprio_set, 2, g, (2 << 13) | 7);
	}
	if (!strcmp(mode, "ioprio_user"))
		return (int)syscall(SYS_ioprio_set, 3, pid, (2 << 13) | 7);
	if (!strcmp(mode, "sched_setscheduler")) {
		struct sched_param sp = { 0 };
		return sched_setscheduler(pid, SCHED_BATCH, &sp);
	}
	if (!strcmp(mode, "sched_setparam")) {
		struct sched_param sp = { 0 };
		return sched_setparam(pid, &sp);
	}
	if (!strcmp(mode, "sched_setaffinity")) {
		cpu_set_t s;
		CPU_ZERO(&s);
		CPU_SET(0, &s);
		return sched_setaffinity(pid, sizeof(s), &s);
	}
	if (!strcmp(mode, "sched_setattr")) {
		struct e69_sched_attr a = { .size = 48, .sched_policy = SCHED_OTHER, .sched_nice = 7 };
		return (int)syscall(SYS_sched_setattr, pid, &a, 0);
	}
	if (!strcmp(mode, "migrate_pages")) {
		unsigned long nodes = 1; /* node 0 to node 0: nothing moves */
		long r = syscall(SYS_migrate_pages, pid, 8 * sizeof(nodes), &nodes, &nodes);
		return r < 0 ? -1 : 0;
	}
	if (!strcmp(mode, "move_pages")) /* no pages: permission checks only */
		return (int)syscall(SYS_move_pages, pid, 0UL, NULL, NULL, NULL, 0);
	if (!strcmp(mode, "get_robust_list")) {
		void *head;
		size_t len;
		return (int)syscall(SYS_get_robust_list, pid, &head, &len);
	}
	if (!strcmp(mode, "kcmp")) /* KCMP_VM of this process and PID */
		return (int)syscall(SYS_kcmp, getpid(), pid, 1 /* KCMP_VM */, 0, 0) < 0 ? -1 : 0;
	if (!strcmp(mode, "pidfd_open")) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -1 : 0;
	}
	if (!strcmp(mode, "process_madvise")) {
		static char page[1];
		struct iovec iov = { page, 0 }; /* no pages */
		return syscall(SYS_process_madvise, pidfd, &iov, 1, MADV_COLD, 0) < 0 ? -1 : 0;
	}
	if (!strcmp(mode, "process_mrelease")) /* EINVAL unless the process is dying */
		return (int)syscall(SYS_process_mrelease, pidfd, 0);
	fprintf(stderr, "unknown mode %s\n", mode);
	exit(2);
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e69_pid_calls MODE PID|CAPWATCH|SELF|CHILD|STDIN");
	const char *mode = argv[1], *t = argv[2];
	bool pidfd_mode = !strcmp(mode, "process_madvise") || !strcmp(mode, "process_mrelease");
	pid_t pid, child = 0;
	int pidfd = -1;

	if (!strcmp(t, "CAPWATCH")) {
		pid = find_capwatch();
		if (pid < 0) {
			printf("%s no capwatch ancestor\n", mode);
			return 2;
		}
	} else if (!strcmp(t, "SELF")) {
		pid = getpid();
	} else if (!strcmp(t, "CHILD")) {
		child = fork();
		if (child == 0) {
			setpgid(0, 0);
			pause();
			_exit(0);
		}
		setpgid(child, child); /* either may run first */
		pid = child;
	} else if (!strcmp(t, "STDIN")) {
		pid = -1;
		pidfd = 0;
	} else {
		pid = atoi(t);
	}
	if (pidfd_mode && pidfd < 0) {
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0) {
			int e = errno;
			printf("%s %d err=%s (pidfd_open: %s)\n", mode, (int)pid, strerrorname_np(e), strerror(e));
			return e == EPERM ? 3 : 4;
		}
	}
	int r = call(mode, pid, pidfd);
	int e = errno;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (r < 0) {
		printf("%s %d err=%s (%s)\n", mode, (int)pid, strerrorname_np(e), strerror(e));
		return e == EPERM ? 3 : 4;
	}
	printf("%s %d ok\n", mode, (int)pid);
	return 0;
}
