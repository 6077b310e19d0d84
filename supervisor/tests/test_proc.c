/* Unit tests of the process family (handlers/proc.c: signals, pidfds,
 * calls that name a pid) and of ioctl.c, with this test process as the
 * target (handler_stubs.h): the real tracker knows this process and a
 * child registered as the command's; a second child the tracker was never
 * told of stands for a process outside the tree, as pid 1 does. The
 * decision is the real policy's under "verify" (process_control denied).
 * The answers are recorded, and the children are checked to be alive
 * after every call aimed at them: capwatch itself never signals. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <linux/sockios.h>
#include "handler_stubs.h"

/* ---- what proc.c and ioctl.c reach in fs.c ---- */

static int fd_metas;
void cw_fs_fd_meta(struct cw_notif *n, int fd, long long flags, cw_fd_meta_fn op, void *arg)
{
	(void)fd;
	(void)flags;
	(void)op;
	(void)arg;
	fd_metas++;
	cw_answer_error(n, ENOSYS); /* fs.c's: not in this test */
}

/* table.c's rows name every family's handler; the others are not here. */
static void not_here(struct cw_notif *n)
{
	fail_msg("%s went to a handler this test does not link", n->syscall);
}
void cw_handle_open(struct cw_notif *n) { not_here(n); }
void cw_handle_fs(struct cw_notif *n) { not_here(n); }
void cw_handle_fs_note(struct cw_notif *n) { not_here(n); }
void cw_handle_exec(struct cw_notif *n) { not_here(n); }
void cw_handle_net(struct cw_notif *n) { not_here(n); }
/* fs_special.c's list of the ptys the tree made: none here. */
bool cw_fs_tree_pty(const struct cw_run *r, const struct stat *st)
{
	(void)r;
	(void)st;
	return false;
}

/* ---- the tree: this process, one child of the command, one outsider ---- */

static pid_t inside, outside;

static pid_t idle_child(void)
{
	pid_t p = fork();
	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

/* Alive, and not stopped or killed by anything the handler did. */
static void assert_alive(pid_t p)
{
	int st;
	assert_int_equal(waitpid(p, &st, WNOHANG), 0);
	assert_int_equal(kill(p, 0), 0);
}

static int setup(void **state)
{
	(void)state;
	if (fake_run("verify") < 0)
		return -1;
	inside = idle_child();
	outside = idle_child();
	if (inside < 0 || outside < 0)
		return -1;
	/* As the tracker learns of a fork of the command. */
	struct cw_proc *p = cw_tracker_add(&run, inside);
	if (!p)
		return -1;
	p->ppid = getpid();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kill(inside, SIGKILL);
	kill(outside, SIGKILL);
	waitpid(inside, NULL, 0);
	waitpid(outside, NULL, 0);
	fake_run_free();
	fake_run_remove_dir();
	return 0;
}

static void assert_in_tree_allowed(void)
{
	assert_int_equal(seen.nanswers, 1);
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.nrecorded, 1);
	assert_true(seen.ev.op.target_in_tree);
	assert_int_equal(seen.ev.d.verdict, CW_ALLOW);
	assert_int_equal(seen.ev.d.cap, CW_CAP_NONE);
	assert_string_equal(seen.ev.d.rule, "builtin:own-tree");
}

/* Denied as process_control on TARGET, with that pid as the scope. */
static void assert_control_denied(int target)
{
	char want[24];
	snprintf(want, sizeof(want), "%d", target);
	assert_int_equal(seen.nanswers, 1);
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EPERM);
	assert_int_equal(seen.nrecorded, 1);
	assert_false(seen.ev.op.target_in_tree);
	assert_int_equal(seen.ev.op.target_pid, target);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_CONTROL);
	assert_string_equal(seen.scope, want);
}

/* ---- signals ---- */

static void test_tracker_knows_the_tree(void **state)
{
	(void)state;
	assert_true(cw_tracker_in_tree(&run, getpid()));
	assert_true(cw_tracker_in_tree(&run, inside));
	assert_false(cw_tracker_in_tree(&run, outside));
	assert_false(cw_tracker_in_tree(&run, 1));
}

static void test_kill_in_tree_allowed(void **state)
{
	(void)state;
	dispatch(cw_handle_signal, notify(__NR_kill, "kill", (uint64_t)inside, SIGTERM, 0, 0, 0, 0));
	assert_in_tree_allowed();
	assert_int_equal(seen.ev.op.kind, CW_OP_SIGNAL);
	assert_int_equal(seen.ev.op.target_pid, inside);
	assert_false(seen.ev.verified); /* the kernel sends it: registers only */
	assert_alive(inside);           /* CONTINUE is the kernel's to act on */

	dispatch(cw_handle_signal, notify(__NR_kill, "kill", (uint64_t)getpid(), 0, 0, 0, 0, 0));
	assert_in_tree_allowed();
}

static void test_kill_outside_denied(void **state)
{
	(void)state;
	dispatch(cw_handle_signal, notify(__NR_kill, "kill", (uint64_t)outside, SIGKILL, 0, 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(seen.ev.op.kind, CW_OP_SIGNAL);
	assert_alive(outside);

	dispatch(cw_handle_signal, notify(__NR_kill, "kill", 1, SIGTERM, 0, 0, 0, 0));
	assert_control_denied(1);

	/* -1: every process we may signal, capwatch's included */
	dispatch(cw_handle_signal, notify(__NR_kill, "kill", (uint64_t)-1, SIGKILL, 0, 0, 0, 0));
	assert_control_denied(-1);
	assert_alive(inside);
	assert_alive(outside);

	/* upper register bits are ignored, as the kernel ignores them (K6) */
	dispatch(cw_handle_signal, notify(__NR_kill, "kill", 0xffffffff00000000ull | (uint64_t)outside, SIGKILL, 0, 0, 0, 0));
	assert_control_denied(outside);
	assert_alive(outside);
}

/* A pid nobody has: ESRCH as the kernel answers, nothing decided. */
static void test_kill_nobody(void **state)
{
	(void)state;
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	assert_true(gone > 0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	dispatch(cw_handle_signal, notify(__NR_kill, "kill", (uint64_t)gone, SIGTERM, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ESRCH);
	assert_int_equal(seen.nrecorded, 0);
}

static void test_tgkill(void **state)
{
	(void)state;
	dispatch(cw_handle_signal, notify(__NR_tgkill, "tgkill", (uint64_t)inside, (uint64_t)inside, SIGTERM, 0, 0, 0));
	assert_in_tree_allowed();
	assert_alive(inside);

	dispatch(cw_handle_signal, notify(__NR_tgkill, "tgkill", (uint64_t)outside, (uint64_t)outside, SIGKILL, 0, 0, 0));
	assert_control_denied(outside);
	assert_alive(outside);

	/* both ids must be ours: a thread id from outside under our tgid */
	dispatch(cw_handle_signal, notify(__NR_tgkill, "tgkill", (uint64_t)getpid(), (uint64_t)outside, SIGKILL, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_false(seen.ev.op.target_in_tree);
	assert_int_equal(seen.ev.d.cap, CW_CAP_PROCESS_CONTROL);
	assert_alive(outside);

	dispatch(cw_handle_signal, notify(__NR_tkill, "tkill", (uint64_t)outside, SIGKILL, 0, 0, 0, 0));
	assert_control_denied(outside);
	assert_alive(outside);
}

/* pidfd_send_signal: the pid behind the descriptor (its fdinfo). */
static void test_pidfd_send_signal(void **state)
{
	(void)state;
	int pfd = (int)syscall(SYS_pidfd_open, outside, 0);
	if (pfd < 0) {
		print_message("skip: pidfd_open: %s\n", strerror(errno));
		skip();
	}
	dispatch(cw_handle_signal, notify(__NR_pidfd_send_signal, "pidfd_send_signal", (uint64_t)pfd, SIGKILL, 0, 0, 0, 0));
	assert_control_denied(outside);
	assert_alive(outside);
	close(pfd);

	pfd = (int)syscall(SYS_pidfd_open, inside, 0);
	assert_true(pfd >= 0);
	dispatch(cw_handle_signal, notify(__NR_pidfd_send_signal, "pidfd_send_signal", (uint64_t)pfd, SIGTERM, 0, 0, 0, 0));
	assert_in_tree_allowed();
	close(pfd);

	/* not a pidfd: EBADF, as the kernel says, and nothing decided */
	int f = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dispatch(cw_handle_signal, notify(__NR_pidfd_send_signal, "pidfd_send_signal", (uint64_t)f, SIGKILL, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EBADF);
	assert_int_equal(seen.nrecorded, 0);
	close(f);
}

/* fcntl(F_SETOWN*): SIGIO's recipient, decided like kill; F_SETOWN_EX's
 * owner is memory, copied once and set by capwatch on a duplicate. */
static void test_fcntl_setown(void **state)
{
	(void)state;
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETOWN, (uint64_t)outside, 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(seen.ev.flags, F_SETOWN);
	assert_int_equal(fcntl(s, F_GETOWN), 0);

	struct f_owner_ex ox = { .type = F_OWNER_PID, .pid = inside };
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETOWN_EX, ptr(&ox), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE); /* performed by capwatch */
	assert_int_equal(seen.val, 0);
	assert_true(seen.ev.verified);
	assert_true(seen.ev.op.target_in_tree);
	struct f_owner_ex got;
	assert_int_equal(fcntl(s, F_GETOWN_EX, &got), 0);
	assert_int_equal(got.type, F_OWNER_PID);
	assert_int_equal(got.pid, inside);

	ox.pid = outside;
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETOWN_EX, ptr(&ox), 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(fcntl(s, F_GETOWN_EX, &got), 0);
	assert_int_equal(got.pid, inside); /* unchanged */

	/* the owner's memory unreadable: EFAULT, nothing decided */
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETOWN_EX, 8, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	assert_int_equal(seen.nrecorded, 0);
	close(s);
}

/* ---- pidfd_open, ptrace and friends ---- */

static void test_pidfd_open(void **state)
{
	(void)state;
	dispatch(cw_handle_proc, notify(__NR_pidfd_open, "pidfd_open", (uint64_t)inside, 0, 0, 0, 0, 0));
	assert_in_tree_allowed();
	assert_int_equal(seen.ev.op.kind, CW_OP_PROC_ACCESS);

	dispatch(cw_handle_proc, notify(__NR_pidfd_open, "pidfd_open", (uint64_t)outside, 0, 0, 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(seen.ev.op.kind, CW_OP_PROC_ACCESS);

	dispatch(cw_handle_proc, notify(__NR_pidfd_open, "pidfd_open", 1, 0, 0, 0, 0, 0));
	assert_control_denied(1);

	/* writing a sibling's memory is an escape, not process control */
	dispatch(cw_handle_proc, notify(__NR_process_vm_writev, "process_vm_writev", (uint64_t)inside, 0, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.op.kind, CW_OP_ESCAPE_SYSCALL);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_alive(inside);
}

/* ---- calls that name a pid (prlimit64, setpriority, kcmp...) ---- */

static void test_pid_calls(void **state)
{
	(void)state;
	struct rlimit rl = { 0, 0 };
	/* the caller itself: not even decided */
	dispatch(cw_handle_pid_call, notify(__NR_prlimit64, "prlimit64", 0, RLIMIT_NOFILE, 0, ptr(&rl), 0, 0));
	assert_int_equal(seen.kind, ANS_CONTINUE);
	assert_int_equal(seen.nrecorded, 0);

	dispatch(cw_handle_pid_call, notify(__NR_prlimit64, "prlimit64", (uint64_t)inside, RLIMIT_NOFILE, 0, ptr(&rl), 0, 0));
	assert_in_tree_allowed();
	assert_int_equal(seen.ev.flags, RLIMIT_NOFILE);

	/* a read of another process's limits is process_control too */
	dispatch(cw_handle_pid_call, notify(__NR_prlimit64, "prlimit64", (uint64_t)outside, RLIMIT_NOFILE, 0, ptr(&rl), 0, 0));
	assert_control_denied(outside);
	assert_int_equal(seen.ev.op.kind, CW_OP_PROC_ACCESS);

	/* what the kernel refuses, answered as it would */
	dispatch(cw_handle_pid_call, notify(__NR_prlimit64, "prlimit64", (uint64_t)-5, RLIMIT_NOFILE, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EINVAL);
	assert_int_equal(seen.nrecorded, 0);

	/* PRIO_USER reaches every process of the user: target -1 */
	dispatch(cw_handle_pid_call, notify(__NR_setpriority, "setpriority", PRIO_USER, 0, 5, 0, 0, 0));
	assert_control_denied(-1);
	assert_int_equal(seen.ev.flags, PRIO_USER);

	dispatch(cw_handle_pid_call, notify(__NR_setpriority, "setpriority", PRIO_PROCESS, (uint64_t)outside, 5, 0, 0, 0));
	assert_control_denied(outside);

	/* kcmp: inside only when both are; the outsider is the one named */
	dispatch(cw_handle_pid_call, notify(__NR_kcmp, "kcmp", (uint64_t)getpid(), (uint64_t)outside, 0, 0, 0, 0));
	assert_control_denied(outside);
	dispatch(cw_handle_pid_call, notify(__NR_kcmp, "kcmp", (uint64_t)getpid(), (uint64_t)inside, 0, 0, 0, 0));
	assert_in_tree_allowed();
	assert_alive(outside);
}

/* ---- ioctl ---- */

/* Would the filter notify ioctl command CMD? The ioctl row as filter.c
 * reads it (test_filter runs the generated program itself). */
static bool ioctl_notified(uint32_t cmd)
{
	const struct cw_syscall *row = &cw_syscalls[__NR_ioctl];
	for (unsigned i = 0; i < row->nvals; i++)
		if (row->vals[i] == cmd)
			return true;
	unsigned type = (cmd >> 8) & 0xff;
	return row->type_allow && !(row->type_allow[type / 64] & (1ull << (type % 64)));
}

/* TIOCSTI pushes input into the terminal, read by the user's shell after
 * we exit: unrestricted, refused under verify. */
static void test_ioctl_tiocsti_refused(void **state)
{
	(void)state;
	assert_true(ioctl_notified(TIOCSTI));
	char c = 'x';
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", 0, TIOCSTI, ptr(&c), 0, 0, 0));
	assert_int_equal(seen.nanswers, 1);
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EPERM);
	assert_int_equal(seen.nrecorded, 1);
	assert_int_equal(seen.ev.op.kind, CW_OP_ESCAPE_SYSCALL);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(seen.ev.d.verdict, CW_DENY);
	assert_int_equal(seen.ev.flags, TIOCSTI);
	/* on the low 32 bits of the command, as the kernel takes it */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", 0, 0xabcd000000000000ull | TIOCSTI, ptr(&c), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	/* TIOCLINUX and TIOCCONS too */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", 0, TIOCCONS, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
}

/* The terminal's ordinary commands are passed in the kernel, never
 * notified; the handler sees only what the row sends it. */
static void test_ioctl_ordinary_passes(void **state)
{
	(void)state;
	static const uint32_t ordinary[] = { TCGETS, TCFLSH, TIOCGWINSZ, TIOCGPGRP, FIONREAD, FIONBIO, FIOCLEX };
	for (size_t i = 0; i < CW_ARRAY_SIZE(ordinary); i++)
		if (ioctl_notified(ordinary[i]))
			fail_msg("ioctl 0x%x is notified", ordinary[i]);
	assert_false(ioctl_notified(SIOCGIFINDEX)); /* sockets' type, 0x89 */
	/* a command of a type the filter does not pass: refused, ENOTTY */
	assert_true(ioctl_notified(0x7201)); /* 'r', vfat's */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", 0, 0x7201, 0, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOTTY);
	assert_int_equal(seen.ev.d.cap, CW_CAP_UNRESTRICTED);
	assert_int_equal(fd_metas, 0);
}

/* FIOSETOWN: the owner read once, decided like F_SETOWN, set by capwatch
 * on a duplicate with that copy. */
static void test_ioctl_fiosetown(void **state)
{
	(void)state;
	assert_true(ioctl_notified(FIOSETOWN));
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	int owner = inside;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOSETOWN, ptr(&owner), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_true(seen.ev.verified);
	assert_true(seen.ev.op.target_in_tree);
	assert_int_equal(fcntl(s, F_GETOWN), inside);

	owner = outside;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOSETOWN, ptr(&owner), 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(seen.ev.op.kind, CW_OP_SIGNAL);
	assert_int_equal(fcntl(s, F_GETOWN), inside); /* unchanged */

	/* unreadable: EFAULT; INT_MIN: EINVAL as f_setown() says */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOSETOWN, 16, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	owner = INT_MIN;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOSETOWN, ptr(&owner), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EINVAL);
	assert_int_equal(seen.nrecorded, 0);
	close(s);
	assert_alive(outside);
}

/* ---- signals the kernel sends on its own (sigio.c) ---- */

static int fresh_socket(int owner)
{
	int s = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	if (owner)
		assert_int_equal(fcntl(s, F_SETOWN, owner), 0); /* as set outside the tree */
	return s;
}

/* O_ASYNC (F_SETFL, FIOASYNC) and F_SETSIG: decided on the owner the
 * descriptor has; with none, the caller is made the owner before the flag
 * is set (by capwatch, on its duplicate), so the kernel never picks one. */
static void test_fasync_owner(void **state)
{
	(void)state;
	signal(SIGIO, SIG_IGN); /* this process becomes an owner below */
	int s = fresh_socket(0);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETFL, O_ASYNC | O_NONBLOCK, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_true(seen.ev.verified);
	assert_true(seen.ev.op.target_in_tree);
	assert_int_equal(fcntl(s, F_GETFL) & (O_ASYNC | O_NONBLOCK), O_ASYNC | O_NONBLOCK);
	assert_int_equal(fcntl(s, F_GETOWN), getpid());
	close(s);

	s = fresh_socket(outside);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETFL, O_ASYNC, 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(fcntl(s, F_GETFL) & O_ASYNC, 0);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETSIG, SIGKILL, 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(fcntl(s, F_GETSIG), 0);
	int on = 1;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOASYNC, ptr(&on), 0, 0, 0));
	assert_control_denied(outside);
	assert_int_equal(fcntl(s, F_GETFL) & O_ASYNC, 0);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_NOTIFY, DN_MODIFY, 0, 0, 0));
	assert_control_denied(outside);
	close(s);

	s = fresh_socket(inside);
	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)s, F_SETSIG, SIGUSR2, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_true(seen.ev.op.target_in_tree);
	assert_int_equal(seen.ev.op.target_pid, inside);
	assert_int_equal(fcntl(s, F_GETSIG), SIGUSR2);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, FIOASYNC, ptr(&on), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(fcntl(s, F_GETFL) & O_ASYNC, O_ASYNC);
	assert_int_equal(fcntl(s, F_GETOWN), inside); /* kept */
	close(s);
	assert_alive(outside);
	assert_alive(inside);
}

/* A terminal: with no owner, the kernel would make its foreground group
 * the owner. A pty master's group (its slave's: none here) is known; a
 * slave that is nobody's controlling terminal capwatch knows of is not:
 * refused. TIOCSWINSZ (SIGWINCH to that group) the same, performed on
 * capwatch's duplicate; on a socket the kernel's ENOTTY. */
static void test_fasync_terminal(void **state)
{
	(void)state;
	signal(SIGIO, SIG_IGN);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	int sl = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(sl >= 0);

	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)sl, F_SETFL, O_ASYNC, 0, 0, 0));
	assert_control_denied(0);
	assert_int_equal(fcntl(sl, F_GETFL) & O_ASYNC, 0);

	dispatch(cw_handle_signal, notify(__NR_fcntl, "fcntl", (uint64_t)m, F_SETFL, O_ASYNC, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(fcntl(m, F_GETFL) & O_ASYNC, O_ASYNC);
	assert_int_equal(fcntl(m, F_GETOWN), getpid());

	struct winsize ws = { 33, 99, 0, 0 }, got;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)m, TIOCSWINSZ, ptr(&ws), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_true(seen.ev.verified);
	assert_int_equal(ioctl(m, TIOCGWINSZ, &got), 0);
	assert_int_equal(got.ws_row, 33);
	assert_int_equal(got.ws_col, 99);
	ws.ws_row = 44;
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TIOCSWINSZ, ptr(&ws), 0, 0, 0));
	assert_control_denied(0);
	assert_int_equal(ioctl(m, TIOCGWINSZ, &got), 0);
	assert_int_equal(got.ws_row, 33); /* unchanged */
	int s = fresh_socket(0);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, TIOCSWINSZ, ptr(&ws), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOTTY);
	close(s);
	close(sl);
	close(m);
}

/* The terminal's attributes: every setter notified; turning TOSTOP on
 * where it is off refused on a terminal the tree did not make (this pty:
 * none is the tree's here); anything else performed by capwatch on its
 * duplicate with the copy read; a socket answers ENOTTY, an unreadable
 * struct EFAULT. */
static void test_tty_attr(void **state)
{
	(void)state;
	static const uint32_t setters[] = { TCSETS, TCSETSW, TCSETSF, 0x402C542B, 0x402C542C, 0x402C542D,
					    TCSETA, TCSETAW, TCSETAF };
	for (size_t i = 0; i < CW_ARRAY_SIZE(setters); i++)
		if (!ioctl_notified(setters[i]))
			fail_msg("ioctl 0x%x is not notified", setters[i]);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	int sl = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(sl >= 0);
	struct termios t;
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & TOSTOP, 0);

	/* The kernel's struct termios: c_lflag at 12. */
	unsigned char k[36];
	assert_int_equal(ioctl(sl, TCGETS, k), 0);
	uint32_t lf;
	memcpy(&lf, k + 12, 4);
	lf = (lf | TOSTOP) & ~(uint32_t)ECHO;
	memcpy(k + 12, &lf, 4);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETSW, ptr(k), 0, 0, 0));
	assert_control_denied(0);
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & (TOSTOP | ECHO), ECHO); /* nothing of it set */
	/* the same through the master: the slave's attributes */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)m, TCSETS, ptr(k), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EPERM);

	/* ECHO off, TOSTOP left off: performed, not recorded */
	lf &= ~(uint32_t)TOSTOP;
	memcpy(k + 12, &lf, 4);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETSF, ptr(k), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(seen.nrecorded, 0);
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & (TOSTOP | ECHO), 0);

	/* TOSTOP already on (set outside the tree): the tree may keep it,
	 * and turn it off */
	t.c_lflag |= TOSTOP;
	assert_int_equal(tcsetattr(sl, TCSANOW, &t), 0);
	lf |= TOSTOP | ECHO;
	memcpy(k + 12, &lf, 4);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETS, ptr(k), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & (TOSTOP | ECHO), TOSTOP | ECHO);
	unsigned char a[18]; /* struct termio: c_lflag a u16 at 6 */
	assert_int_equal(ioctl(sl, TCGETA, a), 0);
	uint16_t lf16;
	memcpy(&lf16, a + 6, 2);
	lf16 &= (uint16_t)~TOSTOP;
	memcpy(a + 6, &lf16, 2);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETAW, ptr(a), 0, 0, 0));
	assert_int_equal(seen.kind, ANS_VALUE);
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & TOSTOP, 0);
	/* ... and TOSTOP on again through termio: refused */
	lf16 |= TOSTOP;
	memcpy(a + 6, &lf16, 2);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETAF, ptr(a), 0, 0, 0));
	assert_control_denied(0);
	assert_int_equal(tcgetattr(sl, &t), 0);
	assert_int_equal(t.c_lflag & TOSTOP, 0);

	/* an unreadable struct: EFAULT; a socket: ENOTTY before any read */
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)sl, TCSETS, 8, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, EFAULT);
	int s = fresh_socket(0);
	dispatch(cw_handle_ioctl, notify(__NR_ioctl, "ioctl", (uint64_t)s, TCSETS, 8, 0, 0, 0));
	assert_int_equal(seen.kind, ANS_ERROR);
	assert_int_equal(seen.err, ENOTTY);
	close(s);
	close(sl);
	close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracker_knows_the_tree),
		cmocka_unit_test(test_kill_in_tree_allowed),
		cmocka_unit_test(test_kill_outside_denied),
		cmocka_unit_test(test_kill_nobody),
		cmocka_unit_test(test_tgkill),
		cmocka_unit_test(test_pidfd_send_signal),
		cmocka_unit_test(test_fcntl_setown),
		cmocka_unit_test(test_pidfd_open),
		cmocka_unit_test(test_pid_calls),
		cmocka_unit_test(test_ioctl_tiocsti_refused),
		cmocka_unit_test(test_ioctl_ordinary_passes),
		cmocka_unit_test(test_ioctl_fiosetown),
		cmocka_unit_test(test_fasync_owner),
		cmocka_unit_test(test_fasync_terminal),
		cmocka_unit_test(test_tty_attr),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
