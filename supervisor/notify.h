#ifndef CAPWATCH_NOTIFY_H
#define CAPWATCH_NOTIFY_H
/* The seccomp listener and the event loop: epoll over the listener, a
 * signalfd and a timerfd. Every received notification is answered exactly
 * once, with what its handler answered (struct cw_answer below). */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/seccomp.h>
#include <sys/types.h>
#include "policy.h"

struct cw_run;
struct cw_fs_scratch;

/* What to do with a notification (issue 16 item 2). A handler does not
 * talk to the kernel about its notification: it decodes, decides,
 * performs what it emulates, and fills in the answer with the
 * cw_answer_* calls below, which make no system call and cannot fail.
 * One place applies answers (notify.c): when the handler's event is
 * recorded (cw_event_record), or when the handler returns. So every
 * notification is answered exactly once, after what its answer reports
 * was done, and before the record that says so; approval is a kind of
 * answer (DEFER), not a side call. A second answer for one notification
 * is a bug: the first one stands and the applier says so. */
enum cw_answer_kind {
	CW_ANSWER_NONE = 0,  /* none yet: when the handler returns, failed closed (EPERM) */
	CW_ANSWER_CONTINUE,  /* the call goes on in the kernel: on registers only (K9) */
	CW_ANSWER_ERROR,     /* the call fails with ERR */
	CW_ANSWER_VALUE,     /* the call returns VAL (capwatch performed it) */
	CW_ANSWER_FD,        /* FD, capwatch's descriptor of what it opened, is installed
				in the target, the call returns its number; FD is closed */
	CW_ANSWER_DEFER,     /* an ask, waiting for an approver (set by cw_event_finish
				only; approval.c takes it, or it is denied) */
	CW_ANSWER_LATER,     /* a worker thread of capwatch answers (a blocking open,
				connect or send performed off the loop) */
	CW_ANSWER_GONE,      /* the notification is gone (ID_VALID failed): nothing to send */
};

struct cw_answer {
	enum cw_answer_kind kind;
	int err;             /* ERROR: > 0 */
	int64_t val;         /* VALUE */
	int fd;              /* FD */
	bool cloexec;        /* FD: installed close-on-exec */
	/* FD: what the open leaves until the descriptor is installed, so
	 * that a call the kernel would fail first (EMFILE: a full table)
	 * acts on nothing (e144): O_TRUNC's truncation after it is
	 * installed, and a file the open created removed when it cannot be
	 * (fs_open.c). */
	bool trunc_after;
	bool undo_create;
	bool twice;          /* a second answer was given (a bug) and dropped */
	/* Set by the applier. */
	bool applied;
	int result;          /* 0, FD: the number installed, or -errno from the kernel
				(-ENOENT: the target went away meanwhile) */
	int fallback_err;    /* FD: it could not be installed (EMFILE...): the call
				failed with this errno instead */
};

struct cw_call_scratch;

/* One notification being handled. */
struct cw_notif {
	struct cw_run *run;
	const struct seccomp_notif *req;
	pid_t tid, tgid, ppid;
	/* The caller's process entry (its serial) when the call was taken
	 * up, alive then: the process its denial is given to, whatever the
	 * table holds for TGID by the time it is recorded (the kernel back
	 * end may read the process's exec and exit meanwhile). 0: none
	 * known alive then; the entry is looked up when it is recorded. */
	uint64_t proc;
	const char *syscall;          /* name from the dispatch table */
	struct cw_call_scratch *call; /* exec, proc, ioctl, net: run->call_scratch */
	struct cw_fs_scratch *fs;     /* the file family's scratch (handlers/fs_impl.h) */
	struct cw_answer answer;      /* filled by the handler, applied by notify.c */
};

/* Is N still open for an answer? A second one is dropped and marked. */
static inline bool cw_answer_open(struct cw_notif *n)
{
	if (n->answer.kind == CW_ANSWER_NONE)
		return true;
	n->answer.twice = true;
	return false;
}

static inline void cw_answer_continue(struct cw_notif *n)
{
	if (cw_answer_open(n))
		n->answer.kind = CW_ANSWER_CONTINUE;
}

static inline void cw_answer_error(struct cw_notif *n, int err) /* ERR > 0 */
{
	if (cw_answer_open(n)) {
		n->answer.kind = CW_ANSWER_ERROR;
		n->answer.err = err;
	}
}

static inline void cw_answer_value(struct cw_notif *n, int64_t val)
{
	if (cw_answer_open(n)) {
		n->answer.kind = CW_ANSWER_VALUE;
		n->answer.val = val;
	}
}

/* FD is the answer's from here: installed, then closed, by the applier
 * (closed here when N already has an answer). */
static inline void cw_answer_fd(struct cw_notif *n, int fd, bool cloexec)
{
	if (!cw_answer_open(n)) {
		close(fd);
		return;
	}
	n->answer.kind = CW_ANSWER_FD;
	n->answer.fd = fd;
	n->answer.cloexec = cloexec;
}

static inline void cw_answer_later(struct cw_notif *n)
{
	if (cw_answer_open(n))
		n->answer.kind = CW_ANSWER_LATER;
}

static inline void cw_answer_gone(struct cw_notif *n)
{
	if (cw_answer_open(n))
		n->answer.kind = CW_ANSWER_GONE;
}

/* Has N an answer (given, not necessarily applied yet)? */
static inline bool cw_answered(const struct cw_notif *n)
{
	return n->answer.kind != CW_ANSWER_NONE;
}

/* Run HANDLE on N and apply what it answered (NONE: EPERM, an internal
 * error). Every notification goes through here: the loop's, and one
 * handled again after an approver's answer (approval.c). */
typedef void (*cw_handler_fn)(struct cw_notif *n);
void cw_notif_dispatch(struct cw_notif *n, cw_handler_fn handle);

/* Is the target still blocked on this notification? Call between reading
 * its memory and using the bytes (kernel-notes K10). */
bool cw_notif_valid(struct cw_notif *n);

/* What a worker thread sends for the notification ID it took over
 * (CW_ANSWER_LATER), on LISTENER: A's kind is ERROR, VALUE or FD (FD is
 * not closed). The run may be gone by then: nothing of it is used.
 * Returns 0 or -errno (-ENOENT: the target went away). */
int cw_answer_send_late(int listener, uint64_t id, const struct cw_answer *a);

/* An operation seen at a notification, on its way to the trace. */
struct cw_event {
	struct cw_op op;
	const char *raw_path; size_t raw_path_len;
	const char *raw_path2; size_t raw_path2_len;
	int dirfd; bool has_dirfd;
	long long flags; bool has_flags;
	const char *const *argv;
	bool allowed;   /* the answer: the operation goes ahead */
	bool enforced;  /* the decision took effect (false under --observe) */
	bool verified;  /* true only when the supervisor performed the operation itself */
	int err;        /* errno answered, 0 when allowed */
	bool decided;   /* d already holds cw_policy_decide() of op (a handler's
			   fast path): cw_event_decide uses it once */
	bool checked;   /* no ID_VALID needed (the handler checked, or its answer
			   is the check): cw_event_finish does not ask */
	const char *via; /* the trace's "via": NULL, or "fanotify" for a read
			   decided at the kernel back end's fanotify event (its
			   "source" stays "seccomp": contract section 5) */
	bool quiet_if_gone; /* nothing was done that the target did not ask for
			   (capwatch's open of exactly the bytes it read): when
			   the answer finds the notification gone, not recorded */
	struct cw_decision d; /* last: its scope is 64 KiB, cw_event_init()
				 clears only its first byte */
};
void cw_event_init(struct cw_event *ev, const char *syscall);

/* Decide EV->op with the run's profile and context; under --observe a
 * denial is recorded but not enforced. Returns EV->allowed. */
bool cw_event_decide(struct cw_notif *n, struct cw_event *ev);
/* Answer a denied event with its errno. */
void cw_event_deny(struct cw_notif *n, struct cw_event *ev);
/* Apply N's answer, then write the event to the trace and the report:
 * what the answer did is in the record (an FD that could not be
 * installed is its errno). Not recorded: a deferred ask that an approver
 * now waits on (recorded when it is answered), and a quiet_if_gone event
 * whose notification was gone. */
void cw_event_record(struct cw_notif *n, struct cw_event *ev);

/* decode -> resolve -> decide -> enforce -> answer -> record: the usual
 * ending of a handler. PREPARE (may be NULL) runs for an allowed
 * operation before it happens; ENFORCE answers it (CONTINUE or
 * emulation). A denied ask is answered DEFER when an approver may still
 * allow it (approval.c). */
typedef void (*cw_enforce_fn)(struct cw_notif *n, struct cw_event *ev);
void cw_event_finish(struct cw_notif *n, struct cw_event *ev, cw_enforce_fn prepare,
		     cw_enforce_fn enforce);

/* The lock every handler runs under (the loop, the notification thread and
 * the kernel back end's fanotify thread take it): run->loop's, which
 * cw_notify_init() sets up. */
void cw_loop_lock(struct cw_run *run);
void cw_loop_unlock(struct cw_run *run);
/* A back end's event source: FN runs in the loop, under the lock, when FD
 * has EVENTS (epoll). Registered before cw_notify_loop. 0 or -ENOSPC. */
typedef void (*cw_source_fn)(struct cw_run *run, int fd, uint32_t events);
int cw_loop_add_source(struct cw_run *run, int fd, uint32_t events, cw_source_fn fn);

/* -vv: how many notifications the run had, the most frequent syscalls
 * first (it empties the counts). */
void cw_notify_debug_counts(struct cw_run *run);

/* Query SECCOMP_GET_NOTIF_SIZES and set up run->loop: the buffers
 * sized by it, the lock. */
int cw_notify_init(struct cw_run *run);
/* The loop: returns when the run is over (first child gone and no tracee
 * left). Returns 0 or -errno on a supervisor failure. */
int cw_notify_loop(struct cw_run *run, int sigfd);

#endif
