/* Co-location of the notification thread and the target during an
 * emulated open: see colocate.h for why and for the safety net. */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "supervisor/colocate.h"
#include "supervisor/log.h"
#include "supervisor/state.h"

/* An ADDFD that took longer than this found the target on another CPU:
 * on one CPU it takes 3-5 us, across two 25-30 us here. */
#define APART_NS 12000ULL
/* After the watchdog had to step in, no co-location for a while: 50 ms
 * at first (the thread may only have waited behind the very command it
 * served, computing after its open), twice as long after each rescue
 * within RESCUE_MEMORY_NS of the last, up to a second (the CPUs are
 * contended). A rescue costs the rest of the tree at most two ticks. */
#define RESCUE_BACKOFF_MIN_NS 50000000ULL
#define RESCUE_BACKOFF_MAX_NS 1000000000ULL
#define RESCUE_MEMORY_NS 10000000000ULL
/* An ADDFD that took longer than this, policy switches included, waited
 * for the CPU behind other work (a co-located one takes 3-5 us, 10 with
 * the switches; one across CPUs 25-60). Co-location only pays when a CPU
 * would otherwise sit idle: after such an ADDFD it stays off for a
 * while, 10 ms at first and twice as long after each slow one in a row,
 * up to a second; a fast co-located ADDFD starts the count again. */
#define SLOW_NS 150000ULL
#define SLOW_BACKOFF_MIN_NS 10000000ULL
#define SLOW_BACKOFF_MAX_NS 1000000000ULL

/* The run's co-location (run->colocate), made by cw_colocate_init when
 * co-location is on (NULL: off) and freed with the run, once the
 * notification thread can no longer take run_lock. Shared by the
 * notification thread (ADDFDs, under run_lock) and the event loop (the
 * watchdog's ticks, without it): what both touch is atomic or under
 * wd_lock; the rest is set before the notification thread starts, or
 * belongs to one of the two. */
struct cw_colocate {
	bool enabled;          /* false for good once leaving SCHED_IDLE failed */
	int policy;            /* capwatch's own: SCHED_OTHER or SCHED_BATCH */
	pid_t notify_tid;      /* the thread whose policy is switched */
	int wd_fd;
	cpu_set_t affinity;    /* capwatch's own, given back after each ADDFD */
	/* the notification thread only */
	uint64_t slow_backoff;
	pid_t apart_tid;
	/* the event loop only */
	uint64_t rescue_backoff, last_rescue;
	/* both */
	_Atomic uint64_t idle_since; /* 0: the notification thread is not SCHED_IDLE */
	_Atomic uint64_t off_until;
	/* The watchdog timer ticks every CW_COLOCATE_WATCHDOG_US while
	 * ADDFDs are co-located (USES counts them since the last tick) and
	 * is stopped at the first tick with none: no timer calls per open,
	 * no ticks when idle. Started and stopped under WD_LOCK, so that a
	 * stop never undoes a start it did not see. */
	pthread_mutex_t wd_lock;
	_Atomic bool wd_running;
	_Atomic unsigned long uses;
	_Atomic unsigned long long n_addfds, n_rejoins, n_rescues, n_backoffs;
};

/* static by necessity: a per-thread flag (only the notification thread's
 * ADDFDs are co-located; the event loop's go straight to the ioctl), and
 * knowing it must cost nothing on the open path (no gettid()). */
static __thread bool is_notify_thread;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int set_policy(pid_t tid, int pol)
{
	struct sched_param sp = { .sched_priority = 0 };
	return sched_setscheduler(tid, pol, &sp);
}

/* Runs on a thread of its own: if going back from SCHED_IDLE is refused,
 * only this thread is left idle, and it exits. */
static void *probe(void *arg)
{
	const int *policy = arg;
	if (set_policy(0, SCHED_IDLE) < 0)
		return (void *)(intptr_t)errno;
	if (set_policy(0, *policy) < 0)
		return (void *)(intptr_t)errno;
	return (void *)0;
}

int cw_colocate_init(struct cw_run *run)
{
	const char *knob = getenv("CAPWATCH_COLOCATE");
	if (knob && strcmp(knob, "0") == 0) {
		cw_debug("co-location: off (CAPWATCH_COLOCATE=0)");
		return -1;
	}
	int policy = sched_getscheduler(0);
	if (policy != SCHED_OTHER && policy != SCHED_BATCH) {
		cw_debug("co-location: off (scheduling policy %d)", policy);
		return -1;
	}
	pthread_t th;
	void *res = (void *)(intptr_t)-1;
	if (pthread_create(&th, NULL, probe, &policy) != 0 || pthread_join(th, &res) != 0 || res != 0) {
		cw_debug("co-location: off (leaving SCHED_IDLE is not permitted: %s)",
			 res == (void *)(intptr_t)-1 ? "probe failed" : strerror((int)(intptr_t)res));
		return -1;
	}
	cpu_set_t affinity;
	if (sched_getaffinity(0, sizeof(affinity), &affinity) < 0) {
		cw_debug("co-location: off (sched_getaffinity: %s)", strerror(errno));
		return -1;
	}
	if (CPU_COUNT(&affinity) < 2) {
		cw_debug("co-location: off (capwatch may run on one CPU only)");
		return -1;
	}
	struct cw_colocate *c = calloc(1, sizeof(*c));
	if (!c) {
		cw_debug("co-location: off (out of memory)");
		return -1;
	}
	c->wd_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->wd_fd < 0) {
		cw_debug("co-location: off (timerfd: %s)", strerror(errno));
		free(c);
		return -1;
	}
	c->policy = policy;
	c->affinity = affinity;
	c->slow_backoff = SLOW_BACKOFF_MIN_NS;
	pthread_mutex_init(&c->wd_lock, NULL);
	c->enabled = true;
	run->colocate = c;
	cw_debug("co-location: on");
	return c->wd_fd;
}

void cw_colocate_free(struct cw_run *run)
{
	struct cw_colocate *c = run->colocate;
	if (!c)
		return;
	close(c->wd_fd);
	pthread_mutex_destroy(&c->wd_lock);
	free(c);
	run->colocate = NULL;
}

void cw_colocate_thread_start(struct cw_run *run)
{
	if (run->colocate)
		run->colocate->notify_tid = (pid_t)syscall(SYS_gettid);
	is_notify_thread = true;
}

int cw_colocate_addfd(struct cw_run *run, struct seccomp_notif_addfd *a, pid_t tid)
{
	struct cw_colocate *c = run->colocate;
	int listener = run->listener;
	if (!c || !c->enabled || !is_notify_thread)
		return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	uint64_t t0 = mono_ns();
	if (t0 < atomic_load(&c->off_until))
		return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);

	/* The watchdog first: from the moment the policy is SCHED_IDLE this
	 * thread may not run again until someone gives it back. */
	atomic_fetch_add(&c->uses, 1);
	if (!atomic_load(&c->wd_running)) {
		pthread_mutex_lock(&c->wd_lock);
		bool ok = atomic_load(&c->wd_running);
		if (!ok) {
			struct itimerspec arm = {
				.it_value = { 0, CW_COLOCATE_WATCHDOG_US * 1000L },
				.it_interval = { 0, CW_COLOCATE_WATCHDOG_US * 1000L },
			};
			ok = timerfd_settime(c->wd_fd, 0, &arm, NULL) == 0;
			atomic_store(&c->wd_running, ok);
		}
		pthread_mutex_unlock(&c->wd_lock);
		if (!ok)
			return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	}
	atomic_store(&c->idle_since, t0);
	/* Held on this CPU too: the target's completion of the ADDFD would
	 * otherwise wake this thread on the other, idle, CPU. */
	int cpu = sched_getcpu();
	cpu_set_t one;
	CPU_ZERO(&one);
	bool pinned = false;
	if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &c->affinity)) {
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	bool idle = set_policy(0, SCHED_IDLE) == 0;
	uint64_t t1 = mono_ns();
	int r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	int e = errno;
	uint64_t t2 = mono_ns();
	if (idle && set_policy(0, c->policy) < 0) {
		/* Cannot happen once probed; if it does, never again. */
		cw_warn("co-location: cannot leave SCHED_IDLE: %s", strerror(errno));
		c->enabled = false;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(c->affinity), &c->affinity);
	atomic_store(&c->idle_since, 0);
	uint64_t t3 = mono_ns();
	atomic_fetch_add(&c->n_addfds, 1);
	if (t3 - t0 > SLOW_NS) {
		atomic_fetch_add(&c->n_backoffs, 1);
		uint64_t until = t3 + c->slow_backoff;
		if (until > atomic_load(&c->off_until))
			atomic_store(&c->off_until, until);
		c->slow_backoff = c->slow_backoff * 2 > SLOW_BACKOFF_MAX_NS ? SLOW_BACKOFF_MAX_NS : c->slow_backoff * 2;
	} else if (r >= 0 && t2 - t1 > APART_NS) {
		c->apart_tid = tid;
	} else {
		c->slow_backoff = SLOW_BACKOFF_MIN_NS;
	}
	errno = e;
	return r;
}

bool cw_colocate_rejoin(struct cw_run *run, pid_t tid)
{
	struct cw_colocate *c = run->colocate;
	if (!c || !c->enabled || !is_notify_thread || c->apart_tid != tid || tid == 0)
		return false;
	c->apart_tid = 0;
	atomic_fetch_add(&c->n_rejoins, 1);
	return true;
}

bool cw_colocate_get_stats(const struct cw_run *run, struct cw_colocate_stats *st)
{
	struct cw_colocate *c = run->colocate;
	if (!c) {
		*st = (struct cw_colocate_stats){ 0 };
		return false;
	}
	st->addfds = atomic_load(&c->n_addfds);
	st->rejoins = atomic_load(&c->n_rejoins);
	st->rescues = atomic_load(&c->n_rescues);
	st->backoffs = atomic_load(&c->n_backoffs);
	return true;
}

void cw_colocate_watchdog(struct cw_run *run, int tfd)
{
	struct cw_colocate *c = run->colocate;
	uint64_t x;
	if (read(tfd, &x, sizeof(x)) != (ssize_t)sizeof(x))
		return;
	uint64_t since = atomic_load(&c->idle_since);
	uint64_t now = mono_ns();
	if (since == 0) {
		/* Stop ticking if no ADDFD was co-located since the last tick.
		 * WD_RUNNING goes false before USES is looked at: an ADDFD
		 * counts itself before it reads WD_RUNNING, so it either is
		 * seen here (and the timer keeps running) or sees false and
		 * starts the timer again, after this under the lock. */
		if (atomic_exchange(&c->uses, 0) != 0)
			return;
		pthread_mutex_lock(&c->wd_lock);
		atomic_store(&c->wd_running, false);
		if (atomic_load(&c->uses) == 0 && atomic_load(&c->idle_since) == 0) {
			struct itimerspec stop = { 0 };
			timerfd_settime(tfd, 0, &stop, NULL);
		} else {
			atomic_store(&c->wd_running, true);
		}
		pthread_mutex_unlock(&c->wd_lock);
		return;
	}
	if (now - since < (uint64_t)CW_COLOCATE_WATCHDOG_US * 1000ULL)
		return; /* a recent ADDFD: looked at again on the next tick */
	if (c->last_rescue == 0 || now - c->last_rescue > RESCUE_MEMORY_NS)
		c->rescue_backoff = RESCUE_BACKOFF_MIN_NS;
	else if (c->rescue_backoff * 2 <= RESCUE_BACKOFF_MAX_NS)
		c->rescue_backoff *= 2;
	else
		c->rescue_backoff = RESCUE_BACKOFF_MAX_NS;
	c->last_rescue = now;
	atomic_store(&c->off_until, now + c->rescue_backoff);
	atomic_fetch_add(&c->n_rescues, 1);
	sched_setaffinity(c->notify_tid, sizeof(c->affinity), &c->affinity);
	if (set_policy(c->notify_tid, c->policy) < 0)
		cw_warn("co-location: cannot restore the notification thread's policy: %s",
			strerror(errno));
	cw_debug("co-location: an ADDFD waited %.1f ms; off for %.0f ms",
		 (double)(now - since) / 1e6, (double)c->rescue_backoff / 1e6);
}
