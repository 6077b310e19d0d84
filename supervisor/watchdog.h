#ifndef CAPWATCH_WATCHDOG_H
#define CAPWATCH_WATCHDOG_H
/* --timeout on a clock the event loop cannot hold back (issue 14).
 *
 * A thread of its own sleeps until the CLOCK_MONOTONIC deadline. Then,
 * without run_lock (which a stuck notification thread may hold), it
 * SIGKILLs the tree by what needs no shared state: the process group the
 * command leads (its own session unless it shares capwatch's terminal)
 * and the run's cgroup; and wakes the event loop, which marks the run
 * timed out and kills every pid the tracker knows (setsid'd ones too),
 * as before. If the loop does not acknowledge within a second (it is
 * blocked), or does not get to the report within the kill's grace
 * period, the watchdog writes the minimal report (timed_out) itself and
 * exits 124; PTRACE_O_EXITKILL and PR_SET_PDEATHSIG kill what is left,
 * and the closed listener fails any pending notification.
 *
 * The report has one writer: whoever claims it first (the run's
 * write_report or the watchdog). */
#include <stdbool.h>

struct cw_run;

/* Start the watchdog when run->opts->timeout > 0 (a no-op otherwise),
 * with its state in run->watchdog. 0 or -errno. Call with the signals of
 * the event loop blocked: the thread inherits the mask. */
int cw_watchdog_start(struct cw_run *run);

/* A descriptor (eventfd) readable once the deadline passed, for the
 * event loop's epoll set; -1 without a watchdog. */
int cw_watchdog_fd(const struct cw_run *run);

/* Whether the deadline passed. */
bool cw_watchdog_fired(const struct cw_run *run);

/* The event loop has seen the timeout (under run_lock) and killed the
 * tree through the tracker: it is not stuck. */
void cw_watchdog_ack(struct cw_run *run);

/* Claim the report for the run: true unless the watchdog took it first
 * (always true without a watchdog, and on every later call once the run
 * has it). A run thread that gets false must not touch the report or the
 * run again: the watchdog writes it and exits the process. */
bool cw_watchdog_claim_report(struct cw_run *run);

/* Stop and join the thread (after the report is written); frees
 * run->watchdog. */
void cw_watchdog_stop(struct cw_run *run);

#endif
