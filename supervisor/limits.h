#ifndef CAPWATCH_LIMITS_H
#define CAPWATCH_LIMITS_H
/* Resource limits and fail-closed teardown (issue 4 item 5): the command's
 * tree goes into a cgroup of its own with pids.max (--max-procs), killed
 * as a whole at the end of the run and removed. cgroup v2 when a writable
 * hierarchy with the pids controller exists, else the v1 pids hierarchy;
 * without either the ptrace tracker counts the tree's tasks and kills each
 * new one past the limit; the report's layers say which one held. */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cw_run;

/* The module's state (struct cw_limits, run->limits), made first thing in
 * the run: saves capwatch's own resource limits as it was started with
 * and raises them (cw_limits_own_raise). 0 or -ENOMEM. Freed by
 * cw_limits_teardown. */
int cw_limits_init(struct cw_run *run);

/* Before fork (after cw_limits_init): find and create the run's cgroup.
 * Never fails the run. */
void cw_limits_prepare(struct cw_run *run);

/* In the parent, right after fork, while the child waits for its go:
 * move it into the cgroup (before it can fork). */
void cw_limits_attach(struct cw_run *run, pid_t child);

/* Kill everything left in the cgroup (cgroup.kill on v2, SIGKILL of each
 * member otherwise). Safe to call when there is no cgroup. */
void cw_limits_kill(const struct cw_run *run);

/* At the end of the run: kill what is left, remove the cgroup, free
 * run->limits (after the --timeout watchdog was stopped). */
void cw_limits_teardown(struct cw_run *run);

/* The report's layer name ("cgroup-v2-pids", "cgroup-v1-pids", or
 * CW_LIMITS_TRACKER_LAYER when the limit is kept by the tracker's count),
 * or NULL. */
#define CW_LIMITS_TRACKER_LAYER "ptrace-task-count"
const char *cw_limits_layer(const struct cw_run *run);

/* Without a pids cgroup the ptrace tracker keeps the limit: called once
 * per new task of the tree at its fork/vfork/clone event, with the number
 * of live tasks now counted (threads included, as pids.max counts them).
 * Over the limit the new task is SIGKILLed in its first stop and the kill
 * noted in the trace. A no-op when a cgroup keeps the limit. */
/* KILL: how to kill PID (NULL: kill(2), for the ptrace tracker, whose
 * task waits in its first stop; the kernel back end's checks that the
 * number is still the tree's). */
void cw_limits_new_task(struct cw_run *run, pid_t pid, size_t ntasks,
			bool (*kill_fn)(const struct cw_run *run, pid_t pid));

/* How many tasks cw_limits_new_task killed in this run. */
uint64_t cw_limits_killed(const struct cw_run *run);

/* Why the limit is absent ("" when applied). */
const char *cw_limits_note(const struct cw_run *run);

/* capwatch's own resource limits (issue 14): the soft RLIMIT_FSIZE and
 * RLIMIT_NOFILE raised to their hard limits, so that a low limit the
 * command was meant to get (or one set on capwatch while it runs) does
 * not cut the report or the trace, nor starve capwatch of descriptors.
 * cw_limits_init saves the limits capwatch was started with and raises;
 * every call here raises again (a soft limit lowered since by prlimit).
 * Needs no state (any thread, the watchdog's report included). Never
 * fails. */
void cw_limits_own_raise(void);

/* Give process PID (the command, waiting for its "go" after fork) the
 * limits capwatch was started with (saved by cw_limits_init), by
 * prlimit(2): called by cw_limits_attach, so launch.c needs no change.
 * 0 or -errno. */
int cw_limits_own_restore(const struct cw_run *run, pid_t pid);

/* capwatch's own cgroup in the v1 hierarchy of controller CTRL, or in the
 * v2 one when CTRL is NULL ("/..."): 0, or -errno. */
int cw_limits_own_cgroup(const char *ctrl, char *out, size_t n);
#endif
