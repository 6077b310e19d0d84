/* The process family: signals (kill and friends), pidfd_open, and the
 * "escape" syscalls that the filter sends here to be recorded and denied
 * (or allowed, when the profile grants unrestricted). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/ptrace.h"
#include "supervisor/run.h"

/* The pid behind a pidfd of the target ("Pid:" in fdinfo). */
static int pidfd_target(struct cw_notif *n, int fd)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)n->tid, fd);
	if (cw_read_text(path, buf, sizeof(buf)) < 0)
		return -EBADF;
	char *p = strstr(buf, "Pid:");
	if (!p)
		return -EBADF; /* not a pidfd */
	return (int)strtol(p + 4, NULL, 10);
}

static bool group_in_tree(struct cw_notif *n, pid_t pgid)
{
	/* A process group is inside when its leader is one of ours. */
	return cw_tracker_in_tree(n->run, pgid);
}

void cw_handle_signal(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int target;
	bool in_tree;

	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	switch (nr) {
	case __NR_kill:
	case __NR_rt_sigqueueinfo:
		target = arg_int(n, 0);
		if (target > 0) {
			in_tree = cw_tracker_in_tree(n->run, target);
		} else if (target == 0) {
			pid_t pg = getpgid(n->tgid);
			in_tree = pg > 0 && group_in_tree(n, pg);
		} else if (target == -1) {
			in_tree = false; /* every process we may signal */
		} else {
			in_tree = group_in_tree(n, -target);
		}
		break;
	case __NR_tkill:
		target = arg_int(n, 0);
		in_tree = cw_tracker_in_tree(n->run, target);
		break;
	case __NR_tgkill:
	case __NR_rt_tgsigqueueinfo:
		target = arg_int(n, 0);
		in_tree = cw_tracker_in_tree(n->run, target) && cw_tracker_in_tree(n->run, arg_int(n, 1));
		break;
	case __NR_fcntl: {
		/* F_SETOWN(pid | -pgrp) or F_SETOWN_EX({type, pid}). */
		int type = F_OWNER_PID;
		if (arg_int(n, 1) == F_SETOWN_EX) {
			struct f_owner_ex ox;
			int e = cw_mem_read(n->tid, arg_u64(n, 2), &ox, sizeof(ox));
			if (e < 0) {
				answer_unreadable(n, -e);
				return;
			}
			type = ox.type;
			target = ox.pid;
		} else {
			target = arg_int(n, 2);
			if (target < 0) {
				type = F_OWNER_PGRP;
				target = -target;
			}
		}
		if (target == 0) {
			cw_notif_continue(n); /* no owner: nobody to signal */
			return;
		}
		in_tree = type == F_OWNER_PGRP ? group_in_tree(n, target) : cw_tracker_in_tree(n->run, target);
		ev.flags = arg_int(n, 1);
		ev.has_flags = true;
		break;
	}
	case __NR_pidfd_send_signal:
		target = pidfd_target(n, arg_int(n, 0));
		if (target < 0) {
			cw_notif_error(n, -target);
			return;
		}
		in_tree = cw_tracker_in_tree(n->run, target);
		break;
	default:
		cw_notif_error(n, ENOSYS);
		return;
	}
	if (!in_tree && target != -1 && nr != __NR_pidfd_send_signal && nr != __NR_fcntl &&
	    kill(target, 0) < 0 &&
	    errno == ESRCH) {
		/* Nobody to signal: answer as the kernel would, without a
		 * decision (a pid created meanwhile is not reached either, as
		 * the call does not go ahead). */
		cw_notif_error(n, ESRCH);
		return;
	}
	ev.op.target_pid = target;
	ev.op.target_in_tree = in_tree;
	/* Scalars only (registers, or a pidfd resolved now): the kernel uses
	 * the same values, but a pid can be reused between our check and
	 * delivery. */
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

/* ptrace, process_vm_readv/writev, pidfd_open, pidfd_getfd: whose process
 * is it? Aimed outside the tree it is process_control on that pid. */
void cw_handle_proc(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int target;

	cw_event_init(&ev, n->syscall);
	switch (nr) {
	case __NR_ptrace:
		/* PTRACE_TRACEME names the parent as the tracer. */
		target = arg_u64(n, 0) == PTRACE_TRACEME ? n->ppid : arg_int(n, 1);
		ev.flags = (long long)arg_u64(n, 0);
		ev.has_flags = true;
		break;
	case __NR_pidfd_getfd:
		target = pidfd_target(n, arg_int(n, 0));
		if (target < 0) {
			cw_notif_error(n, -target);
			return;
		}
		break;
	default: /* pidfd_open, process_vm_readv, process_vm_writev */
		target = arg_int(n, 0);
		break;
	}
	ev.op.target_pid = target;
	ev.op.target_in_tree = cw_tracker_in_tree(n->run, target);
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

void cw_handle_escape(struct cw_notif *n)
{
	struct cw_event ev;
	if (setid_is_noop(n) ||
	    (n->req->data.nr == __NR_personality && (uint32_t)arg_u64(n, 0) == 0xffffffffu)) {
		/* Nothing changes (personality(0xffffffff) only queries). */
		cw_notif_continue(n);
		return;
	}
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	int nr = n->req->data.nr;
	ev.flags = (long long)n->req->data.args[nr == __NR_seccomp || nr == __NR_ioctl ? 1 : 0];
	ev.has_flags = true;
	/* The number and the flag registers are all the decision uses: the
	 * filter already matched them, so CONTINUE (under a profile that
	 * allows unrestricted) is exact. */
	if (!cw_notif_valid(n)) {
		n->answered = true;
		return;
	}
	if (cw_event_decide(n, &ev)) {
		enforce_continue(n, &ev);
	} else {
		/* A second listener: say what the kernel says when one is
		 * already in the chain (ours is), so that a nested capwatch
		 * knows it is nested rather than forbidden. */
		if (nr == __NR_seccomp)
			ev.d.err = EBUSY;
		cw_event_deny(n, &ev);
	}
	cw_event_record(n, &ev);
}
