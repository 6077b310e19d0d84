#ifndef CAPWATCH_COLOCATE_H
#define CAPWATCH_COLOCATE_H
/* Keeping the notification thread and the target it answers on one CPU
 * while an open is emulated (tests/bench/RESULTS.md, session 3).
 *
 * An emulated open is answered with SECCOMP_IOCTL_NOTIF_ADDFD, and the
 * kernel wakes the target for it with a plain complete(): the scheduler
 * puts the target on an idle CPU rather than on the busy one that wakes
 * it, and the ADDFD then waits for the target over there. Two cross-CPU
 * wake-ups per open: 35 us of kernel time on this machine against 6.5 us
 * on one CPU. The only thing that makes the scheduler choose the waking
 * CPU for a plain wake-up is that CPU running nothing but SCHED_IDLE
 * tasks, so the notification thread is SCHED_IDLE, and held on its CPU
 * (or the target's completion of the ADDFD would wake it on the idle
 * one), for exactly the ADDFD call, and goes back to its policy and
 * affinity when it returns. A target found on the other CPU is brought
 * back once with ADDFD then a plain SEND (cw_colocate_rejoin).
 *
 * A SCHED_IDLE thread can starve behind any other task on its CPU, and
 * the whole tree waits on this thread. Two nets: a watchdog timer, read
 * by the event loop without run_lock, gives the thread its policy and
 * affinity back if an ADDFD has not returned within
 * CW_COLOCATE_WATCHDOG_US (co-location then stays off for 50 ms,
 * doubling with each rescue in a row up to a second);
 * and a co-located ADDFD that took long (the CPU was busy: co-location
 * only pays when one would sit idle) turns it off for 10 ms, doubling
 * with each such ADDFD in a row up to a second.
 *
 * Off when going back from SCHED_IDLE is not permitted (it needs
 * CAP_SYS_NICE or RLIMIT_NICE; probed on a throw-away thread, never on
 * the notification thread), when capwatch runs under a real-time policy
 * or may use one CPU only, or with CAPWATCH_COLOCATE=0 in capwatch's environment. A speed-up only:
 * nothing depends on it. */
#include <stdbool.h>
#include <sys/types.h>
#include <linux/seccomp.h>

#define CW_COLOCATE_WATCHDOG_US 2000

struct cw_run;

/* Probe and create the watchdog timer, with the module's state in
 * run->colocate (left NULL when co-location is off). Returns the timer's
 * descriptor for the event loop's epoll set, or -1 when co-location is
 * off. Before the notification thread starts. */
int cw_colocate_init(struct cw_run *run);
/* Free run->colocate: at the end of the run, when the notification thread
 * can no longer take run_lock. */
void cw_colocate_free(struct cw_run *run);
/* Called by the notification thread first thing: it is the thread whose
 * policy is switched. */
void cw_colocate_thread_start(struct cw_run *run);
/* SECCOMP_IOCTL_NOTIF_ADDFD on run->listener for A, for the notification
 * of thread TID, with the calling thread SCHED_IDLE around it when this
 * is the notification thread and co-location is on. Same return as the
 * ioctl: the installed descriptor, or -1 with errno. */
int cw_colocate_addfd(struct cw_run *run, struct seccomp_notif_addfd *a, pid_t tid);
/* True (once) when the last co-located ADDFD for TID found the target on
 * another CPU (it took as long as two cross-CPU wake-ups): answer this
 * one as ADDFD without SEND, then a plain SEND, whose synchronous
 * wake-up brings the target to this CPU. */
bool cw_colocate_rejoin(struct cw_run *run, pid_t tid);
/* The event loop, on the watchdog timer's readiness, without run_lock
 * (the notification thread may hold it while starved). */
void cw_colocate_watchdog(struct cw_run *run, int tfd);

/* Counts for the report's stats.colocation; false when co-location was
 * off for the run. */
struct cw_colocate_stats {
	unsigned long long addfds, rejoins, rescues, backoffs;
};
bool cw_colocate_get_stats(const struct cw_run *run, struct cw_colocate_stats *st);

#endif
