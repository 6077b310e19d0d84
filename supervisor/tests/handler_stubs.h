#ifndef CAPWATCH_TESTS_HANDLER_STUBS_H
#define CAPWATCH_TESTS_HANDLER_STUBS_H
/* What the unit tests of the exec, process and ioctl families put around
 * the handler, as supervisor/tests/test_net.c does for the network family:
 * the event flow and the answers of notify.c, stubbed and recorded (so a
 * test sees what the handler decided and answered); the decision by the
 * real policy with a built-in profile; the real process tracker
 * (ptrace.c), with the few run services it calls stubbed; a fake
 * notification from this very thread, whose arguments point into our own
 * memory (read back with process_vm_readv, as from any target).
 *
 * Included by one test program each (it defines what it stubs). */
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
#include "supervisor/state.h"
#include "supervisor/util.h"

/* ---- notify.c's answers and event flow, recorded ---- */

enum answer_kind { ANS_NONE, ANS_CONTINUE, ANS_ERROR, ANS_VALUE };
static struct {
	enum answer_kind kind;
	int nanswers;                   /* more than one is a bug */
	int err;
	int64_t val;
	int nrecorded;
	struct cw_event ev;             /* the last recorded event */
	char scope[CW_SCOPE_MAX];        /* its decision's scope */
	char path[PATH_MAX];            /* its op.path */
	char *argv[80];                 /* its argv, copied */
	size_t argc;
} seen;

static void seen_reset(void)
{
	for (size_t i = 0; i < seen.argc; i++)
		free(seen.argv[i]);
	memset(&seen, 0, sizeof(seen));
}

int cw_notif_continue(struct cw_notif *n)
{
	n->answered = true;
	seen.kind = ANS_CONTINUE;
	seen.nanswers++;
	return 0;
}

int cw_notif_error(struct cw_notif *n, int err)
{
	n->answered = true;
	seen.kind = ANS_ERROR;
	seen.err = err;
	seen.nanswers++;
	return 0;
}

int cw_notif_value(struct cw_notif *n, int64_t val)
{
	n->answered = true;
	seen.kind = ANS_VALUE;
	seen.val = val;
	seen.nanswers++;
	return 0;
}

bool cw_notif_valid(struct cw_notif *n)
{
	(void)n;
	return true;
}

void cw_event_init(struct cw_event *ev, const char *syscall)
{
	memset(ev, 0, offsetof(struct cw_event, d.scope) + 1);
	ev->op.syscall = syscall;
	ev->dirfd = -1;
}

/* notify.c's, less annotations; an "ask" is a denial without an
 * approver, as approval.c makes it. */
bool cw_event_decide(struct cw_notif *n, struct cw_event *ev)
{
	cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &ev->d);
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
	cw_notif_error(n, ev->err);
}

void cw_event_record(struct cw_notif *n, struct cw_event *ev)
{
	(void)n;
	seen.nrecorded++;
	memcpy(&seen.ev, ev, offsetof(struct cw_event, d.scope));
	snprintf(seen.scope, sizeof(seen.scope), "%s", ev->d.scope);
	snprintf(seen.path, sizeof(seen.path), "%s", ev->op.path ? ev->op.path : "");
	seen.ev.op.path = NULL;
	for (size_t i = 0; ev->argv && ev->argv[i] && seen.argc < CW_ARRAY_SIZE(seen.argv); i++)
		seen.argv[seen.argc++] = strdup(ev->argv[i]);
	seen.ev.argv = NULL;
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

/* ---- what the tracker (ptrace.c) and the handlers call in the run ---- */

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

void cw_limits_new_task(struct cw_run *run, pid_t pid, size_t ntasks)
{
	(void)run;
	(void)pid;
	(void)ntasks;
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

void cw_record_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
{
	(void)run;
	(void)pid;
	(void)level;
	(void)fmt;
}

/* ---- the fake run and notification ---- */

static struct cw_run run;
static struct seccomp_notif req;
static struct cw_notif notif;
static struct cw_call_scratch scratch; /* the call's, as cw_handlers_init makes it */
static char dir[PATH_MAX];              /* the workspace, our cwd */

/* The run under the built-in profile NAME, with the workspace DIR as its
 * only root and the tracker knowing this process alone (the command).
 * 0 or -1. */
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
	run.profile = p;
	run.ctx.roots = roots;
	run.ctx.nroots = 1;
	run.listener = -1;
	run.child = getpid();
	run.tracker_ops = &cw_tracker_ptrace;
	if (cw_tracker_new(&run) < 0 || !cw_tracker_add(&run, getpid()))
		return -1;
	scratch.net.held_sock = -1;
	return 0;
}

static void fake_run_free(void)
{
	cw_tracker_free(&run);
	cw_profile_free(run.profile);
	run.profile = NULL;
}

__attribute__((unused)) static void fake_run_remove_dir(void)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* A notification of syscall NR from this very thread. */
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
				   .tgid = getpid(), .ppid = getppid(), .syscall = name, .call = &scratch };
	return &notif;
}

__attribute__((unused)) static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

#endif
