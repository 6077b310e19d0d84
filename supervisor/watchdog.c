/* The --timeout watchdog (see watchdog.h). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "supervisor/watchdog.h"
#include "supervisor/cli.h"
#include "supervisor/limits.h"
#include "supervisor/log.h"
#include "supervisor/state.h"
#include "supervisor/outcome.h"

/* How long the event loop has to acknowledge the timeout, and then to
 * reach the report (its own grace for processes that survive SIGKILL is
 * 5 s: notify.c). */
#define ACK_GRACE 1.0
#define REPORT_GRACE 8.0

/* The watchdog's state (run->watchdog), from cw_watchdog_start to
 * cw_watchdog_stop: shared by the run's threads and the watchdog thread,
 * which reaches it through the run it was started with. */
struct cw_watchdog {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, acked;        /* under mu */
	struct timespec deadline;
	int efd;
	_Atomic bool fired;
	_Atomic int claimed;     /* who writes the report: CLAIM_* */
};

enum { CLAIM_NONE, CLAIM_RUN, CLAIM_WATCHDOG };

/* True when WHO has the report (now or already). */
static bool claim(struct cw_watchdog *wd, int who)
{
	int none = CLAIM_NONE;
	return atomic_compare_exchange_strong(&wd->claimed, &none, who) || none == who;
}

static struct timespec mono_after(double secs)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	time_t s = (time_t)secs;
	t.tv_sec += s;
	t.tv_nsec += (long)((secs - (double)s) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Wait under wd->mu until UNTIL, or until *FLAG or wd->stop. Returns
 * whether it ended by the flag or stop (not by the clock). */
static bool wait_until(struct cw_watchdog *wd, const struct timespec *until, const bool *flag)
{
	while (!wd->stop && !(flag && *flag))
		if (pthread_cond_timedwait(&wd->cv, &wd->mu, until) == ETIMEDOUT)
			break;
	return wd->stop || (flag && *flag);
}

/* SIGKILL the tree with nothing the stuck threads may be changing: the
 * command's process group (the command is its leader in a session of its
 * own, unless it shares capwatch's terminal and group: then the command
 * alone, never our own group) and the run's cgroup. run->child,
 * run->child_pidfd and run->tty_mode are fixed before this thread starts.
 * The group is signalled only while the command is unreaped (its pid, the
 * group's id, cannot be reused until then): the loop that reaps it is
 * either stuck (and reaps nothing) or alive, and then kills the tree by
 * the tracker's pids itself. */
static void kill_tree(struct cw_run *run)
{
	if (run->child > 0 && !__atomic_load_n(&run->child_exited, __ATOMIC_ACQUIRE)) {
		if (!run->tty_mode)
			kill(-run->child, SIGKILL);
		if (run->child_pidfd >= 0)
			syscall(SYS_pidfd_send_signal, run->child_pidfd, SIGKILL, NULL, 0);
	}
	cw_limits_kill(run);
}

static void *watchdog_thread(void *arg)
{
	struct cw_run *run = arg;
	struct cw_watchdog *wd = run->watchdog;
	pthread_mutex_lock(&wd->mu);
	if (wait_until(wd, &wd->deadline, NULL)) {
		pthread_mutex_unlock(&wd->mu);
		return NULL;
	}
	pthread_mutex_unlock(&wd->mu);

	atomic_store(&wd->fired, true);
	kill_tree(run); /* first: the warning may wait on stderr (cw_log) */
	cw_warn("timeout after %gs: killing the process tree", run->opts->timeout);
	uint64_t one = 1;
	if (write(wd->efd, &one, sizeof(one)) < 0)
		cw_debug("watchdog eventfd: %s", strerror(errno));

	struct timespec ack_by = mono_after(ACK_GRACE), report_by = mono_after(REPORT_GRACE);
	const char *why = NULL;
	pthread_mutex_lock(&wd->mu);
	if (!wait_until(wd, &ack_by, &wd->acked))
		why = "timeout: capwatch's event loop was blocked and did not come back within 1 s of the "
		      "kill; the tree was killed by process group and cgroup (and by ptrace's exit-kill "
		      "as capwatch exits); processes, denials and capabilities are not listed";
	else if (!wait_until(wd, &report_by, &wd->stop))
		why = "timeout: capwatch did not get to the report within 8 s of the kill; "
		      "processes, denials and capabilities are not listed";
	pthread_mutex_unlock(&wd->mu);
	if (!why || !claim(wd, CLAIM_WATCHDOG))
		return NULL; /* the run writes the report */
	int e = cw_outcome_emergency_report(run, "cancelled", "timed_out", why);
	if (e < 0)
		cw_err("timeout: the minimal report could not be written either: %s", strerror(-e));
	else
		cw_err("%s: minimal report written", why);
	_exit(e < 0 ? CW_EXIT_FAILURE : CW_EXIT_TIMEOUT);
}

static void wd_free(struct cw_run *run)
{
	struct cw_watchdog *wd = run->watchdog;
	if (wd->efd >= 0)
		close(wd->efd);
	pthread_cond_destroy(&wd->cv);
	pthread_mutex_destroy(&wd->mu);
	free(wd);
	run->watchdog = NULL;
}

int cw_watchdog_start(struct cw_run *run)
{
	if (run->opts->timeout <= 0)
		return 0;
	struct cw_watchdog *wd = calloc(1, sizeof(*wd));
	if (!wd)
		return -ENOMEM;
	wd->efd = -1;
	pthread_mutex_init(&wd->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int e = pthread_cond_init(&wd->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (e) {
		pthread_mutex_destroy(&wd->mu);
		free(wd);
		return -e;
	}
	run->watchdog = wd;
	wd->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wd->efd < 0) {
		e = -errno;
		wd_free(run);
		return e;
	}
	wd->deadline = mono_after(run->opts->timeout);
	e = pthread_create(&wd->th, NULL, watchdog_thread, run);
	if (e) {
		wd_free(run);
		return -e;
	}
	return 0;
}

int cw_watchdog_fd(const struct cw_run *run)
{
	return run->watchdog ? run->watchdog->efd : -1;
}

bool cw_watchdog_fired(const struct cw_run *run)
{
	return run->watchdog && atomic_load(&run->watchdog->fired);
}

void cw_watchdog_ack(struct cw_run *run)
{
	struct cw_watchdog *wd = run->watchdog;
	if (!wd)
		return;
	pthread_mutex_lock(&wd->mu);
	wd->acked = true;
	pthread_cond_signal(&wd->cv);
	pthread_mutex_unlock(&wd->mu);
}

bool cw_watchdog_claim_report(struct cw_run *run)
{
	return !run->watchdog || claim(run->watchdog, CLAIM_RUN);
}

void cw_watchdog_stop(struct cw_run *run)
{
	struct cw_watchdog *wd = run->watchdog;
	if (!wd)
		return;
	pthread_mutex_lock(&wd->mu);
	wd->stop = true;
	pthread_cond_signal(&wd->cv);
	pthread_mutex_unlock(&wd->mu);
	pthread_join(wd->th, NULL);
	wd_free(run);
}
