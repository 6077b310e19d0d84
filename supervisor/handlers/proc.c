/* The process family: signals (kill and friends), pidfd_open, and the
 * "escape" syscalls that the filter sends here to be recorded and denied
 * (or allowed, when the profile grants unrestricted). */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/kernel.h"
#include "supervisor/util.h"

/* The pid behind a pidfd of the target ("Pid:" in fdinfo), or behind a
 * descriptor of a /proc/PID directory, which pidfd_send_signal accepts
 * too (CPython's test_signal opens /proc/self's). */
int cw_pidfd_target(const struct cw_notif *n, int fd)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)n->tid, fd);
	if (cw_read_text(path, buf, sizeof(buf)) < 0)
		return -EBADF;
	char *p = strstr(buf, "Pid:");
	if (p)
		return (int)strtol(p + 4, NULL, 10);
	/* A directory of procfs named /proc/PID (the target's own /proc
	 * mount: its path is what the kernel prints for it). */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)n->tid, fd);
	ssize_t len = readlink(path, buf, sizeof(buf) - 1);
	if (len <= 6 || len >= (ssize_t)sizeof(buf) - 1)
		return -EBADF;
	buf[len] = '\0';
	if (strncmp(buf, "/proc/", 6) != 0)
		return -EBADF;
	char *end;
	long pid = strtol(buf + 6, &end, 10);
	if (*end || end == buf + 6 || pid <= 0 || pid > INT32_MAX)
		return -EBADF;
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return -EBADF;
	struct stat ps;
	if (n->run->kernel_reads && n->run->ns_proc_fd >= 0 && fstat(n->run->ns_proc_fd, &ps) == 0 &&
	    ps.st_dev == st.st_dev) {
		/* The tree's /proc (CAPWATCH_KERNEL_READS): the namespace's
		 * number. Its init is not the tree's: process_control. */
		if (pid == 1)
			return n->run->ns_init > 0 ? n->run->ns_init : -ESRCH;
		pid_t h = cw_kernel_ns_pid_to_host(n->run, (pid_t)pid);
		return h > 0 ? (int)h : -ESRCH;
	}
	return (int)pid;
}

static bool group_in_tree(struct cw_notif *n, pid_t pgid)
{
	/* A process group is inside when its leader is one of ours. */
	return cw_tracker_in_tree(n->run, pgid);
}

bool cw_task_in_tree(const struct cw_notif *n, pid_t pid)
{
	/* The caller itself counts even when the tracker does not know it
	 * (degraded mode knows only the first child). */
	return pid > 0 && (pid == n->tid || pid == n->tgid || cw_tracker_in_tree(n->run, pid));
}

bool cw_group_in_tree(const struct cw_notif *n, pid_t pgid)
{
	if (pgid == 0)
		pgid = getpgid(n->tgid);
	return pgid > 0 && cw_tracker_in_tree(n->run, pgid);
}

/* The same for a pid or group the caller names in an argument: under the
 * kernel back end's PID namespace (CAPWATCH_KERNEL_READS, kernel.h) the
 * number is the namespace's, where every process but its init is ours. */
bool cw_task_named_in_tree(const struct cw_notif *n, pid_t pid)
{
	if (!n->run->kernel_reads)
		return cw_task_in_tree(n, pid);
	return cw_kernel_ns_pid_in_tree(n->run, pid);
}

bool cw_group_named_in_tree(const struct cw_notif *n, pid_t pgid)
{
	if (!n->run->kernel_reads || pgid == 0)
		return cw_group_in_tree(n, pgid);
	return cw_kernel_ns_pid_in_tree(n->run, pgid); /* its leader */
}

bool cw_tree_own_pidns(const struct cw_notif *n)
{
	return n->run->kernel_reads;
}

bool cw_named_exists(const struct cw_notif *n, pid_t pid)
{
	if (!n->run->kernel_reads)
		return !(kill(pid, 0) < 0 && errno == ESRCH);
	if (pid < -1)
		return true; /* a group: decided (its leader may be gone) */
	char num[16];
	struct stat st;
	snprintf(num, sizeof(num), "%d", (int)pid);
	return n->run->ns_proc_fd >= 0 && fstatat(n->run->ns_proc_fd, num, &st, 0) == 0;
}

/* F_SETOWN_EX: the owner as read once from the target (into the call's
 * scratch, n->call->setown_ex), set on capwatch's duplicate of the
 * descriptor (the same open file description; the owner's credentials
 * recorded are capwatch's, the command's uid and gids). 0 or -errno. */
static int do_setown_ex(struct cw_notif *n)
{
	_cleanup_close_ int d = cw_dup_target_fd(n, arg_int(n, 0));
	if (d < 0)
		return d;
	struct f_owner_ex ox = n->call->setown_ex;
	return fcntl(d, F_SETOWN_EX, &ox) < 0 ? -errno : 0;
}

static void enforce_setown_ex(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced || cw_tree_own_pidns(n)) {
		/* --observe; or the tree's own PID namespace: the kernel
		 * reads the owner in the caller's namespace, where every
		 * number is a member's or the inert init's (ioctl.c,
		 * enforce_owner; e171). */
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	int r = do_setown_ex(n);
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

/* Who kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
 * pidfd_send_signal aim at: *TARGET as the call names it (kill's 0, -1
 * and -PGRP included), and whether that is inside the tree. False when
 * the call is answered here (a descriptor that is no pidfd). */
static bool signal_target(struct cw_notif *n, int nr, int *target, bool *in_tree)
{
	switch (nr) {
	case __NR_kill:
	case __NR_rt_sigqueueinfo:
		*target = arg_int(n, 0);
		if (*target > 0) {
			*in_tree = cw_task_named_in_tree(n, *target);
		} else if (*target == 0) {
			pid_t pg = getpgid(n->tgid);
			*in_tree = pg > 0 && group_in_tree(n, pg);
		} else if (*target == -1) {
			*in_tree = false; /* every process we may signal */
		} else {
			*in_tree = cw_group_named_in_tree(n, -*target);
		}
		return true;
	case __NR_tkill:
		*target = arg_int(n, 0);
		*in_tree = cw_task_named_in_tree(n, *target);
		return true;
	case __NR_tgkill:
	case __NR_rt_tgsigqueueinfo:
		*target = arg_int(n, 0);
		*in_tree = cw_task_named_in_tree(n, *target) && cw_task_named_in_tree(n, arg_int(n, 1));
		return true;
	case __NR_pidfd_send_signal:
		*target = cw_pidfd_target(n, arg_int(n, 0));
		if (*target < 0) {
			cw_answer_error(n, -*target);
			return false;
		}
		*in_tree = cw_tracker_in_tree(n->run, *target);
		return true;
	default:
		cw_answer_error(n, ENOSYS);
		return false;
	}
}

/* fcntl's F_SETOWN(pid | -pgrp) or F_SETOWN_EX({type, pid}): the owner
 * that will get SIGIO, in *TARGET (a positive pid or group), and whether
 * it is inside the tree. False when the call is answered here: the owner
 * unreadable, or none (nobody to signal). */
static bool fcntl_owner_target(struct cw_notif *n, int *target, bool *in_tree)
{
	int type = F_OWNER_PID;
	if (arg_int(n, 1) == F_SETOWN_EX) {
		/* The owner is in memory another thread can rewrite once we
		 * answer: decided on this copy, and set by capwatch with it
		 * (enforce_setown_ex). */
		struct f_owner_ex *ox = &n->call->setown_ex;
		int e = cw_mem_read(n->tid, arg_u64(n, 2), ox, sizeof(*ox));
		if (e < 0) {
			answer_unreadable(n, -e);
			return false;
		}
		type = ox->type;
		*target = ox->pid;
		if (*target == 0) {
			/* No owner: nobody to signal; still set from the copy. */
			if (!cw_notif_valid(n)) {
				cw_answer_gone(n);
				return false;
			}
			e = do_setown_ex(n);
			if (e < 0)
				cw_answer_error(n, -e);
			else
				cw_answer_value(n, 0);
			return false;
		}
	} else {
		*target = arg_int(n, 2);
		if (*target < 0) {
			type = F_OWNER_PGRP;
			*target = -*target;
		}
	}
	if (*target == 0) {
		/* No owner: nobody to signal. Performed by capwatch all the
		 * same, never continued: a clear that the tree's thread made
		 * later, while capwatch turns O_ASYNC on for the same file,
		 * would let the kernel make capwatch the owner (sigio.c). */
		_cleanup_close_ int d = cw_dup_target_fd(n, arg_int(n, 0));
		if (d < 0)
			answer_unreadable(n, -d);
		else if (fcntl(d, F_SETOWN, 0) < 0)
			cw_answer_error(n, errno);
		else
			cw_answer_value(n, 0);
		return false;
	}
	*in_tree = type == F_OWNER_PGRP ? cw_group_named_in_tree(n, *target) : cw_task_named_in_tree(n, *target);
	return true;
}

void cw_handle_signal(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int target;
	bool in_tree;

	if (nr == __NR_fcntl && arg_int(n, 1) != F_SETOWN && arg_int(n, 1) != F_SETOWN_EX) {
		cw_handle_fasync(n); /* what signals the owner (sigio.c) */
		return;
	}
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	if (nr == __NR_fcntl) {
		if (!fcntl_owner_target(n, &target, &in_tree))
			return;
		ev.flags = arg_int(n, 1);
		ev.has_flags = true;
	} else if (!signal_target(n, nr, &target, &in_tree)) {
		return;
	}
	if (!in_tree && target != -1 && nr != __NR_pidfd_send_signal && nr != __NR_fcntl &&
	    !cw_named_exists(n, target)) {
		/* Nobody to signal: answer as the kernel would, without a
		 * decision (a pid created meanwhile is not reached either, as
		 * the call does not go ahead). */
		cw_answer_error(n, ESRCH);
		return;
	}
	ev.op.target_pid = target;
	ev.op.target_in_tree = in_tree;
	/* Scalars only (registers, or a pidfd resolved now): the kernel uses
	 * the same values, but a pid can be reused between our check and
	 * delivery. F_SETOWN_EX's owner is memory: capwatch sets it. */
	cw_event_finish(n, &ev, NULL,
			nr == __NR_fcntl && arg_int(n, 1) == F_SETOWN_EX ? enforce_setown_ex : enforce_continue);
}

/* setpgid in tty mode (red team 23). The command shares capwatch's
 * session with the user's shell and its other jobs, and the kernel lets a
 * process join any group of its session. A member of a group that is not
 * the terminal's foreground makes the kernel signal that whole group:
 * SIGTTIN at a read of the terminal, SIGTTOU at a write with TOSTOP or a
 * change of its modes. So a tree process that joined the group of the
 * user's background job, or of the tty link (tty_link.c), and read the
 * terminal stopped processes outside the tree; and joining and leaving a
 * group decides whether the kernel takes it for orphaned (e189). Joining
 * is allowed where the tree is: a new group (PGID 0, or the process's own
 * number), capwatch's job (the group the tree started in), or a group led
 * by a process of the tree. Any other is process_control on that group,
 * refused with EPERM, as the kernel answers a group of another session.
 * Outside tty mode the tree has a session of its own, and under
 * CAPWATCH_KERNEL_READS a PID namespace where no outside group has a
 * number: the kernel's own checks keep it in the tree. Registers only: the
 * call is continued (a group number reused between the decision and the
 * call would need the pid space to wrap meanwhile). */
void cw_handle_setpgid(struct cw_notif *n)
{
	pid_t pid = arg_int(n, 0), pgid = arg_int(n, 1);
	pid_t who = pid == 0 ? n->tgid : pid;
	if (!n->run->tty_mode || n->run->kernel_reads || pgid == 0 || pgid == who ||
	    pgid == getpgrp() || group_in_tree(n, pgid)) {
		cw_answer_continue(n);
		return;
	}
	if (pgid < 0) {
		cw_answer_error(n, EINVAL); /* as the kernel: nothing to decide */
		return;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = -pgid;
	ev.op.target_in_tree = false;
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

/* ptrace, process_vm_readv/writev, pidfd_open, pidfd_getfd: whose process
 * is it? Aimed outside the tree it is process_control on that pid. */
void cw_handle_proc(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int target;
	bool named = true; /* an argument's pid, not one capwatch found */

	cw_event_init(&ev, n->syscall);
	switch (nr) {
	case __NR_ptrace:
		/* PTRACE_TRACEME names the parent as the tracer. */
		named = arg_u64(n, 0) != PTRACE_TRACEME;
		target = named ? arg_int(n, 1) : n->ppid;
		ev.flags = (long long)arg_u64(n, 0);
		ev.has_flags = true;
		break;
	case __NR_pidfd_getfd:
		named = false;
		target = cw_pidfd_target(n, arg_int(n, 0));
		if (target < 0) {
			cw_answer_error(n, -target);
			return;
		}
		break;
	case __NR_pidfd_open:
		target = arg_int(n, 0);
		if (target <= 0) {
			/* Names no process: the kernel says EINVAL before
			 * looking (whatever the flags, also EINVAL), so there
			 * is nothing to decide (CPython's test_posix). */
			cw_answer_error(n, EINVAL);
			return;
		}
		break;
	default: /* process_vm_readv, process_vm_writev */
		target = arg_int(n, 0);
		break;
	}
	ev.op.target_pid = target;
	ev.op.target_in_tree = named ? cw_task_named_in_tree(n, target) : cw_tracker_in_tree(n->run, target);
	if (nr == __NR_process_vm_writev && ev.op.target_in_tree) {
		/* Writing a sibling's memory defeats every check that read it
		 * (kernel-notes K11): an escape, not process control. */
		ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	} else {
		ev.op.kind = CW_OP_PROC_ACCESS;
	}
	/* Scalars (or a pidfd resolved now): decided on what the kernel uses,
	 * except that a pid can be reused in between. */
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

/* Calls that name another process by pid, process group, user or pidfd
 * (issue 14 item 3). Aimed outside the supervised tree they are
 * process_control on that pid, as ptrace and kill are (contract section
 * 2): capwatch itself is outside (its pid is never in the tracker).
 *
 *  - prlimit64(pid, ...): outside the tree it is process_control even when
 *    NEW is NULL (a read). The kernel guards the read with the same check
 *    as the write (check_prlimit_permission: same uids or
 *    CAP_SYS_RESOURCE), i.e. it is an access to another process, like
 *    process_vm_readv, which the contract lists; and nothing a build needs
 *    reads another process's limits this way (/proc/PID/limits, a file
 *    read, stays filesystem_read).
 *  - setpriority / ioprio_set: PRIO_PROCESS (IOPRIO_WHO_PROCESS) names a
 *    task, PRIO_PGRP a process group (0: the caller's; inside when its
 *    leader is ours, as for kill(-pgrp)), PRIO_USER every process of a
 *    user. PRIO_USER is always process_control: for the caller's own uid
 *    (who 0 included) it reaches capwatch and every other process of the
 *    user, for another uid only processes outside the tree; it is recorded
 *    with target -1, like kill(-1), "every process we may reach".
 *  - sched_setscheduler, sched_setparam, sched_setaffinity, sched_setattr,
 *    migrate_pages, move_pages, get_robust_list: pid 0 is the caller (the
 *    filter does not even notify it). get_robust_list of another process
 *    is a read the kernel guards like ptrace (PTRACE_MODE_READ: it reveals
 *    an address in that process), so it counts as process_vm_readv does.
 *    The sched_get* calls, getpriority and ioprio_get read what /proc
 *    shows to everyone and are not decided.
 *  - kcmp(pid1, pid2, ...): compares two processes' resources (ptrace read
 *    access to both): inside only when both are.
 *  - process_madvise, process_mrelease: a pidfd, resolved through its
 *    fdinfo "Pid:" line as pidfd_send_signal is.
 *
 * Enforcement: the pids are registers, so CONTINUE acts on the process
 * decided on, except for pid reuse in between (the same window as kill,
 * see cw_handle_signal; the tracker keeps a zombie of the tree "inside"
 * only while it cannot be reused). A pidfd is a number the target can
 * swap (E11), but these two calls accept only real pidfds (pidfs, not
 * /proc/PID directories), a pidfd never follows a reused pid, and the tree
 * obtains pidfds only through decided calls (pidfd_open, pidfd_getfd,
 * clone's CLONE_PIDFD of its own children): any pidfd it could swap in
 * names a process it was already allowed to reach. */
/* Whom a pid call aims at: TARGET (a pid; -PGRP for a process group,
 * -1 for every process of a user), whether that is inside the tree, and
 * the flags recorded. */
struct pid_aim {
	int target;
	bool in_tree;
	bool group;
	long long flags;
};

/* prlimit64, sched_set*, migrate_pages, move_pages, get_robust_list: a
 * pid in args[0], 0 the caller. False when answered here (the caller
 * itself, or a pid the kernel refuses). */
static bool aim_pid_arg(struct cw_notif *n, int nr, struct pid_aim *a)
{
	a->target = arg_int(n, 0);
	if (a->target == 0 || a->target == n->tid || a->target == n->tgid) {
		cw_answer_continue(n); /* the caller itself */
		return false;
	}
	if (a->target < 0) {
		cw_answer_error(n, a->target == -1 && nr == __NR_prlimit64 ? ESRCH : EINVAL);
		return false; /* what the kernel answers; nobody is reached */
	}
	a->in_tree = cw_task_named_in_tree(n, a->target);
	return true;
}

/* setpriority, ioprio_set: (which, who, value); ioprio's WHO_* are
 * PRIO_* + 1. False when answered here. */
static bool aim_priority(struct cw_notif *n, int nr, struct pid_aim *a)
{
	int which = arg_int(n, 0) - (nr == __NR_ioprio_set ? 1 : 0);
	int who = arg_int(n, 1);
	a->flags = arg_int(n, 0);
	switch (which) {
	case 0: /* PRIO_PROCESS, IOPRIO_WHO_PROCESS */
		if (who == 0 || who == n->tid || who == n->tgid) {
			cw_answer_continue(n);
			return false;
		}
		if (who < 0) {
			cw_answer_error(n, ESRCH); /* no such task */
			return false;
		}
		a->target = who;
		a->in_tree = cw_task_named_in_tree(n, who);
		return true;
	case 1: /* PRIO_PGRP, IOPRIO_WHO_PGRP */
		if (who == 0 && n->run->kernel_reads) {
			a->group = true;
			a->target = 0;
			a->in_tree = cw_group_in_tree(n, 0); /* the caller's, found by capwatch */
			return true;
		}
		if (who == 0)
			who = getpgid(n->tgid);
		if (who <= 0) {
			cw_answer_error(n, ESRCH); /* no such group (or the caller is gone) */
			return false;
		}
		a->group = true;
		a->target = -who;
		a->in_tree = cw_group_named_in_tree(n, who);
		return true;
	case 2: /* PRIO_USER, IOPRIO_WHO_USER */
		a->target = -1;
		a->in_tree = false;
		return true;
	default:
		cw_answer_continue(n); /* EINVAL from the kernel */
		return false;
	}
}

/* kcmp(pid1, pid2, type, ...): inside only when both are. */
static bool aim_kcmp(struct cw_notif *n, struct pid_aim *a)
{
	int p1 = arg_int(n, 0), p2 = arg_int(n, 1);
	a->flags = arg_int(n, 2);
	if (p1 <= 0 || p2 <= 0) {
		cw_answer_error(n, ESRCH); /* kcmp takes no pid 0 */
		return false;
	}
	bool in1 = cw_task_named_in_tree(n, p1), in2 = cw_task_named_in_tree(n, p2);
	a->target = in1 ? p2 : p1;
	a->in_tree = in1 && in2;
	return true;
}

/* process_madvise, process_mrelease: a pidfd in args[0]. */
static bool aim_pidfd(struct cw_notif *n, int nr, struct pid_aim *a)
{
	a->flags = nr == __NR_process_madvise ? arg_int(n, 3) : arg_int(n, 1);
	a->target = cw_pidfd_target(n, arg_int(n, 0));
	if (a->target == -1) {
		cw_answer_error(n, ESRCH); /* its process is gone */
		return false;
	}
	if (a->target < 0) {
		cw_answer_error(n, -a->target); /* not a pidfd: EBADF */
		return false;
	}
	a->in_tree = a->target > 0 && cw_task_in_tree(n, a->target);
	return true;
}

void cw_handle_pid_call(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	struct pid_aim a = { .flags = (long long)arg_u64(n, 1) };
	bool go;

	cw_event_init(&ev, n->syscall);
	switch (nr) {
	case __NR_prlimit64:
	case __NR_sched_setscheduler:
	case __NR_sched_setparam:
	case __NR_sched_setaffinity:
	case __NR_sched_setattr:
	case __NR_migrate_pages:
	case __NR_move_pages:
	case __NR_get_robust_list:
		go = aim_pid_arg(n, nr, &a);
		break;
	case __NR_setpriority:
	case __NR_ioprio_set:
		go = aim_priority(n, nr, &a);
		break;
	case __NR_kcmp:
		go = aim_kcmp(n, &a);
		break;
	case __NR_process_madvise:
	case __NR_process_mrelease:
		go = aim_pidfd(n, nr, &a);
		break;
	default:
		cw_answer_error(n, ENOSYS);
		return;
	}
	if (!go)
		return;
	if (!a.in_tree && a.target > 0 && nr != __NR_process_madvise && nr != __NR_process_mrelease &&
	    !cw_named_exists(n, a.target)) {
		cw_answer_error(n, ESRCH); /* nobody there: as the kernel answers */
		return;
	}
	if (!a.in_tree && a.group && a.target < -1 && !cw_named_exists(n, a.target)) {
		cw_answer_error(n, ESRCH);
		return;
	}
	ev.op.kind = CW_OP_PROC_ACCESS;
	ev.op.target_pid = a.target;
	ev.op.target_in_tree = a.in_tree;
	ev.flags = a.flags;
	ev.has_flags = true;
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

/* Real, effective, saved and filesystem ids from a "Uid:"/"Gid:" line. */
static bool read_ids(pid_t tid, bool gid, long ids[4])
{
	struct cw_target_status st;
	if (cw_target_status(tid, &st) < 0)
		return false;
	for (int i = 0; i < 4; i++)
		ids[i] = (long)(gid ? st.gid[i] : st.uid[i]);
	return true;
}

/* id arguments are 32-bit; -1 means "leave unchanged". */
static bool same(uint32_t v, long cur)
{
	return v == (uint32_t)-1 || (long)v == cur;
}

/* Does this set*id call leave every credential as it is? Programs such as
 * make call setresuid(-1, -1, -1) or setfsuid(-1) (a query) routinely;
 * only real changes are worth a decision. The arguments are registers, so
 * the check is exact. */
static bool setid_is_noop(struct cw_notif *n)
{
	int nr = n->req->data.nr;
	bool gid = nr == __NR_setgid || nr == __NR_setregid || nr == __NR_setresgid || nr == __NR_setfsgid;
	long c[4];
	uint32_t a0 = (uint32_t)arg_u64(n, 0), a1 = (uint32_t)arg_u64(n, 1), a2 = (uint32_t)arg_u64(n, 2);

	if (nr == __NR_setgroups)
		return false;
	if (!read_ids(n->tid, gid, c))
		return false;
	switch (nr) {
	case __NR_setuid:
	case __NR_setgid:
		return (long)a0 == c[0] && (long)a0 == c[1] && (long)a0 == c[2] && (long)a0 == c[3];
	case __NR_setreuid:
	case __NR_setregid:
		if (!same(a0, c[0]) || !same(a1, c[1]))
			return false;
		/* The saved id follows the effective one in some cases. */
		if (a0 != (uint32_t)-1 || (a1 != (uint32_t)-1 && (long)a1 != c[0]))
			return c[2] == c[1] && c[3] == c[1];
		return true;
	case __NR_setresuid:
	case __NR_setresgid:
		return same(a0, c[0]) && same(a1, c[1]) && same(a2, c[2]) &&
		       (a1 == (uint32_t)-1 || c[3] == c[1]);
	case __NR_setfsuid:
	case __NR_setfsgid:
		return same(a0, c[3]);
	}
	return false;
}

/* Decide an unrestricted syscall on its number and the flag register
 * FLAGS, the only things the decision uses (the filter matched them), so
 * CONTINUE under a profile that allows unrestricted is exact. A denial
 * answers DENY_ERR (0: the decision's own errno). */
void cw_escape_finish(struct cw_notif *n, const char *scope, long long flags, int deny_err)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	if (scope)
		ev.op.syscall = scope;
	ev.flags = flags;
	ev.has_flags = true;
	if (!cw_notif_valid(n)) {
		cw_answer_gone(n);
		return;
	}
	if (cw_event_decide(n, &ev)) {
		enforce_continue(n, &ev);
	} else {
		if (deny_err)
			ev.d.err = deny_err;
		cw_event_deny(n, &ev);
	}
	cw_event_record(n, &ev);
}

void cw_handle_escape(struct cw_notif *n)
{
	if (setid_is_noop(n) ||
	    (n->req->data.nr == __NR_personality && (uint32_t)arg_u64(n, 0) == 0xffffffffu)) {
		/* Nothing changes (personality(0xffffffff) only queries). */
		cw_answer_continue(n);
		return;
	}
	int nr = n->req->data.nr;
	/* A second listener: say what the kernel says when one is already in
	 * the chain (ours is), so that a nested capwatch knows it is nested
	 * rather than forbidden. */
	cw_escape_finish(n, NULL, (long long)n->req->data.args[nr == __NR_seccomp || nr == __NR_ioctl ? 1 : 0],
		      nr == __NR_seccomp ? EBUSY : 0);
}

/* The error queue (red team 27, F2, e196). With IP_RECVERR (IPV6_RECVERR)
 * a socket queues every ICMP error that quotes its addresses, with the
 * sender's address and up to a packet of
 * the error's bytes: any host can write there, to a socket bound to
 * loopback too, and the kernel's ICMP path runs no cgroup ingress
 * program. glibc's resolver sets that option on every lookup's socket
 * (and never reads the queue: a POLLERR is all it wants), so the option
 * is let through; reading the queue (recvfrom, recvmsg, recvmmsg with
 * MSG_ERRQUEUE, notified by that bit alone) is decided as `unrestricted`,
 * scope "recvmsg:MSG_ERRQUEUE" and the like, and refused with EPERM when
 * denied. The queue also holds what the kernel says of the socket's own
 * sends (MSG_ZEROCOPY completions, transmit timestamps): a program that
 * reads those needs unrestricted too. Registers only: CONTINUE is exact. */
void cw_handle_errqueue(struct cw_notif *n)
{
	int nr = n->req->data.nr;
	const char *scope = nr == __NR_recvmsg ? "recvmsg:MSG_ERRQUEUE"
			    : nr == __NR_recvmmsg ? "recvmmsg:MSG_ERRQUEUE"
						  : "recvfrom:MSG_ERRQUEUE";
	cw_escape_finish(n, scope, (long long)(uint32_t)arg_u64(n, nr == __NR_recvmsg ? 2 : 3), EPERM);
}

/* Default deny: a syscall with no row in table.c (or a REFUSE row) is
 * refused with ENOSYS, what a kernel without it would say, so that a
 * program falls back to a call capwatch decides, and recorded as
 * `unrestricted` under its name with its first argument; a profile that
 * allows unrestricted (or --observe) lets it run. */
void cw_handle_unlisted(struct cw_notif *n)
{
	cw_escape_finish(n, NULL, (long long)n->req->data.args[0], ENOSYS);
}
