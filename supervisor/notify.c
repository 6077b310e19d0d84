/* The listener and the event loop (kernel-notes K8-K13, K23).
 *
 * Two threads under one lock (struct cw_loop): the notification thread
 * blocks in SECCOMP_IOCTL_NOTIF_RECV and answers; the event loop waits on
 * one epoll set: a signalfd (SIGCHLD for the tracker, termination signals
 * to forward), the --timeout watchdog's eventfd, the approval socket, and the
 * listener's hang-up. We never block in waitpid: a tracee we would wait
 * for may be waiting for our answer. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "supervisor/notify.h"
#include "supervisor/resolve.h"
#include "supervisor/annot.h"
#include "supervisor/colocate.h"
#include "supervisor/approval.h"
#include "supervisor/hosts.h"
#include "supervisor/kernel.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/watchdog.h"


#ifndef SECCOMP_IOCTL_NOTIF_ADDFD
#error "linux/seccomp.h too old: SECCOMP_IOCTL_NOTIF_ADDFD missing"
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
/* Linux 6.6+: wake the target on the CPU that answers it (K13b). */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The loop's state, hung off the run (run->loop). */
struct cw_loop {
	/* Buffers sized by SECCOMP_GET_NOTIF_SIZES (the kernel's structs may
	 * be larger than this header's), allocated once and reused: REQ by
	 * the notification thread, RESP by whoever answers, under LOCK. */
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	struct seccomp_notif_sizes sizes;
	/* Two threads share the run: the event loop (signals, the
	 * tracker's reaps and every ptrace call, timers, approvals) and the
	 * notification thread, which waits in SECCOMP_IOCTL_NOTIF_RECV
	 * itself. Waiting there rather than in epoll is what lets the
	 * kernel's synchronous wake-up (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	 * reach capwatch: through epoll the wake-up loses its current-CPU
	 * hint, and a notification then costs a cross-CPU wake-up each way
	 * (tests/bench/RESULTS.md, session 2). This one lock makes the two
	 * take turns: nothing of the run (tracker, report, trace, the
	 * handlers' state) is touched without it, so the code keeps the
	 * single-threaded reasoning it was written with. The event loop
	 * holds it except while it waits, and keeps it once it is over: no
	 * notification is handled after the loop. */
	pthread_mutex_t lock;
	/* The notification thread's own descriptor of the listener: the run
	 * may close (and reuse) its number once the loop is over. */
	int notify_fd;
	_Atomic bool over;
	struct cw_run *run;
};

void cw_loop_lock(struct cw_run *run)
{
	pthread_mutex_lock(&run->loop->lock);
}

void cw_loop_unlock(struct cw_run *run)
{
	pthread_mutex_unlock(&run->loop->lock);
}

int cw_loop_add_source(struct cw_run *run, int fd, uint32_t events, cw_source_fn fn)
{
	if (run->nsources == CW_ARRAY_SIZE(run->sources))
		return -ENOSPC;
	run->sources[run->nsources++] = (struct cw_loop_source){ .fd = fd, .events = events, .fn = fn };
	return 0;
}

/* The context is not freed: the notification thread and the kernel back
 * end's threads are detached and may use it (blocked in RECV on its
 * buffer, or on the lock the loop keeps) until capwatch exits. One per
 * process, as the file-scope state it replaces was. */
int cw_notify_init(struct cw_run *run)
{
	struct seccomp_notif_sizes sizes;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		int e = -errno;
		cw_err("SECCOMP_GET_NOTIF_SIZES: %s", strerror(errno));
		return e;
	}
	struct cw_loop *lp = calloc(1, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	size_t rs = sizes.seccomp_notif > sizeof(*lp->req) ? sizes.seccomp_notif : sizeof(*lp->req);
	size_t ps = sizes.seccomp_notif_resp > sizeof(*lp->resp) ? sizes.seccomp_notif_resp : sizeof(*lp->resp);
	sizes.seccomp_notif = (__u16)rs;
	sizes.seccomp_notif_resp = (__u16)ps;
	lp->sizes = sizes;
	lp->req = calloc(1, rs);
	lp->resp = calloc(1, ps);
	if (!lp->req || !lp->resp) {
		free(lp->req);
		free(lp->resp);
		free(lp);
		return -ENOMEM;
	}
	pthread_mutex_init(&lp->lock, NULL);
	lp->notify_fd = -1;
	lp->run = run;
	run->loop = lp;
	return 0;
}

/* ---- answers: the one place they are applied ---- */

static int send_resp(struct cw_notif *n, int64_t val, int err, uint32_t flags)
{
	struct cw_loop *lp = n->run->loop;
	struct seccomp_notif_resp *resp = lp->resp;
	memset(resp, 0, lp->sizes.seccomp_notif_resp);
	resp->id = n->req->id;
	resp->val = val;
	resp->error = err;
	resp->flags = flags;
	if (ioctl(n->run->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
		/* ENOENT: the target died or was interrupted meanwhile. */
		if (errno != ENOENT)
			cw_debug("NOTIF_SEND (%s): %s", n->syscall, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Install SRCFD in the target and answer with its number (ADDFD|SEND).
 * Returns the number, or -errno with nothing installed: -ENOENT when the
 * target went away, else the target still waits for an answer (K12). */
static int send_fd(struct cw_notif *n, int srcfd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = n->req->id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (__u32)srcfd,
		.newfd = 0,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	if (cw_colocate_rejoin(n->run, n->tid)) {
		/* The target sleeps on another CPU (colocate.h): install the
		 * descriptor, then answer with a plain SEND, whose synchronous
		 * wake-up runs the target on this CPU from now on. */
		a.flags = 0;
		int fd = ioctl(n->run->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
		if (fd < 0)
			return -errno;
		send_resp(n, fd, 0, 0); /* ENOENT: the target died meanwhile */
		return fd;
	}
	int r = cw_colocate_addfd(n->run, &a, n->tid);
	return r >= 0 ? r : -errno;
}

/* Apply N's answer, once. EV is the event it answers (NULL: none, or
 * recorded already). Returns false when EV is not to be recorded: an ask
 * an approver now waits on. */
/* The file EV's open created, named PATH, is still the one FD holds:
 * removed (its descriptor could not be installed). */
static void undo_create(int fd, const char *path)
{
	struct stat mine, there;
	char base[NAME_MAX + 1];
	if (!path || path[0] != '/' || fstat(fd, &mine) < 0)
		return;
	_cleanup_close_ int d = cw_open_parent_long(path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, base,
						    sizeof(base));
	if (d < 0 || fstatat(d, base, &there, AT_SYMLINK_NOFOLLOW) < 0 || there.st_dev != mine.st_dev ||
	    there.st_ino != mine.st_ino)
		return;
	if (unlinkat(d, base, 0) < 0)
		cw_debug("removing %s after a failed install: %s", path, strerror(errno));
}

/* A descriptor whose open left an effect to the answer (A->trunc_after,
 * A->undo_create): installed first (ADDFD without SEND), then the effect,
 * then the answer; not installable, the effect is not had. The number, or
 * -errno. */
static int send_fd_acting(struct cw_notif *n, const struct cw_answer *a, const struct cw_event *ev)
{
	struct seccomp_notif_addfd ad = {
		.id = n->req->id,
		.flags = 0,
		.srcfd = (__u32)a->fd,
		.newfd_flags = a->cloexec ? O_CLOEXEC : 0,
	};
	int fd = ioctl(n->run->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &ad);
	if (fd < 0) {
		int e = errno;
		if (a->undo_create && e != ENOENT)
			undo_create(a->fd, ev ? ev->op.path : NULL);
		return -e;
	}
	if (a->trunc_after && ftruncate(a->fd, 0) < 0)
		cw_warn("O_TRUNC of a file just installed: %s", strerror(errno));
	send_resp(n, fd, 0, 0); /* ENOENT: the target died meanwhile */
	return fd;
}

static bool apply_answer(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_answer *a = &n->answer;
	if (a->applied)
		return true;
	a->applied = true;
	if (a->twice)
		cw_err("internal error: notification for %s answered twice; the first answer stands",
		       n->syscall);
	switch (a->kind) {
	case CW_ANSWER_NONE:
		/* A handler that forgot to answer fails closed. */
		cw_err("internal error: %s left unanswered; denied", n->syscall);
		a->kind = CW_ANSWER_ERROR;
		a->err = EPERM;
		break;
	case CW_ANSWER_DEFER:
		if (ev && cw_approval_defer(n, ev))
			return false; /* answered and recorded when an approver answers */
		/* nobody to ask (or no room): the ask is denied now */
		a->kind = CW_ANSWER_ERROR;
		if (ev) {
			ev->err = ev->d.err > 0 ? ev->d.err : EPERM;
			ev->verified = true;
			a->err = ev->err;
		} else {
			a->err = EPERM;
		}
		break;
	default:
		break;
	}
	switch (a->kind) {
	case CW_ANSWER_CONTINUE:
		/* Before the answer: once it is sent the body may already be
		 * interrupted, and its EINTR must stay (ptrace.c
		 * restart_unreceived). */
		cw_tracker_note_continue(n->run, n->tid, n->req);
		a->result = send_resp(n, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		break;
	case CW_ANSWER_ERROR:
		a->result = send_resp(n, 0, -(a->err > 0 ? a->err : EPERM), 0);
		break;
	case CW_ANSWER_VALUE:
		a->result = send_resp(n, a->val, 0, 0);
		break;
	case CW_ANSWER_FD:
		a->result = a->trunc_after || a->undo_create ? send_fd_acting(n, a, ev) : send_fd(n, a->fd, a->cloexec);
		close(a->fd);
		a->fd = -1;
		if (a->result < 0 && a->result != -ENOENT) {
			/* EMFILE...: the target still waits for us */
			a->fallback_err = -a->result;
			send_resp(n, 0, -a->fallback_err, 0);
		}
		break;
	default: /* LATER, GONE: nothing to send from here */
		break;
	}
	return true;
}

int cw_answer_send_late(int listener, uint64_t id, const struct cw_answer *a)
{
	if (a->kind == CW_ANSWER_FD) {
		struct seccomp_notif_addfd ad = {
			.id = id,
			.flags = SECCOMP_ADDFD_FLAG_SEND,
			.srcfd = (__u32)a->fd,
			.newfd_flags = a->cloexec ? O_CLOEXEC : 0,
		};
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &ad) >= 0)
			return 0;
		if (errno == ENOENT)
			return -ENOENT;
		/* EMFILE...: the target still waits; it gets the errno */
		struct cw_answer e = { .kind = CW_ANSWER_ERROR, .err = errno };
		return cw_answer_send_late(listener, id, &e);
	}
	struct seccomp_notif_resp r = { .id = id };
	if (a->kind == CW_ANSWER_VALUE)
		r.val = a->val;
	else
		r.error = -(a->err > 0 ? a->err : EPERM);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &r) < 0)
		return -errno;
	return 0;
}

void cw_notif_dispatch(struct cw_notif *n, cw_handler_fn handle)
{
	handle(n);
	apply_answer(n, NULL);
}

bool cw_notif_valid(struct cw_notif *n)
{
	__u64 id = n->req->id;
	return ioctl(n->run->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* --- events --- */

void cw_event_init(struct cw_event *ev, const char *syscall)
{
	memset(ev, 0, offsetof(struct cw_event, d.scope) + 1);
	ev->op.syscall = syscall;
	ev->op.target_pid = 0;
	ev->dirfd = -1;
}

bool cw_event_decide(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_run *run = n->run;
	cw_hosts_prepare(run, &ev->op); /* host-name scopes: capwatch's own lookups */
	if (ev->decided)
		ev->decided = false; /* a second call (a re-decision) decides anew */
	else
		cw_policy_decide(run->profile, &run->ctx, &ev->op, &ev->d);
	bool allow = ev->d.verdict == CW_ALLOW;
	/* "ask": cw_policy_decide already turned asks approved on the command
	 * line into allows; an answer remembered for the run settles it, else
	 * it is a deny with nextAction request_approval (which
	 * cw_event_finish may still defer to an approver). */
	if (cw_approval_refused(n, ev))
		allow = false; /* an approver's deny of this very call */
	else if (ev->d.verdict == CW_ASK)
		allow = cw_approval_remembered(n, ev);
	ev->enforced = !run->observe;
	ev->allowed = allow || run->observe;
	cw_annot_prepare(run, n->tgid, n->tid, n->ppid, ev); /* advisory, after the decision */
	return ev->allowed;
}

void cw_event_deny(struct cw_notif *n, struct cw_event *ev)
{
	ev->err = ev->d.err > 0 ? ev->d.err : EPERM;
	ev->verified = true; /* a denial never lets the operation run */
	cw_answer_error(n, ev->err);
}

/* After EV was recorded: an operation let through by an approval goes to
 * the report's "approvals", one a host-name scope decided to
 * "hostMatches". */
static void record_approval(struct cw_notif *n, const struct cw_event *ev)
{
	const struct cw_decision *d = &ev->d;
	/* a host-name scope decided it: the report names the host */
	const char *h = d->cap != CW_CAP_NONE ? strstr(d->rule, " host ") : NULL;
	if (h && d->source == CW_SOURCE_CONFIGURED_POLICY)
		cw_report_add_host_match(n->run->report, d->cap, d->scope, h + 6, d->rule, d->verdict);
	if (d->verdict != CW_ALLOW || d->source != CW_SOURCE_APPROVAL || d->cap == CW_CAP_NONE)
		return;
	const char *how = "approve";
	bool once = false;
	if (strncmp(d->rule, "approval:approve-risk", 21) == 0)
		how = "approve-risk";
	else if (strncmp(d->rule, "approval:tty:", 13) == 0)
		how = "tty";
	else if (strncmp(d->rule, "approval:socket:", 16) == 0)
		how = "socket";
	if (strcmp(how, "tty") == 0 || strcmp(how, "socket") == 0)
		once = strstr(d->rule, ":once") != NULL;
	struct cw_approval_record a = {
		.cap = d->cap, .scope = d->scope, .rule = d->rule, .reason = d->reason,
		.how = how, .once = once, .pid = n->tgid, .time = cw_record_time(n->run),
	};
	cw_report_add_approval(n->run->report, &a);
}

void cw_event_record(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_run *run = n->run;
	/* Answered first: the target goes on while this is written, and the
	 * record says what the answer did. A handler may record an event
	 * before it has answered (a refusal it notes and then decides on):
	 * its answer is applied when it returns. */
	if (cw_answered(n) && !n->answer.applied) {
		if (!apply_answer(n, ev))
			return;
		if (n->answer.result == -ENOENT && ev->quiet_if_gone)
			return;
		if (n->answer.kind == CW_ANSWER_FD)
			ev->err = n->answer.fallback_err; /* 0 when installed */
	}
	double t = cw_record_time(run);
	bool denied = ev->d.verdict != CW_ALLOW;
	struct cw_annot_view av; /* advisory: looked up after the decision */

	/* An allowed exec is a capability used only if it happens: the exec
	 * stop counts it (a failed execve, e.g. a PATH search, is not a
	 * program run, kernel-notes K21). Set before anything below can read
	 * the kernel back end's connector, where the exec may already be. */
	bool deferred = ev->op.kind == CW_OP_EXEC && !denied && ev->d.cap == CW_CAP_PROCESS_SPAWN &&
			cw_tracker_defer_exec(run, n->tgid, ev->d.scope);
	cw_annot_attach(run, n->tgid, n->tid, n->ppid, ev, &av);
	run->events++;
	struct cw_trace_op to = {
		.seq = ++run->seq, .time = t,
		.pid = n->tgid, .tid = n->tid, .ppid = n->ppid,
		.source = "seccomp", .via = ev->via,
		.op = &ev->op,
		.raw_path = ev->raw_path, .raw_path_len = ev->raw_path_len,
		.raw_path2 = ev->raw_path2, .raw_path2_len = ev->raw_path2_len,
		.dirfd = ev->dirfd, .has_dirfd = ev->has_dirfd,
		.flags = ev->flags, .has_flags = ev->has_flags,
		.argv = ev->argv,
		.d = &ev->d,
		.enforced = denied ? ev->enforced : true,
		.err = ev->err,
		.verified = ev->verified,
		.site = av.site, .backtrace = av.backtrace, .annotation_source = av.source,
	};
	/* Rendered only when it goes somewhere: without --trace the line
	 * was built and thrown away on every event. */
	if (run->trace_fd >= 0)
		cw_trace_op_write(&run->tj, &to);
	cw_record_trace_emit(run);
	record_approval(n, ev);

	if (ev->d.cap != CW_CAP_NONE && !deferred)
		cw_report_count_capability(run->report, ev->d.cap, ev->d.scope, ev->d.verdict);
	if (!denied)
		return;
	run->denials++;
	struct cw_proc *p = cw_tracker_find(run, n->tgid);
	struct cw_denial_record dr = {
		.pid = n->tgid,
		.program = p && p->exe ? p->exe : NULL,
		.syscall = n->syscall,
		.d = &ev->d,
		.time = t,
		.enforced = ev->enforced,
		.host = ev->op.host,
		.site = av.site, .backtrace = av.backtrace, .annotation_source = av.source,
		/* Its process: the caller's entry when the call was taken up
		 * (identify_caller), else the one the tracker knows alive now.
		 * A record of an earlier process of the same pid (the kernel
		 * back end hears of forks after the fact) must not lend it its
		 * exit status. 0, no process, is never tolerated (report.h). */
		.proc = n->proc ? n->proc : p && p->alive ? p->serial : 0,
	};
	cw_report_add_denial(run->report, &dr);
	if (!run->have_denial && ev->enforced) {
		run->have_denial = true;
		run->first_denial = ev->d;
	}
	/* The command's own exec denied: it never started. */
	if (ev->enforced && n->tgid == run->child && !run->child_execed && ev->op.kind == CW_OP_EXEC)
		run->start_denied = true;
	cw_info("denied %s %s (%s, rule %s)", n->syscall, ev->d.scope,
		cw_cap_name(ev->d.cap), ev->d.rule);
}

void cw_event_finish(struct cw_notif *n, struct cw_event *ev, cw_enforce_fn prepare,
		     cw_enforce_fn enforce)
{
	if (!ev->checked && !cw_notif_valid(n)) {
		/* The target is gone or was interrupted: it will ask again if
		 * it still can. Nothing happened, nothing to record. */
		cw_answer_gone(n);
		return;
	}
	if (cw_event_decide(n, ev)) {
		if (prepare)
			prepare(n, ev);
		enforce(n, ev);
	} else if (ev->d.next_action == CW_NEXT_REQUEST_APPROVAL) {
		/* An ask: approval.c makes it wait for an approver when one
		 * can answer, else it is denied (apply_answer). */
		if (cw_answer_open(n))
			n->answer.kind = CW_ANSWER_DEFER;
	} else {
		cw_event_deny(n, ev);
	}
	cw_event_record(n, ev);
}

/* --- the loop --- */

/* Who is calling: N's thread group and parent, and whether the caller
 * may be handled at all. False when it was answered here. */
static bool identify_caller(struct cw_run *run, struct cw_notif *n)
{
	/* The kernel back end hears of forks and execs from the connector,
	 * after the fact: what is queued is read before each notification
	 * (one recv, nothing when empty), so that the caller's fork and exec
	 * are recorded while it waits here, its /proc still readable, and
	 * before anything its new image sends. */
	if (run->kernel)
		cw_kernel_sync(run);
	if (!cw_tracker_ids(run, n->tid, &n->tgid, &n->ppid)) {
		/* The caller's thread is gone (killed by its process's exit
		 * after its call reached capwatch) or cannot be read: refused,
		 * and its number, perhaps a thread's, never made a process
		 * entry (red team 26: an entry under a thread's number never
		 * died, and a host process that got the number later was
		 * recorded as the tree's). */
		cw_answer_error(n, EPERM);
		return false;
	}
	if (run->kernel && !cw_kernel_caller_checked(run, n->tid, n->tgid)) {
		/* After a loss: its image was checked here, and was not one
		 * the run allowed (kernel.c, e178b). */
		cw_answer_error(n, EPERM);
		return false;
	}
	/* (one look-up of the caller's entry: the kernel back end's makes it
	 * when the table has none alive) */
	struct cw_proc *caller = run->kernel ? cw_kernel_adopt_caller(run, n->tid, n->tgid)
					     : cw_tracker_find(run, n->tgid);
	if (caller && caller->condemned) {
		/* Killed for an image nothing allowed (kernel.c check_image):
		 * its calls do nothing until it is gone (and it is killed
		 * again, for one whose first kill failed). */
		cw_kernel_kill_condemned(run, n->tgid);
		cw_answer_error(n, EPERM);
		return false;
	}
	/* Its process as it is now: a denial is given to it even if the
	 * process is gone by the time the denial is recorded. Deciding can
	 * read the connector again (the preload channel's messages are read
	 * for the call's annotation: cw_annot_prepare, receive_one): another
	 * thread's exec, the new image's run and its exit may all be read
	 * before the denial is recorded, and the entry is then no longer
	 * alive (e174 "two", under load: the denial was given no process,
	 * never tolerated, though its process went on and exited 0). */
	n->proc = caller && caller->alive ? caller->serial : 0;
	return true;
}

/* REQ holds a notification just received; called with the loop's lock
 * held. Dispatched by syscall to its handler, answered exactly once. */
/* Notifications per syscall number, for -vv (cw_notify_debug_counts):
 * where the round trips of a workload go. Under the loop's lock. */
static unsigned long by_nr[CW_NSYSCALLS];

void cw_notify_debug_counts(struct cw_run *run)
{
	char line[1024];
	size_t used = 0;
	line[0] = '\0';
	for (int shown = 0; shown < 12; shown++) {
		int best = -1;
		for (int nr = 0; nr < CW_NSYSCALLS; nr++)
			if (by_nr[nr] && (best < 0 || by_nr[nr] > by_nr[best]))
				best = nr;
		if (best < 0)
			break;
		int k = snprintf(line + used, sizeof(line) - used, "%s%s %lu", used ? ", " : "",
				 cw_syscall_name(run, best), by_nr[best]);
		if (k < 0 || (size_t)k >= sizeof(line) - used)
			break;
		used += (size_t)k;
		by_nr[best] = 0;
	}
	cw_debug("%lu notifications%s%s", run->notifications, used ? ", the most: " : "", line);
}

static void handle_notification(struct cw_run *run, const struct seccomp_notif *req)
{
	run->notifications++;
	if (req->data.nr >= 0 && req->data.nr < CW_NSYSCALLS)
		by_nr[req->data.nr]++;
	struct cw_notif n = { .run = run, .req = req, .tid = (pid_t)req->pid, .call = run->call_scratch };
	n.fs = cw_fs_scratch_of(run);
	int nr = req->data.nr;
	cw_handler_fn handle = cw_syscall_handler(nr);
	n.syscall = cw_syscall_name(run, nr);
	if (!handle) {
		/* Not ours to continue: the filter and the table disagree. */
		cw_answer_error(&n, ENOSYS);
	} else if (identify_caller(run, &n)) {
		cw_notif_dispatch(&n, handle);
		return;
	}
	apply_answer(&n, NULL);
}

static void forward_signal(struct cw_run *run, const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;

	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
		/* Only blocked in tty mode: the terminal stopped the job. The
		 * command got the signal itself; capwatch stops once the
		 * command is in its group-stop (ptrace.c). */
		if (si->ssi_code == SI_KERNEL)
			run->stop_requested = true;
		else if (run->child > 0)
			kill(run->tty_mode ? run->child : -run->child, sig);
		return;
	}
	/* A signal from the terminal already reached the command's group
	 * when it shares ours; one sent by a tracee to its own group (which
	 * includes capwatch in tty mode) must not bounce back. */
	if (run->tty_mode && si->ssi_code == SI_KERNEL)
		goto note;
	if (cw_tracker_in_tree(run, (pid_t)si->ssi_pid))
		return;
	if (run->child > 0 && !run->child_exited) {
		if (run->tty_mode)
			kill(run->child, sig);
		else
			kill(-run->child, sig);
	} else if (run->child_exited && run->tracker_ops &&
		   (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)) {
		/* The command is gone, its descendants are not (`sleep 300 &
		 * exit 0`): each of them gets the signal; what is left 2 s
		 * later (a background job of sh ignores SIGINT), or at a
		 * second request to stop, is killed, so that capwatch can
		 * always be stopped and still write its report. */
		run->tracker_ops->kill_all(run, run->cancelled ? SIGKILL : sig);
		if (!run->stop_deadline)
			run->stop_deadline = cw_now() + 2;
	}
note:
	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
		if (!run->cancelled)
			cw_info("received %s: passed to the command", strsignal(sig));
		run->cancelled = true;
	}
}

static bool run_over(struct cw_run *run)
{
	return run->child_exited && run->tracker_ops->alive(run) == 0;
}

/* Its argument is the loop's context, not the run: the context outlives
 * the run (see cw_notify_init), and the thread touches the run only under
 * the lock, which the loop never gives back once it is over. */
static void *notify_thread(void *arg)
{
	struct cw_loop *lp = arg;
	cw_colocate_thread_start(lp->run);
	for (;;) {
		memset(lp->req, 0, lp->sizes.seccomp_notif); /* RECV needs a zeroed buffer (K8) */
		if (ioctl(lp->notify_fd, SECCOMP_IOCTL_NOTIF_RECV, lp->req) < 0) {
			if (lp->over)
				return NULL; /* (ENOENT at once, the tree gone: no spin) */
			if (errno == ENOENT || errno == EINTR)
				continue; /* the asker died first, or a signal */
			/* The listener is unusable: nothing more will be
			 * answered, and the tree's notified calls wait until
			 * the run ends (fail closed). */
			cw_err("SECCOMP_IOCTL_NOTIF_RECV: %s", strerror(errno));
			return NULL;
		}
		pthread_mutex_lock(&lp->lock);
		handle_notification(lp->run, lp->req);
		cw_annot_drain(lp->run); /* after the answer: not on the target's path */
		pthread_mutex_unlock(&lp->lock);
	}
	return NULL;
}

/* ---- the event loop: every source registered with its own handler ---- */

struct loop_set;
/* A source of the loop. FN runs under the loop's lock, unless UNLOCKED (then in
 * the wait itself, before the lock is taken). */
struct loop_src {
	int fd;
	uint32_t events;
	bool unlocked;
	void (*fn)(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents);
	size_t backend; /* index in run->sources for a back end's source */
};

struct loop_set {
	int ep;
	struct loop_src src[8 + CW_ARRAY_SIZE(((struct cw_run *)0)->sources)];
	size_t nsrc;
	bool reap; /* something may have exited: reap after the handlers */
};

static int loop_add(struct loop_set *L, int fd, uint32_t events, bool unlocked,
		    void (*fn)(struct cw_run *, struct loop_set *, struct loop_src *, uint32_t), size_t backend)
{
	if (L->nsrc == CW_ARRAY_SIZE(L->src))
		return -ENOSPC;
	struct loop_src *s = &L->src[L->nsrc++];
	*s = (struct loop_src){ .fd = fd, .events = events, .unlocked = unlocked, .fn = fn, .backend = backend };
	struct epoll_event e = { .events = events, .data.ptr = s };
	return epoll_ctl(L->ep, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

/* The listener is in the set for its hang-up only (no filtered task left,
 * K8): the notification thread reads it. */
static void on_listener(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	if (revents & (EPOLLHUP | EPOLLERR)) {
		run->listener_hup = true;
		epoll_ctl(L->ep, EPOLL_CTL_DEL, s->fd, NULL);
	}
}

/* Everything pending in one read: a read that returns less than the
 * buffer left nothing behind (one EAGAIN read saved per wake-up, four of
 * which an exec of a traced shell makes). SIGCHLD means a reap below. */
static void on_signals(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	(void)revents;
	struct signalfd_siginfo si[16];
	ssize_t got;
	do {
		got = read(s->fd, si, sizeof(si));
		for (ssize_t j = 0; got > 0 && j < got / (ssize_t)sizeof(si[0]); j++) {
			if (si[j].ssi_signo == SIGCHLD)
				L->reap = true;
			else
				forward_signal(run, &si[j]);
		}
	} while (got == (ssize_t)sizeof(si));
}

static void on_approval(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	(void)L, (void)s, (void)revents;
	cw_approval_dispatch(run);
}

/* The --timeout watchdog's wake-up: what it means is read from
 * cw_watchdog_fired() after the handlers. */
static void on_timeout(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	(void)run, (void)L, (void)revents;
	uint64_t x;
	if (read(s->fd, &x, sizeof(x)) < 0 && errno != EAGAIN)
		cw_debug("watchdog eventfd: %s", strerror(errno));
}

/* The co-location watchdog's tick: without the loop's lock, which a starved
 * notification thread may hold (colocate.h). */
static void on_colocate(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	(void)L, (void)revents;
	cw_colocate_watchdog(run, s->fd);
}

/* A back end's source (kernel.c: the proc connector, cgroup.events). */
static void on_backend(struct cw_run *run, struct loop_set *L, struct loop_src *s, uint32_t revents)
{
	run->sources[s->backend].fn(run, s->fd, revents);
	L->reap = true; /* an exit may have emptied the tree */
}

/* Every source in the epoll set, each with its handler. */
static int add_sources(struct cw_run *run, struct loop_set *L, int sigfd)
{
	int r;
	if (run->listener >= 0 && (r = loop_add(L, run->listener, 0, false, on_listener, 0)) < 0)
		return r;
	/* The target sleeps until we answer; with this flag the kernel wakes
	 * it synchronously on our CPU instead of through the scheduler of
	 * another one (about a fifth of an open-heavy run's time, measured in
	 * tests/bench/RESULTS.md). Older kernels say EINVAL or ENOTTY: a
	 * speed-up only, nothing depends on it. */
	if (run->listener >= 0 &&
	    ioctl(run->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0 &&
	    errno != EINVAL && errno != ENOTTY)
		cw_debug("NOTIF_SET_FLAGS: %s", strerror(errno));
	if ((r = loop_add(L, sigfd, EPOLLIN, false, on_signals, 0)) < 0)
		return r;
	/* The annotation channel is not in the set: the preload sends its
	 * datagram just before the call it annotates, and a wake-up for it
	 * followed by a second one for the notification cost a third of an
	 * allowed open's time (tests/bench/RESULTS.md, session 2). It is
	 * drained after each notification is answered (the queue holds only
	 * max_dgram_qlen datagrams, and nearly every annotated call is a
	 * notified one; under reads decided in the kernel the preload
	 * annotates no read-only open, preload.c kernel_read), by the
	 * lookups that need it, and when idle. */
	if (cw_approval_fd(run) >= 0 && (r = loop_add(L, cw_approval_fd(run), EPOLLIN, false, on_approval, 0)) < 0)
		return r;
	int wfd = run->listener >= 0 ? cw_colocate_init(run) : -1;
	if (wfd >= 0 && (r = loop_add(L, wfd, EPOLLIN, true, on_colocate, 0)) < 0)
		return r;
	/* --timeout: the watchdog thread's clock (watchdog.h), which goes on
	 * when this loop or the notification thread is stuck; it kills what
	 * it can alone and wakes us here for the rest. */
	int tfd = cw_watchdog_fd(run);
	if (tfd >= 0 && (r = loop_add(L, tfd, EPOLLIN, false, on_timeout, 0)) < 0)
		return r;
	for (size_t i = 0; i < run->nsources; i++)
		if ((r = loop_add(L, run->sources[i].fd, run->sources[i].events, false, on_backend, i)) < 0)
			return r;
	return 0;
}

/* The notification thread, on its own descriptor of the listener. Every
 * signal stays blocked in it (inherited): they are the event loop's,
 * through its signalfd. */
static int start_notify_thread(struct cw_run *run)
{
	struct cw_loop *lp = run->loop;
	pthread_t th;
	pthread_attr_t at;
	lp->notify_fd = fcntl(run->listener, F_DUPFD_CLOEXEC, 0);
	if (lp->notify_fd < 0)
		return -errno;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int te = pthread_create(&th, &at, notify_thread, lp);
	pthread_attr_destroy(&at);
	if (te != 0) {
		cw_err("cannot start the notification thread: %s", strerror(te));
		return -te;
	}
	return 0;
}

/* Wait for events without the lock, which is taken again before this
 * returns. The unlocked sources are handled in the wait itself. Returns
 * the number of events in EVS (0: idle), or -errno of epoll_wait. */
static int wait_events(struct cw_run *run, struct loop_set *L, struct epoll_event *evs, int nevs)
{
	int timeout_ms = 1000;
	int k, wait_errno;
	pthread_mutex_unlock(&run->loop->lock);
	double waiting_since = cw_now();
	for (;;) {
		k = epoll_wait(L->ep, evs, nevs, timeout_ms);
		wait_errno = errno;
		int unlocked = 0;
		for (int i = 0; i < k; i++) {
			struct loop_src *s = evs[i].data.ptr;
			if (s->unlocked) {
				s->fn(run, L, s, evs[i].events);
				unlocked++;
			}
		}
		if (k <= 0 || unlocked < k)
			break;
		/* Only unlocked sources (the co-location tick): not worth
		 * the lock, unless they alone filled the idle timeout
		 * (the safety-net reap, drain and flush below still run). */
		if (cw_now() - waiting_since >= timeout_ms / 1000.0) {
			k = 0;
			break;
		}
	}
	pthread_mutex_lock(&run->loop->lock);
	return k < 0 ? -wait_errno : k;
}

/* After the handlers of one wake-up: the timeout, the reap, what is left
 * of a stopped run, the trace's periodic flush. False when the loop must
 * give up waiting. */
static bool after_events(struct cw_run *run, struct loop_set *L, double *kill_deadline)
{
	if (cw_watchdog_fired(run) && !run->timed_out) {
		/* The watchdog killed the group and the cgroup; the
		 * tracker's pids (setsid'd ones) die here. */
		run->timed_out = true;
		cw_tracker_kill_all(run);
		*kill_deadline = cw_now() + 5;
		cw_watchdog_ack(run);
	}
	/* Every tracee stop and exit raises SIGCHLD, and a reap drains
	 * all pending statuses: no waitpid per notification. */
	if (L->reap || run->timed_out)
		run->tracker_ops->reap(run);
	if (run->timed_out && *kill_deadline && cw_now() > *kill_deadline) {
		/* Something survived SIGKILL for 5s (stuck in D state,
		 * or invisible to us): give up waiting for it. */
		cw_warn("processes survived the timeout kill; not waiting for them");
		return false;
	}
	if (run->timed_out)
		cw_tracker_kill_all(run); /* late forks */
	if (run->stop_deadline && cw_now() > run->stop_deadline) {
		/* Asked to stop after the command exited: what did not
		 * go at the forwarded signal goes now. */
		run->stop_deadline = 0;
		cw_tracker_kill_all(run);
	}
	if (cw_now() - run->last_flush > 1.0)
		cw_record_trace_flush(run);
	return true;
}

int cw_notify_loop(struct cw_run *run, int sigfd)
{
	struct loop_set L = { .ep = epoll_create1(EPOLL_CLOEXEC) };
	if (L.ep < 0)
		return -errno;
	_cleanup_close_ int ep_owner = L.ep;
	int r;

	if ((r = add_sources(run, &L, sigfd)) < 0)
		return r;
	pthread_mutex_lock(&run->loop->lock); /* never released once the loop is over */
	if (run->listener >= 0 && (r = start_notify_thread(run)) < 0)
		return r;

	/* A SIGCHLD may have been consumed during setup. */
	run->tracker_ops->reap(run);
	double kill_deadline = 0;

	while (!run_over(run)) {
		struct epoll_event evs[8];
		int k = wait_events(run, &L, evs, CW_ARRAY_SIZE(evs));
		if (k == -EINTR)
			continue;
		if (k < 0) {
			run->loop->over = true;
			return k;
		}
		L.reap = k == 0; /* idle: reap anyway, as a safety net */
		if (k == 0)
			cw_annot_drain(run);
		for (int i = 0; i < k; i++) {
			struct loop_src *s = evs[i].data.ptr;
			if (!s->unlocked)
				s->fn(run, &L, s, evs[i].events);
		}
		if (!after_events(run, &L, &kill_deadline))
			break;
	}
	/* The tree may have emptied (the watchdog's cgroup.kill) in an
	 * iteration that did not see the watchdog's wake-up yet. */
	if (cw_watchdog_fired(run) && !run->timed_out) {
		run->timed_out = true;
		cw_watchdog_ack(run);
	}
	run->loop->over = true;
	return 0;
}
