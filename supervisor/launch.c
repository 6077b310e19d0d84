/* Fork and child setup. After fork(), the child only calls async-signal-safe
 * functions on data prepared by the parent, and on any failure _exit()s
 * with a distinct code: it never goes on unfiltered. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/seccomp.h>
#include <unistd.h>
#include "supervisor/launch.h"
#include "supervisor/annot.h"
#include "supervisor/fds.h"
#include "supervisor/kernel.h"
#include "supervisor/landlock.h"
#include "supervisor/limits.h"
#include "supervisor/privs.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

struct child_msg {
	int32_t step;  /* CW_STEP_OK: VALUE is the listener fd number */
	int32_t value; /* errno otherwise */
	uint32_t privs_applied; /* CW_PRIV_* (privs.h) */
	int32_t privs_err_caps, privs_err_ns;
};

static const char *const step_names[] = {
	[CW_STEP_OK] = "ok",
	[CW_STEP_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
	[CW_STEP_SESSION] = "setsid",
	[CW_STEP_SYNC] = "synchronising with capwatch",
	[CW_STEP_FDS] = "close_range",
	[CW_STEP_NNP] = "prctl(PR_SET_NO_NEW_PRIVS)",
	[CW_STEP_SECCOMP] = "seccomp(SECCOMP_SET_MODE_FILTER)",
	[CW_STEP_EXEC] = "execve",
	[CW_STEP_LANDLOCK] = "landlock_restrict_self",
	[CW_STEP_MOUNTNS] = "a mount namespace for the kernel back end",
};

static ssize_t full_write(int fd, const void *buf, size_t n)
{
	ssize_t r;
	while ((r = write(fd, buf, n)) < 0 && errno == EINTR)
		;
	return r;
}

static ssize_t full_read(int fd, void *buf, size_t n)
{
	ssize_t r;
	while ((r = read(fd, buf, n)) < 0 && errno == EINTR)
		;
	return r;
}

static __attribute__((noreturn)) void child_fail(int st, enum cw_child_step step)
{
	struct child_msg m = { step, errno, 0, 0, 0 };
	full_write(st, &m, sizeof(m));
	_exit(CW_CHILD_EXIT_BASE + step);
}

/* SH_ARGV: see make_sh_argv(). */
static __attribute__((noreturn)) void child_main(struct cw_run *run, pid_t parent, int go, int st,
						 const struct sock_fprog *prog,
						 const struct cw_launch_signals *sigs, char **sh_argv)
{
	char c;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		child_fail(st, CW_STEP_PDEATHSIG);
	/* (In the tree's own PID namespace capwatch has no number: 0. An
	 * orphan there would have its init's, 1.) */
	pid_t pp = getppid();
	if (pp != parent && !(run->kernel_reads && pp == 0)) {
		errno = ESRCH;
		child_fail(st, CW_STEP_PDEATHSIG);
	}
	/* The command gets the signal state capwatch was started with. */
	sigaction(SIGPIPE, &sigs->pipe, NULL);
	signal(SIGTSTP, SIG_DFL);
	signal(SIGTTIN, SIG_DFL);
	signal(SIGTTOU, SIG_DFL);
	sigprocmask(SIG_SETMASK, &sigs->mask, NULL);

	/* Without a terminal, a session of its own: the whole tree can be
	 * signalled as one group and nothing reaches capwatch's group by
	 * accident. With a terminal on stdin, the command stays in
	 * capwatch's process group (the shell's foreground job), so Ctrl-C,
	 * Ctrl-\ and Ctrl-Z reach it straight from the terminal, and it
	 * keeps its controlling terminal (a new session would lose it). */
	if (!run->tty_mode && setsid() < 0)
		child_fail(st, CW_STEP_SESSION);

	/* Wait until the tracker is attached. */
	if (full_read(go, &c, 1) != 1)
		child_fail(st, CW_STEP_SYNC);

	/* Nothing capwatch holds reaches the command: every fd above 2 is
	 * closed at exec (the sync pipes still work until then). */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		child_fail(st, CW_STEP_FDS);
	/* ...but for the preload's annotation channel, at a fixed number,
	 * and the --keep-fd descriptors the profile allowed (fds.h). */
	cw_annot_child(run);
	cw_fds_child(run);

	/* The kernel back end watches the mounts of a namespace of the
	 * tree's own (kernel.h): made while the child may still. */
	if (run->backend && strcmp(run->backend, "kernel") == 0) {
		int ke = cw_kernel_child(run->kernel_reads);
		if (ke < 0) {
			errno = -ke;
			child_fail(st, CW_STEP_MOUNTNS);
		}
	}

	/* Least privilege: what the command keeps of capwatch's
	 * capabilities, and namespaces of its own (privs.h). */
	int perr_caps, perr_ns;
	uint32_t papplied = cw_privs_child(&run->privs, &perr_caps, &perr_ns);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(st, CW_STEP_NNP);
	/* The kernel backstop: after NNP (required without CAP_SYS_ADMIN),
	 * before the filter (landlock syscalls are not notified either way). */
	int ll = cw_landlock_child(run);
	if (ll < 0) {
		errno = -ll;
		child_fail(st, CW_STEP_LANDLOCK);
	}

	unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	long l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	if (l < 0 && errno == EINVAL) /* kernels before 5.19 */
		l = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	if (l < 0 && !(run->under_filter && errno == EBUSY))
		child_fail(st, CW_STEP_SECCOMP);
	/* Otherwise, with no listener: an outer supervisor holds the only one
	 * a filter chain may have (EBUSY: a nested capwatch; an outer capwatch
	 * that denies the call answers EBUSY too). Go on degraded; value < 0
	 * carries the errno. Any other failure (a container's filter denying
	 * seccomp()) refuses to run: nobody would be supervising. */

	/* write and read are not notified: no deadlock on a listener nobody
	 * holds yet. */
	struct child_msg m = { CW_STEP_OK, l < 0 ? -errno : (int32_t)l, papplied, perr_caps, perr_ns };
	if (full_write(st, &m, sizeof(m)) != sizeof(m))
		_exit(CW_CHILD_EXIT_BASE + CW_STEP_SYNC);
	if (full_read(go, &c, 1) != 1)
		_exit(CW_CHILD_EXIT_BASE + CW_STEP_SYNC);
	/* The command must not hold the listener: whoever has it can answer
	 * for capwatch (K14). */
	if (l >= 0)
		close((int)l);

	execve(run->command_path, run->opts->command, run->envp);
	if (errno == ENOEXEC && sh_argv) {
		/* A script without "#!": run it with /bin/sh, as execvp(3)
		 * does, so that capwatch runs what env(1) or timeout(1) would.
		 * This exec is notified and decided like any other. */
		execve("/bin/sh", sh_argv, run->envp);
		errno = ENOEXEC;
	}
	/* Denied by policy (EACCES from capwatch) or not executable. */
	_exit(errno == ENOENT ? 127 : 126);
}

/* ["/bin/sh", COMMAND_PATH, ARG...], made before fork for the ENOEXEC
 * fallback (the child does not allocate). */
static char **make_sh_argv(const struct cw_run *run)
{
	size_t n = 0;
	while (run->opts->command[n])
		n++;
	char **v = calloc(n + 2, sizeof(*v));
	if (!v)
		return NULL;
	v[0] = (char *)"/bin/sh";
	v[1] = run->command_path;
	for (size_t i = 1; i < n; i++)
		v[i + 1] = run->opts->command[i];
	return v;
}

/* Wait for the child's message while keeping its ptrace stops moving (a
 * signal to it during setup must not deadlock us). */
static int read_child_msg(struct cw_run *run, int st, struct child_msg *m)
{
	for (;;) {
		struct pollfd p = { st, POLLIN, 0 };
		int r = poll(&p, 1, 50);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0) {
			ssize_t n = full_read(st, m, sizeof(*m));
			if (n == sizeof(*m))
				return 0;
			return -EPIPE;
		}
		run->tracker_ops->reap(run);
		if (run->child_exited)
			return -ECHILD;
	}
}

static void child_reap_failed(struct cw_run *run)
{
	kill(run->child, SIGKILL);
	while (!run->child_exited) {
		int status;
		pid_t p = waitpid(run->child, &status, __WALL);
		if (p == run->child && (WIFEXITED(status) || WIFSIGNALED(status))) {
			run->child_exited = true;
			run->child_status = status;
		} else if (p < 0 && errno != EINTR) {
			break;
		}
	}
}

/* The tracker of the back end on the child PID: the kernel back end's,
 * or ptrace, or (ptrace refused: degraded) wait-only. 0 or -errno; on
 * failure the child is gone. */
static int attach_tracker(struct cw_run *run, pid_t pid)
{
	int r;
	if (run->backend && strcmp(run->backend, "kernel") == 0) {
		run->tracker_ops = &cw_tracker_kernel;
		r = run->tracker_ops->attach(run, pid);
		if (r < 0) {
			cw_err("the kernel back end could not start: %s", strerror(-r));
			child_reap_failed(run);
			return r;
		}
	} else {
		run->tracker_ops = &cw_tracker_ptrace;
		r = run->tracker_ops->attach(run, pid);
	}
	if (r < 0) {
		/* Already traced (a debugger, a nested capwatch) or forbidden:
		 * run with seccomp alone and say so in the report. */
		snprintf(run->downgrade_reason, sizeof(run->downgrade_reason),
			 "ptrace unavailable (PTRACE_SEIZE: %s): descendants and exec stops "
			 "are not tracked", strerror(-r));
		run->degraded = true; /* logged and traced by the run */
		run->tracker_ops = &cw_tracker_waitonly;
		r = run->tracker_ops->attach(run, pid);
		if (r < 0) {
			child_reap_failed(run);
			return r;
		}
	}
	return 0;
}

/* One byte on GOFD: the child goes on to its next step. */
static int let_go(struct cw_run *run, int gofd)
{
	char c = 1;
	if (full_write(gofd, &c, 1) != 1) {
		int e = -errno;
		child_reap_failed(run);
		return e;
	}
	return 0;
}

/* The tracker is attached: let the child set itself up, read what it
 * did (STFD), take its listener, and let it exec. 0 or -errno; on failure
 * the child is gone. */
static int handshake(struct cw_run *run, int gofd, int stfd)
{
	int r = let_go(run, gofd);
	if (r < 0)
		return r;
	struct child_msg m;
	r = read_child_msg(run, stfd, &m);
	if (r < 0 || m.step != CW_STEP_OK) {
		if (r == 0)
			cw_err("setting up the command failed at %s: %s",
			       m.step > 0 && m.step <= CW_STEP_MOUNTNS ? step_names[m.step] : "?",
			       strerror(m.value));
		else
			cw_err("the command's setup did not complete (%s)", strerror(-r));
		child_reap_failed(run);
		return r < 0 ? r : -m.value;
	}
	cw_privs_result(run, &run->privs, m.privs_applied, m.privs_err_caps, m.privs_err_ns);
	if (m.value < 0) {
		/* Nested under another supervisor's filter: that one enforces
		 * its own profile; this capwatch can only watch the exit. */
		size_t len = strlen(run->downgrade_reason);
		snprintf(run->downgrade_reason + len, sizeof(run->downgrade_reason) - len,
			 "%sno seccomp listener (%s; already under a seccomp filter, e.g. an "
			 "outer capwatch): no operation is decided by this capwatch",
			 len ? "; " : "", strerror(-m.value));
		run->degraded = true;
		run->no_listener = true;
		return let_go(run, gofd);
	}
	run->listener = (int)syscall(SYS_pidfd_getfd, run->child_pidfd, m.value, 0);
	if (run->listener < 0) {
		int e = -errno;
		cw_err("pidfd_getfd of the seccomp listener: %s", strerror(errno));
		child_reap_failed(run);
		return e;
	}
	if (run->tracker_ops == &cw_tracker_kernel && (r = cw_kernel_ready(run)) < 0) {
		child_reap_failed(run);
		return r;
	}
	return let_go(run, gofd);
}

int cw_launch(struct cw_run *run, const struct sock_fprog *prog, const struct cw_launch_signals *sigs)
{
	int go[2], st[2];
	pid_t parent = getpid();

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(st, O_CLOEXEC) < 0) {
		int e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}

	if (!run->kernel_reads)
		cw_landlock_prepare(run); /* (with kernel_reads: made already, run.c) */
	cw_limits_prepare(run);
	cw_privs_prepare(run, &run->privs);
	/* The child's copy is the one it uses; this one goes with the call. */
	_cleanup_free_ char **sh_argv = make_sh_argv(run); /* NULL: no fallback, the exec fails 126 */
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(go[0]); close(go[1]); close(st[0]); close(st[1]);
		cw_err("fork: %s", strerror(-e));
		return e;
	}
	if (pid == 0) {
		close(go[1]);
		close(st[0]);
		child_main(run, parent, go[0], st[1], prog, sigs, sh_argv);
	}
	close(go[0]);
	close(st[1]);
	if (cw_kernel_reads_forked(run) < 0) {
		/* capwatch's own forks would land in the tree's namespace */
		cw_err("cannot return to capwatch's PID namespace: %s", strerror(errno));
		abort();
	}
	_cleanup_close_ int gofd = go[1];
	_cleanup_close_ int stfd = st[0];
	run->child = pid;
	cw_limits_attach(run, pid); /* before it may fork: it waits for "go" */

	run->child_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (run->child_pidfd < 0) {
		int e = -errno;
		cw_err("pidfd_open: %s", strerror(errno));
		child_reap_failed(run);
		return e;
	}
	int r = attach_tracker(run, pid);
	if (r < 0)
		return r;
	return handshake(run, gofd, stfd);
}
