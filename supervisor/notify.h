#ifndef CAPWATCH_NOTIFY_H
#define CAPWATCH_NOTIFY_H
/* The seccomp listener and the event loop: epoll over the listener, a
 * signalfd and a timerfd. Every received notification is answered exactly
 * once, through the cw_notif_* calls below. */
#include <stdbool.h>
#include <stdint.h>
#include <linux/seccomp.h>
#include <sys/types.h>
#include "policy.h"

struct cw_run;
struct cw_fs_scratch;

/* One notification being handled. */
struct cw_notif {
	struct cw_run *run;
	const struct seccomp_notif *req;
	pid_t tid, tgid, ppid;
	const char *syscall;          /* name from the dispatch table */
	struct cw_call_scratch *call; /* exec, proc, ioctl, net: run->call_scratch */
	bool answered;
	struct cw_fs_scratch *fs;     /* the file family's scratch (handlers/fs_impl.h) */
};

/* Answers. Each returns 0 or -errno from the kernel (-ENOENT: the target
 * went away; nothing more to do). */
int cw_notif_continue(struct cw_notif *n);
int cw_notif_error(struct cw_notif *n, int err);  /* ERR > 0 */
int cw_notif_value(struct cw_notif *n, int64_t val);
/* Install SRCFD in the target and answer with its number (ADDFD|SEND). */
int cw_notif_addfd_send(struct cw_notif *n, int srcfd, bool cloexec);
/* Is the target still blocked on this notification? Call between reading
 * its memory and using the bytes (kernel-notes K10). */
bool cw_notif_valid(struct cw_notif *n);

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
	bool vanished;  /* the answer found the notification gone and nothing had
			   been done for it: not recorded */
	struct cw_decision d; /* last: its scope is 64 KiB, cw_event_init()
				 clears only its first byte */
};
void cw_event_init(struct cw_event *ev, const char *syscall);

/* Decide EV->op with the run's profile and context; under --observe a
 * denial is recorded but not enforced. Returns EV->allowed. */
bool cw_event_decide(struct cw_notif *n, struct cw_event *ev);
/* Answer a denied event with its errno. */
void cw_event_deny(struct cw_notif *n, struct cw_event *ev);
/* Write the event to the trace and the report (after answering). */
void cw_event_record(struct cw_notif *n, struct cw_event *ev);

/* decode -> resolve -> decide -> enforce: the usual ending of a handler.
 * PREPARE (may be NULL) runs for an allowed operation before it happens;
 * ENFORCE answers it (CONTINUE or emulation). */
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

/* Query SECCOMP_GET_NOTIF_SIZES and set up run->loop: the buffers
 * sized by it, the lock. */
int cw_notify_init(struct cw_run *run);
/* The loop: returns when the run is over (first child gone and no tracee
 * left). Returns 0 or -errno on a supervisor failure. */
int cw_notify_loop(struct cw_run *run, int sigfd);

#endif
