/* Signals the kernel sends on its own for a descriptor or a terminal, with
 * no kill() and no pid in the call: decided on who will get them, like
 * kill (process_control outside the tree; red team 19, e182).
 *
 *  - fcntl F_SETFL turning O_ASYNC on, ioctl FIOASYNC: SIGIO (or the
 *    F_SETSIG signal) to the descriptor's owner whenever it is ready. The
 *    owner is the one already set: by F_SETOWN, F_SETOWN_EX, FIOSETOWN or
 *    SIOCSPGRP (decided in proc.c and ioctl.c), or by a process outside
 *    the tree before the command started (an inherited descriptor). When
 *    none is set, a terminal makes its foreground process group the owner
 *    (the kernel's tty_fasync): capwatch's job in tty mode, the user's
 *    shell job when only stdout is the terminal. Other files set none.
 *  - fcntl F_SETSIG: which signal the owner gets (SIGKILL, say).
 *  - fcntl F_SETLEASE, F_NOTIFY: a lease break or a directory change
 *    signals the owner (the kernel makes the caller the owner when there
 *    is none).
 *  - ioctl TIOCSWINSZ: SIGWINCH to the terminal's foreground group.
 *  - ioctl TIOCSPGRP: which group the terminal's foreground is. A group put
 *    in the background gets SIGTTIN or SIGTTOU, from the kernel, when one
 *    of its processes reads or writes the terminal: moved off a group that
 *    holds processes outside the tree (capwatch's job in tty mode, where
 *    the command shares it), the tree could stop them and capwatch.
 *  - ioctl TCSETS and its twins (tcsetattr) turning TOSTOP on: from then
 *    on the kernel stops, with SIGTTOU, every process of a background job
 *    of the terminal's session that writes to it (red team 23, e191).
 *
 * Each is decided on the owner, or group, the kernel will signal. A
 * descriptor number can be swapped by another thread after the decision
 * (E11), so what rests on the object behind it is performed by capwatch
 * on the duplicate it decided on: O_ASYNC (the owner made the caller
 * first when there is none, so that the kernel never picks one),
 * F_SETSIG, TIOCSWINSZ, the terminal's attributes. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/handlers/fs_special.h"
#include "supervisor/record.h"
#include "supervisor/state.h"
#include "supervisor/util.h"

#define CW_CAP_FOWNER_BIT 3 /* CAP_FOWNER */

/* What /proc/TID/stat says of the caller's session and terminal. */
struct tty_of {
	pid_t session;
	dev_t tty;   /* its controlling terminal, 0: none */
	pid_t tpgid; /* that terminal's foreground group, 0 or -1: none */
};

static bool caller_tty(const struct cw_notif *n, struct tty_of *t)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)n->tid);
	if (cw_read_text(path, buf, sizeof(buf)) <= 0)
		return false;
	char *rp = strrchr(buf, ')');
	char state;
	int ppid, pgrp, session, tpgid;
	unsigned tty_nr;
	if (!rp || sscanf(rp + 1, " %c %d %d %d %u %d", &state, &ppid, &pgrp, &session, &tty_nr, &tpgid) != 6)
		return false;
	t->session = session;
	t->tty = (dev_t)tty_nr;
	t->tpgid = tpgid;
	return true;
}

enum { FG_NOT_TTY = -1, FG_UNKNOWN = -2 };

/* The foreground process group of the terminal behind DUP (capwatch's
 * duplicate of the caller's descriptor), in capwatch's pid namespace: 0
 * when it has none, FG_NOT_TTY, or FG_UNKNOWN when capwatch cannot tell:
 * a terminal that is neither capwatch's controlling terminal, nor a pty
 * master (whose slave's group TIOCGPGRP gives), nor the caller's
 * controlling terminal. */
static pid_t tty_foreground(const struct cw_notif *n, int dup)
{
	struct termios tio;
	if (tcgetattr(dup, &tio) < 0)
		return FG_NOT_TTY;
	pid_t pg = 0;
	if (ioctl(dup, TIOCGPGRP, &pg) == 0)
		return pg > 0 ? pg : 0;
	struct stat st;
	struct tty_of t;
	if (fstat(dup, &st) < 0)
		return FG_UNKNOWN;
	if (caller_tty(n, &t) && t.tty != 0 && t.tty == st.st_rdev)
		return t.tpgid > 0 ? t.tpgid : 0;
	/* A pty the tree made (fs_special.c keeps them): a session only the
	 * tree's processes can be in takes it as its terminal, if any (a
	 * slave glibc's openpty sizes before anyone's session has it). */
	if (cw_fs_tree_pty(n->run, &st))
		return 0;
	return FG_UNKNOWN;
}

/* Is the owner OX (as F_GETOWN_EX gives it, capwatch's numbers) outside
 * the tree? No owner is not. */
static bool owner_outside(const struct cw_notif *n, const struct f_owner_ex *ox)
{
	if (ox->pid <= 0)
		return false;
	return ox->type == F_OWNER_PGRP ? !cw_group_in_tree(n, ox->pid) : !cw_task_in_tree(n, ox->pid);
}

static int owner_target(const struct f_owner_ex *ox)
{
	return ox->type == F_OWNER_PGRP ? -ox->pid : ox->pid;
}

/* The call's third argument read once into BUF (LEN bytes; none when
 * LEN is 0), and capwatch's duplicate of its descriptor: the duplicate,
 * or -1 when the call was answered (unreadable memory: EFAULT; no such
 * descriptor: the kernel's errno). */
static int read_and_dup(struct cw_notif *n, void *buf, size_t len)
{
	int e = len ? cw_mem_read(n->tid, arg_u64(n, 2), buf, len) : 0;
	if (e < 0) {
		answer_unreadable(n, e == -ESRCH ? ESRCH : EFAULT);
		return -1;
	}
	int d = cw_dup_target_fd(n, arg_int(n, 0));
	if (d < 0) {
		answer_unreadable(n, -d);
		return -1;
	}
	return d;
}

/* ---- O_ASYNC, F_SETSIG, F_SETLEASE, F_NOTIFY ---- */

enum fasync_kind { ARM_SETFL, ARM_FIOASYNC, SET_SIG, OWNER_LEASE };

static enum fasync_kind fasync_kind(const struct cw_notif *n)
{
	if (n->req->data.nr == __NR_ioctl)
		return ARM_FIOASYNC;
	switch (arg_int(n, 1)) {
	case F_SETFL:
		return ARM_SETFL;
	case F_SETSIG:
		return SET_SIG;
	default:
		return OWNER_LEASE; /* F_SETLEASE, F_NOTIFY */
	}
}

/* The caller made the owner of DUP's open file description when it has
 * none, so that the kernel (tty_fasync) never picks one itself; the owner
 * it has then in *OX; 0 or -errno. */
static int pin_owner(const struct cw_notif *n, int dup, struct f_owner_ex *ox)
{
	if (fcntl(dup, F_GETOWN_EX, ox) < 0)
		return -errno;
	if (ox->pid != 0)
		return 0;
	ox->type = F_OWNER_PID;
	ox->pid = n->tgid;
	return fcntl(dup, F_SETOWN_EX, ox) < 0 ? -errno : 0;
}

/* After capwatch turned O_ASYNC on: the owner PINNED (pin_owner) is still
 * there. A terminal with no owner makes the caller of that call, capwatch,
 * the owner (tty_fasync), and capwatch would then get the signals the tree
 * chose (F_SETSIG: SIGSTOP, SIGKILL; red team 21). Every call that clears
 * an owner is performed by capwatch under the handlers' lock (proc.c,
 * ioctl.c), so none lands between the pin and the flag; should one, the
 * pinned owner is set again (a window of one system call) and the call
 * is answered EPERM, though the flag stays on (with that owner) and a
 * note says so. 0 or -EPERM. */
static int owner_kept(const struct cw_notif *n, int dup, const struct f_owner_ex *pinned)
{
	struct f_owner_ex ox;
	if (fcntl(dup, F_GETOWN_EX, &ox) < 0)
		return -EPERM;
	if (ox.pid == pinned->pid && ox.type == pinned->type)
		return 0;
	fcntl(dup, F_SETOWN_EX, pinned);
	cw_record_note(n->run, n->tgid, "warning",
		       "signal-driven I/O: the descriptor's owner changed while capwatch set it (%d): set back",
		       (int)ox.pid);
	return -EPERM;
}

/* F_SETFL's flags on capwatch's duplicate: the kernel checks O_NOATIME
 * against capwatch's credentials, so it is checked against the caller's
 * first (as fs_meta does for the flags it performs). */
static int setfl_as_caller(const struct cw_notif *n, int dup, int flags)
{
	int old = fcntl(dup, F_GETFL);
	if (old < 0)
		return -errno;
	if ((flags & O_NOATIME) && !(old & O_NOATIME)) {
		struct cw_target_status st;
		struct stat sb;
		if (cw_target_status(n->tid, &st) < 0 || fstat(dup, &sb) < 0)
			return -EPERM;
		if ((unsigned long)sb.st_uid != st.uid[3] && !(st.cap_eff & (1ull << CW_CAP_FOWNER_BIT)))
			return -EPERM;
	}
	return fcntl(dup, F_SETFL, flags) < 0 ? -errno : 0;
}

static void enforce_fasync(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	enum fasync_kind k = fasync_kind(n);
	if (k == OWNER_LEASE) {
		/* A lease or a directory notification belongs to the
		 * descriptor table that set it (dnotify drops it when that
		 * table closes the file): the caller's own call. The kernel
		 * makes the caller the owner when there is none. A number
		 * swapped meanwhile for a descriptor whose owner a process
		 * outside set before the run is not decided (SECURITY.md). */
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	int d = n->call->sig_dup; /* the very object decided on */
	int r = d < 0 ? -EPERM : 0;
	struct f_owner_ex pinned;
	if (d >= 0) {
		switch (k) {
		case ARM_SETFL:
			r = pin_owner(n, d, &pinned);
			if (r == 0)
				r = setfl_as_caller(n, d, arg_int(n, 2));
			if (r == 0)
				r = owner_kept(n, d, &pinned);
			break;
		case ARM_FIOASYNC:
			r = pin_owner(n, d, &pinned);
			if (r == 0)
				r = ioctl(d, FIOASYNC, &n->call->owner_val) < 0 ? -errno : 0;
			if (r == 0)
				r = owner_kept(n, d, &pinned);
			break;
		default:
			r = fcntl(d, F_SETSIG, arg_int(n, 2)) < 0 ? -errno : 0;
			break;
		}
	}
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

void cw_handle_fasync(struct cw_notif *n)
{
	enum fasync_kind k = fasync_kind(n);
	/* FIOASYNC's flag is memory: read once, and capwatch sets it.
	 * Turning it off is decided too (another thread could turn the word
	 * on before the kernel read it). */
	_cleanup_close_ int d = k == ARM_FIOASYNC ? read_and_dup(n, &n->call->owner_val, sizeof(n->call->owner_val))
						  : read_and_dup(n, NULL, 0);
	if (d < 0)
		return;
	struct f_owner_ex ox = { 0, 0 };
	if (fcntl(d, F_GETOWN_EX, &ox) < 0) {
		cw_answer_error(n, errno);
		return;
	}
	int target = owner_target(&ox);
	bool in_tree = !owner_outside(n, &ox);
	if (in_tree && (k == ARM_SETFL || k == ARM_FIOASYNC)) {
		/* A terminal: when its owner goes (another thread may clear it
		 * before the flag is set), the kernel makes its foreground
		 * group the owner. That group too must be the tree's. */
		pid_t fg = tty_foreground(n, d);
		if (fg == FG_UNKNOWN) {
			in_tree = false;
			target = 0;
		} else if (fg > 0 && !cw_group_in_tree(n, fg)) {
			in_tree = false;
			target = -fg;
		} else if (ox.pid == 0) {
			target = fg > 0 ? -fg : n->tgid;
		}
	} else if (in_tree && ox.pid == 0) {
		target = n->tgid;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = target;
	ev.op.target_in_tree = in_tree;
	ev.flags = n->req->data.nr == __NR_ioctl ? (long long)(uint32_t)arg_u64(n, 1) : arg_int(n, 1);
	ev.has_flags = true;
	n->call->sig_dup = d;
	cw_event_finish(n, &ev, NULL, enforce_fasync);
	n->call->sig_dup = -1; /* D closes here: an answer given later fails closed */
}

/* ---- the terminal's foreground group: TIOCSPGRP, TIOCSWINSZ ---- */

static void enforce_winsz(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int d = n->call->sig_dup; /* the very terminal decided on */
	int r = d < 0 ? -EPERM : ioctl(d, TIOCSWINSZ, &n->call->winsz) < 0 ? -errno : 0;
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

static void handle_winsz(struct cw_notif *n)
{
	_cleanup_close_ int d = read_and_dup(n, &n->call->winsz, sizeof(n->call->winsz));
	if (d < 0)
		return;
	pid_t fg = tty_foreground(n, d);
	if (fg == FG_NOT_TTY) {
		cw_answer_error(n, ENOTTY);
		return;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = fg > 0 ? -fg : 0;
	ev.op.target_in_tree = fg == 0 || (fg > 0 && cw_group_in_tree(n, fg));
	ev.flags = TIOCSWINSZ;
	ev.has_flags = true;
	n->call->sig_dup = d;
	cw_event_finish(n, &ev, NULL, enforce_winsz);
	n->call->sig_dup = -1;
}

/* TIOCSPGRP acts on the caller's controlling terminal only, whatever the
 * descriptor (the kernel answers ENOTTY otherwise), among the groups of
 * the caller's session: decided on that session. One the tree made holds
 * only the tree's processes: the call goes ahead. In any other (capwatch's
 * own, in tty mode) the foreground may not leave the group it is in; a call
 * that names that very group changes nothing and is answered here. */
static void handle_tcsetpgrp(struct cw_notif *n)
{
	struct tty_of t;
	if (!caller_tty(n, &t)) {
		answer_unreadable(n, ESRCH);
		return;
	}
	if (t.tty == 0 || (t.session > 0 && cw_task_in_tree(n, t.session))) {
		cw_answer_continue(n); /* no terminal (ENOTTY), or the tree's session */
		return;
	}
	int pg;
	int e = cw_mem_read(n->tid, arg_u64(n, 2), &pg, sizeof(pg));
	if (e < 0) {
		answer_unreadable(n, e == -ESRCH ? ESRCH : EFAULT);
		return;
	}
	if (t.tpgid > 0 && pg == t.tpgid && !cw_tree_own_pidns(n)) {
		cw_answer_value(n, 0);
		return;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = t.tpgid > 0 ? -t.tpgid : 0;
	ev.op.target_in_tree = false;
	ev.flags = TIOCSPGRP;
	ev.has_flags = true;
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

void cw_handle_tty_job(struct cw_notif *n)
{
	if ((uint32_t)arg_u64(n, 1) == TIOCSWINSZ)
		handle_winsz(n);
	else
		handle_tcsetpgrp(n);
}

/* ---- the terminal's attributes: TOSTOP ----
 *
 * TOSTOP in c_lflag makes the kernel stop, with SIGTTOU, any process of a
 * background job of the terminal's session that writes to it (the user's
 * own `make &`, outside the tree), for as long as the setting lasts, which
 * is past the run. So every setter of the attributes is notified (table.c)
 * and one that turns TOSTOP on where it is off is process_control, unless
 * the terminal is a pty the tree made (fs_special.c), whose session can
 * only be one the tree made. The attributes are memory the target can
 * rewrite after the decision, and the descriptor number another thread can
 * swap (E11): every call is performed by capwatch on its duplicate with the
 * copy it read and decided on, never continued. Numbers and layouts are
 * the kernel's (x86_64 uapi), not libc's: struct termios (36 bytes, c_lflag
 * a u32 at 12), struct termios2 (44, the same and the speeds), struct
 * termio (18, c_lflag a u16 at 6). The TCSETS2 family's numbers encode
 * the size of struct termios2, which <asm/termbits.h> would declare
 * against libc's <termios.h>. */
#define CW_TCGETS_LEN 36
#define CW_TCSETS2 0x402C542Bu
#define CW_TCSETSW2 0x402C542Cu
#define CW_TCSETSF2 0x402C542Du

struct tty_attr_cmd {
	uint32_t cmd;
	unsigned long set; /* performed as: the non-waiting set of the same struct */
	size_t len;        /* the struct the kernel reads */
	size_t lflag_off;
	bool lflag16;      /* struct termio's */
	bool flush;        /* the F variants: the input flushed first */
};

static const struct tty_attr_cmd tty_attr_cmds[] = {
	{ TCSETS, TCSETS, 36, 12, false, false },
	{ TCSETSW, TCSETS, 36, 12, false, false },
	{ TCSETSF, TCSETS, 36, 12, false, true },
	{ CW_TCSETS2, CW_TCSETS2, 44, 12, false, false },
	{ CW_TCSETSW2, CW_TCSETS2, 44, 12, false, false },
	{ CW_TCSETSF2, CW_TCSETS2, 44, 12, false, true },
	{ TCSETA, TCSETA, 18, 6, true, false },
	{ TCSETAW, TCSETA, 18, 6, true, false },
	{ TCSETAF, TCSETA, 18, 6, true, true },
};

_Static_assert(sizeof(((struct cw_call_scratch *)0)->tty_attr) >= 44, "struct termios2 fits the scratch");

static const struct tty_attr_cmd *tty_attr_cmd(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof(tty_attr_cmds) / sizeof(tty_attr_cmds[0]); i++)
		if (tty_attr_cmds[i].cmd == cmd)
			return &tty_attr_cmds[i];
	return NULL;
}

static uint32_t lflag_of(const unsigned char *b, size_t off, bool u16)
{
	if (u16) {
		uint16_t v;
		memcpy(&v, b + off, sizeof(v));
		return v;
	}
	uint32_t v;
	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* A pty master: the attributes it sets are its slave's. */
static bool pty_master(int d)
{
	unsigned int ptn;
	return ioctl(d, TIOCGPTN, &ptn) == 0;
}

/* Is the terminal behind DUP a pty the tree made (its slave, or its
 * master: whose attributes are the slave's)? */
static bool tree_pty(const struct cw_notif *n, int d)
{
	struct stat st;
	if (!pty_master(d))
		return fstat(d, &st) == 0 && cw_fs_tree_pty(n->run, &st);
	int s = ioctl(d, TIOCGPTPEER, O_PATH | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return false;
	bool mine = fstat(s, &st) == 0 && cw_fs_tree_pty(n->run, &st);
	close(s);
	return mine;
}

/* The session of the terminal behind DUP (capwatch's numbers), 0 when
 * capwatch cannot tell: TIOCGSID answers for capwatch's own controlling
 * terminal and a pty master; else the caller's session when it is the
 * caller's controlling terminal. Recorded as the target (the group its
 * leader, the user's shell, leads), as TIOCSPGRP's is its group. */
static pid_t tty_session(const struct cw_notif *n, int d)
{
	pid_t sid = 0;
	if (ioctl(d, TIOCGSID, &sid) == 0 && sid > 0)
		return sid;
	struct stat st;
	struct tty_of t;
	if (fstat(d, &st) == 0 && caller_tty(n, &t) && t.tty != 0 && t.tty == st.st_rdev && t.session > 0)
		return t.session;
	return 0;
}

/* The call as asked, on capwatch's duplicate D with the copy read once;
 * 0 or -errno. Never waiting: the W variants are the plain set (a drain
 * would hold the notification thread for as long as the tree keeps the
 * output stopped, TCOOFF), the F variants the input flushed and then the
 * set (the kernel's set_termios order). A pty master's flush would be
 * its own input, not the slave's the kernel flushes: left out (opening
 * the slave here to flush it could be its last close). capwatch in a
 * background job of its terminal is not stopped by tty_check_change:
 * every thread of its blocks SIGTTOU (run.c, e192); the tree itself is
 * not checked there, its terminal not being its controlling one. */
static int tty_attr_perform(struct cw_notif *n, int d, const struct tty_attr_cmd *c)
{
	if (c->flush && !pty_master(d) && ioctl(d, TCFLSH, TCIFLUSH) < 0)
		return -errno;
	return ioctl(d, c->set, n->call->tty_attr) < 0 ? -errno : 0;
}

/* Answer a call capwatch performed: R is 0 or -errno. */
static void answer_performed(struct cw_notif *n, int r)
{
	if (r < 0)
		cw_answer_error(n, -r);
	else
		cw_answer_value(n, 0);
}

/* A terminal call (FLAGS, its command) that would hold processes outside
 * the tree: decided as process_control on the terminal's session behind
 * capwatch's duplicate D (the group its leader leads), WHY added to the
 * reason; ENFORCE performs it on D (n->call->sig_dup) when allowed. */
static void decide_on_terminal(struct cw_notif *n, int d, long long flags, const char *why,
			       cw_enforce_fn enforce)
{
	pid_t sid = tty_session(n, d);
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = sid > 0 ? -sid : 0;
	ev.op.target_in_tree = false;
	ev.flags = flags;
	ev.has_flags = true;
	cw_policy_decide(n->run->profile, &n->run->ctx, &ev.op, &ev.d);
	size_t l = strlen(ev.d.reason);
	snprintf(ev.d.reason + l, sizeof(ev.d.reason) - l, " (%s)", why);
	ev.decided = true;
	n->call->sig_dup = d;
	cw_event_finish(n, &ev, NULL, enforce);
	n->call->sig_dup = -1;
}

static void enforce_tty_attr(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int d = n->call->sig_dup; /* the very terminal decided on */
	const struct tty_attr_cmd *c = tty_attr_cmd((uint32_t)arg_u64(n, 1));
	int r = d < 0 || !c ? -EPERM : tty_attr_perform(n, d, c);
	ev->err = r < 0 ? -r : 0;
	answer_performed(n, r);
}

void cw_handle_tty_attr(struct cw_notif *n)
{
	const struct tty_attr_cmd *c = tty_attr_cmd((uint32_t)arg_u64(n, 1));
	if (!c) {
		cw_answer_error(n, ENOTTY);
		return;
	}
	/* The kernel's order: the descriptor (EBADF), a terminal (ENOTTY
	 * before any read: a file, pipe or socket never reads the struct;
	 * EIO on a hung-up one), then the struct (EFAULT). The answer for
	 * a descriptor that is not a terminal rests on the object, not on
	 * the registers: continued, a terminal dup2'd onto the number
	 * meanwhile would take whatever the struct holds by then. */
	_cleanup_close_ int d = cw_dup_target_fd(n, arg_int(n, 0));
	if (d < 0) {
		answer_unreadable(n, -d);
		return;
	}
	unsigned char cur[CW_TCGETS_LEN];
	if (ioctl(d, TCGETS, cur) < 0) {
		cw_answer_error(n, errno);
		return;
	}
	int e = cw_mem_read(n->tid, arg_u64(n, 2), n->call->tty_attr, c->len);
	if (e < 0) {
		answer_unreadable(n, e == -ESRCH ? ESRCH : EFAULT);
		return;
	}
	/* Decided on the copy against the terminal's attributes now. A
	 * process outside the tree that turns TOSTOP off between this read
	 * and capwatch's set sees it on again only when the tree's copy,
	 * read from the terminal before, has it: its own setting of a
	 * moment ago. */
	bool on = lflag_of(n->call->tty_attr, c->lflag_off, c->lflag16) & TOSTOP;
	bool was = lflag_of(cur, 12, false) & TOSTOP;
	if (!on || was || tree_pty(n, d)) {
		/* Nothing outside the tree is stopped by it: performed, as
		 * an ordinary call, not recorded. */
		if (!cw_notif_valid(n)) {
			cw_answer_gone(n);
			return;
		}
		answer_performed(n, tty_attr_perform(n, d, c));
		return;
	}
	decide_on_terminal(n, d, c->cmd,
			   "TOSTOP on a terminal the command did not make: the kernel would stop with SIGTTOU "
			   "the background jobs of its session that write to it, outside the tree",
			   enforce_tty_attr);
}

/* ---- the terminal's output: tcflow(TCOOFF) ----
 *
 * TCXONC with TCOOFF stops the terminal's output until TCOON (or the
 * user's ^Q, unless IXON is off): every process that then writes to it
 * blocks, the user's shell and capwatch among them, past the run too (red
 * team 25, e194). On a terminal the tree did not make that is
 * process_control on the terminal's session, as TOSTOP is (above). The
 * other actions (TCOON, TCIOFF and TCION, which send a START or STOP
 * character to the terminal's reader) stop nobody. The action is a
 * register, but the descriptor number another thread can swap: the call
 * is performed by capwatch on its duplicate, the terminal decided on. */
static void enforce_tty_flow(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int d = n->call->sig_dup;
	int r = d < 0 ? -EPERM : ioctl(d, TCXONC, arg_int(n, 2)) < 0 ? -errno : 0;
	ev->err = r < 0 ? -r : 0;
	answer_performed(n, r);
}

void cw_handle_tty_flow(struct cw_notif *n)
{
	_cleanup_close_ int d = cw_dup_target_fd(n, arg_int(n, 0));
	if (d < 0) {
		answer_unreadable(n, -d);
		return;
	}
	if (arg_int(n, 2) != TCOOFF || !isatty(d) || tree_pty(n, d)) {
		if (!cw_notif_valid(n)) {
			cw_answer_gone(n);
			return;
		}
		answer_performed(n, ioctl(d, TCXONC, arg_int(n, 2)) < 0 ? -errno : 0);
		return;
	}
	decide_on_terminal(n, d, TCXONC,
			   "TCOOFF on a terminal the command did not make: every process writing to it, "
			   "outside the tree too, would wait until its output is started again",
			   enforce_tty_flow);
}
