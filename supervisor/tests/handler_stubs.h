#ifndef CAPWATCH_TESTS_HANDLER_STUBS_H
#define CAPWATCH_TESTS_HANDLER_STUBS_H
/* What the unit tests of the handlers (test_exec, test_proc, test_fs,
 * test_net) put around the handler: the event flow and the answers of
 * notify.c, stubbed and recorded (so a test sees what the handler decided
 * and answered, and the descriptor it installed); the decision by the
 * real policy with a built-in profile; the real process tracker
 * (ptrace.c), with the few run services it calls stubbed; a fake
 * notification from this very thread, whose arguments point into our own
 * memory (read back with process_vm_readv, as from any target).
 *
 * A test that does not link ptrace.c defines HANDLER_STUBS_NO_TRACKER
 * before including this: its run has no tracker, and it stubs what its
 * handlers ask of one. What a test records beside `seen` it clears and
 * fills through seen_more_reset and seen_more_record.
 *
 * Included by one test program each (it defines what it stubs). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/annot.h"
#include "supervisor/kernel.h"
#include "supervisor/limits.h"
#include "supervisor/ptrace.h"
#include "supervisor/record.h"
#include "supervisor/state.h"
#include "supervisor/util.h"

/* ---- notify.c's answers and event flow, recorded ---- */

enum answer_kind { ANS_NONE, ANS_CONTINUE, ANS_ERROR, ANS_VALUE, ANS_FD };
static struct {
	enum answer_kind kind;
	int nanswers;                   /* more than one is a bug */
	int err;
	int64_t val;
	int fd;                         /* ANS_FD: our duplicate of what was installed, -1 */
	bool trunc_after, undo_create;  /* ANS_FD: what the answer left to the install */
	bool cloexec;
	int nrecorded;
	struct cw_event ev;             /* the last recorded event */
	char scope[CW_SCOPE_MAX];        /* its decision's scope */
	char path[PATH_MAX];            /* its op.path and op.path2, copied */
	char path2[PATH_MAX];
	char alias[128];                /* its op.alias */
	char *argv[80];                 /* its argv, copied */
	size_t argc;
	int notes;                      /* cw_record_note calls */
	char note[512];                 /* the last one's text */
} seen;

/* A test's own record beside seen: cleared at each notification, filled
 * at each recorded event. Either may stay NULL. */
static void (*seen_more_reset)(void);
static void (*seen_more_record)(const struct cw_event *ev);

static void seen_reset(void)
{
	if (seen.kind == ANS_FD && seen.fd >= 0)
		close(seen.fd);
	for (size_t i = 0; i < seen.argc; i++)
		free(seen.argv[i]);
	memset(&seen, 0, sizeof(seen));
	seen.fd = -1;
	if (seen_more_reset)
		seen_more_reset();
}

/* notify.c's applier, recorded instead of sent: what N answered goes to
 * seen (once; a second answer the handler gave counts as one more). An
 * FD answer's descriptor is kept in seen.fd (as installed: the test reads
 * it). */
static void settle(struct cw_notif *n)
{
	struct cw_answer *a = &n->answer;
	if (a->applied)
		return;
	a->applied = true;
	seen.nanswers = a->kind == CW_ANSWER_NONE ? 0 : 1 + (a->twice ? 1 : 0);
	switch (a->kind) {
	case CW_ANSWER_CONTINUE:
		seen.kind = ANS_CONTINUE;
		break;
	case CW_ANSWER_ERROR:
		seen.kind = ANS_ERROR;
		seen.err = a->err;
		break;
	case CW_ANSWER_VALUE:
		seen.kind = ANS_VALUE;
		seen.val = a->val;
		break;
	case CW_ANSWER_FD:
		/* Installed (always, here): the effect left to that moment
		 * (notify.c send_fd_acting) happens now. */
		seen.kind = ANS_FD;
		seen.cloexec = a->cloexec;
		seen.fd = a->fd;
		seen.trunc_after = a->trunc_after;
		seen.undo_create = a->undo_create;
		if (a->trunc_after && ftruncate(a->fd, 0) < 0)
			seen.kind = ANS_NONE;
		a->fd = -1;
		break;
	default: /* LATER (a worker answers), GONE, DEFER, NONE */
		seen.kind = ANS_NONE;
		break;
	}
}

/* What the loop does with a notification (notify.c cw_notif_dispatch):
 * the handler, then its answer applied. */
void cw_notif_dispatch(struct cw_notif *n, cw_handler_fn handle)
{
	handle(n);
	settle(n);
}

/* A worker's answer (the run's listener is -1 here: it goes nowhere). */
int cw_answer_send_late(int listener, uint64_t id, const struct cw_answer *a)
{
	(void)listener;
	(void)id;
	(void)a;
	return -EBADF;
}

bool cw_notif_valid(struct cw_notif *n)
{
	(void)n;
	return true;
}

/* The loop's lock (notify.c): one thread here. */
void cw_loop_lock(struct cw_run *run)
{
	(void)run;
}

void cw_loop_unlock(struct cw_run *run)
{
	(void)run;
}

void cw_event_init(struct cw_event *ev, const char *syscall)
{
	memset(ev, 0, offsetof(struct cw_event, d.scope) + 1);
	ev->op.syscall = syscall;
	ev->dirfd = -1;
}

/* notify.c's, less annotations; an "ask" is what approval.c makes of it
 * with no answer remembered and no approver: a denial that asks for one.
 * A decision the handler already took is used once. */
bool cw_event_decide(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->decided)
		cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &ev->d);
	ev->decided = false;
	if (ev->d.verdict == CW_ASK) {
		ev->d.verdict = CW_DENY;
		ev->d.next_action = CW_NEXT_REQUEST_APPROVAL;
	}
	ev->enforced = !n->run->observe;
	ev->allowed = ev->d.verdict == CW_ALLOW || n->run->observe;
	return ev->allowed;
}

void cw_event_deny(struct cw_notif *n, struct cw_event *ev)
{
	ev->err = ev->d.err > 0 ? ev->d.err : EPERM;
	ev->verified = true;
	cw_answer_error(n, ev->err);
}

/* The event up to its decision's scope; the scope, paths, alias and argv
 * copied (op.path, op.path2 and argv point into the handler's memory: not
 * kept in seen.ev). */
void cw_event_record(struct cw_notif *n, struct cw_event *ev)
{
	/* answered first, as notify.c does */
	if (cw_answered(n) && !n->answer.applied) {
		settle(n);
		if (n->answer.kind == CW_ANSWER_DEFER)
			return; /* no approver here: never set by these stubs */
	}
	seen.nrecorded++;
	memcpy(&seen.ev, ev, offsetof(struct cw_event, d.scope));
	snprintf(seen.scope, sizeof(seen.scope), "%s", ev->d.scope);
	snprintf(seen.path, sizeof(seen.path), "%s", ev->op.path ? ev->op.path : "");
	snprintf(seen.path2, sizeof(seen.path2), "%s", ev->op.path2 ? ev->op.path2 : "");
	snprintf(seen.alias, sizeof(seen.alias), "%s", ev->op.alias ? ev->op.alias : "");
	seen.ev.op.path = NULL;
	seen.ev.op.path2 = NULL;
	for (size_t i = 0; ev->argv && ev->argv[i] && seen.argc < CW_ARRAY_SIZE(seen.argv); i++)
		seen.argv[seen.argc++] = strdup(ev->argv[i]);
	seen.ev.argv = NULL;
	if (seen_more_record)
		seen_more_record(ev);
}

void cw_event_finish(struct cw_notif *n, struct cw_event *ev, cw_enforce_fn prepare, cw_enforce_fn enforce)
{
	if (cw_event_decide(n, ev)) {
		if (prepare)
			prepare(n, ev);
		enforce(n, ev);
	} else {
		cw_event_deny(n, ev);
	}
	cw_event_record(n, ev);
}

void cw_record_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
{
	va_list ap;
	(void)run;
	(void)pid;
	(void)level;
	va_start(ap, fmt);
	vsnprintf(seen.note, sizeof(seen.note), fmt, ap);
	va_end(ap);
	seen.notes++;
}

/* ---- the kernel back end's reads in the kernel (kernel.c): off here ---- */

bool cw_kernel_ns_pid_in_tree(const struct cw_run *run, pid_t pid)
{
	(void)run;
	(void)pid;
	return false; /* never asked: run->kernel_reads is false */
}

void cw_kernel_names_changed(struct cw_run *run)
{
	(void)run;
}

pid_t cw_kernel_ns_pid_to_host(struct cw_run *run, pid_t nspid)
{
	(void)run;
	return nspid; /* never asked: run->kernel_reads is false */
}

/* ---- what the tracker (ptrace.c) calls in the run ---- */

#ifdef HANDLER_STUBS_NO_TRACKER
/* (a connect worker's ERESTARTSYS, net.c: no tracker here) */
void cw_tracker_note_continue(struct cw_run *run, pid_t tid, const struct seccomp_notif *req)
{
	(void)run;
	(void)tid;
	(void)req;
}
#endif

#ifndef HANDLER_STUBS_NO_TRACKER

const struct cw_tracker_ops cw_tracker_kernel = { .name = "kernel (not in this test)" };

bool cw_kernel_in_tree(const struct cw_run *run, pid_t pid)
{
	(void)run;
	(void)pid;
	return false;
}

static int kernel_syncs;
void cw_kernel_sync(struct cw_run *run)
{
	(void)run;
	kernel_syncs++;
}

void cw_kernel_exec_allowed(struct cw_run *run, pid_t tid, pid_t tgid, int pin, const struct stat *st)
{
	(void)run;
	(void)tid;
	(void)tgid;
	(void)st;
	if (pin >= 0)
		close(pin);
}

const char *cw_annot_exec(struct cw_run *run, pid_t pid)
{
	(void)run;
	(void)pid;
	return NULL;
}

void cw_limits_kill(const struct cw_run *run)
{
	(void)run;
}

void cw_limits_new_task(struct cw_run *run, pid_t pid, size_t ntasks,
			bool (*kill_fn)(const struct cw_run *run, pid_t pid))
{
	(void)run;
	(void)pid;
	(void)ntasks;
	(void)kill_fn;
}

double cw_record_time(const struct cw_run *run)
{
	(void)run;
	return 0;
}

void cw_record_trace_emit(struct cw_run *run)
{
	(void)run;
}

void cw_record_trace_flush(struct cw_run *run)
{
	(void)run;
}
#endif

/* ---- the fake run and notification ---- */

static struct cw_run run;
static struct seccomp_notif req;
static struct cw_notif notif;
static struct cw_call_scratch scratch; /* the call's, as cw_handlers_init makes it */
static struct cw_fs_scratch *fs_scratch; /* the file family's, when the test has it */
static char dir[PATH_MAX];              /* the workspace, our cwd */

/* The run under the built-in profile NAME, with the workspace DIR as its
 * only root, a report, and the tracker knowing this process alone (the
 * command). 0 or -1. */
static int fake_run(const char *profile)
{
	static const char *roots[1];
	cw_profile *p = NULL;
	if (!dir[0]) {
		char tmpl[] = "/tmp/cw-handler-XXXXXX";
		if (!mkdtemp(tmpl) || !realpath(tmpl, dir) || chdir(dir) < 0)
			return -1;
	}
	if (cw_profile_builtin(profile, &p) < 0)
		return -1;
	roots[0] = dir;
	memset(&run, 0, sizeof(run));
	run.ns_init_w = run.own_pidns_fd = run.ns_proc_fd = run.tree_root_fd = -1; /* as run.c */
	run.profile = p;
	run.ctx.roots = roots;
	run.ctx.nroots = 1;
	run.listener = -1; /* a worker's answer goes nowhere */
	run.report = cw_report_new();
	if (!run.report)
		return -1;
#ifndef HANDLER_STUBS_NO_TRACKER
	run.child = getpid();
	run.tracker_ops = &cw_tracker_ptrace;
	if (cw_tracker_new(&run) < 0 || !cw_tracker_add(&run, getpid()))
		return -1;
#endif
	scratch.net.held_sock = -1;
	scratch.sig_dup = -1;
	return 0;
}

static void fake_run_free(void)
{
#ifndef HANDLER_STUBS_NO_TRACKER
	cw_tracker_free(&run);
#endif
	cw_profile_free(run.profile);
	run.profile = NULL;
	cw_report_free(run.report);
	run.report = NULL;
}

/* 0 or -1. */
__attribute__((unused)) static int fake_run_remove_dir(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd) != 0) {
		fprintf(stderr, "could not remove %s\n", dir);
		return -1;
	}
	return 0;
}

/* A notification of syscall NR from this very thread. Handled with
 * dispatch(FN, N): the handler, then its answer in seen. */
#define dispatch(fn, n) cw_notif_dispatch((n), (fn))

static struct cw_notif *notify(int nr, const char *name, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
			       uint64_t a4, uint64_t a5)
{
	memset(&req, 0, sizeof(req));
	seen_reset();
	req.id = 1;
	req.pid = (uint32_t)getpid();
	req.data.nr = nr;
	req.data.args[0] = a0;
	req.data.args[1] = a1;
	req.data.args[2] = a2;
	req.data.args[3] = a3;
	req.data.args[4] = a4;
	req.data.args[5] = a5;
	notif = (struct cw_notif){ .run = &run, .req = &req, .tid = (pid_t)syscall(SYS_gettid),
				   .tgid = getpid(), .ppid = getppid(), .syscall = name, .call = &scratch,
				   .fs = fs_scratch };
	return &notif;
}

__attribute__((unused)) static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* The pidfd_getfd duplicate capwatch takes of a target's descriptor
 * (Linux 5.6): skipped, saying why, where it is missing. */
__attribute__((unused)) static void need_getfd(void)
{
	int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int d = pfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pfd, 0, 0) : -1;
	int e = errno;
	if (pfd >= 0)
		close(pfd);
	if (d < 0) {
		print_message("skip: pidfd_getfd: %s\n", strerror(e));
		skip();
	}
	close(d);
}

#endif
