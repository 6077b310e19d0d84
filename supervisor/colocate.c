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
static uint64_t rescue_backoff, last_rescue; /* the event loop only */
/* An ADDFD that took longer than this, policy switches included, waited
 * for the CPU behind other work (a co-located one takes 3-5 us, 10 with
 * the switches; one across CPUs 25-60). Co-location only pays when a CPU
 * would otherwise sit idle: after such an ADDFD it stays off for a
 * while, 10 ms at first and twice as long after each slow one in a row,
 * up to a second; a fast co-located ADDFD starts the count again. */
#define SLOW_NS 150000ULL
#define SLOW_BACKOFF_MIN_NS 10000000ULL
#define SLOW_BACKOFF_MAX_NS 1000000000ULL
static uint64_t slow_backoff = SLOW_BACKOFF_MIN_NS; /* notification thread only */

static bool enabled;
static int policy;          /* capwatch's own: SCHED_OTHER or SCHED_BATCH */
static pid_t notify_tid;    /* the thread whose policy is switched */
static int wd_fd = -1;
static __thread bool is_notify_thread;
static _Atomic uint64_t idle_since; /* 0: the notification thread is not SCHED_IDLE */
static _Atomic uint64_t off_until;
static pid_t apart_tid;     /* notification thread only */
/* The watchdog timer ticks every CW_COLOCATE_WATCHDOG_US while ADDFDs are
 * co-located (USES counts them since the last tick) and is stopped at the
 * first tick with none: no timer calls per open, no ticks when idle.
 * Started and stopped under WD_LOCK, so that a stop never undoes a start
 * it did not see. */
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool wd_running;
static _Atomic unsigned long uses;
static cpu_set_t affinity;  /* capwatch's own, given back after each ADDFD */
static _Atomic unsigned long long n_addfds, n_rejoins, n_rescues, n_backoffs;

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
	(void)arg;
	if (set_policy(0, SCHED_IDLE) < 0)
		return (void *)(intptr_t)errno;
	if (set_policy(0, policy) < 0)
		return (void *)(intptr_t)errno;
	return (void *)0;
}

int cw_colocate_init(void)
{
	const char *knob = getenv("CAPWATCH_COLOCATE");
	if (knob && strcmp(knob, "0") == 0) {
		cw_debug("co-location: off (CAPWATCH_COLOCATE=0)");
		return -1;
	}
	policy = sched_getscheduler(0);
	if (policy != SCHED_OTHER && policy != SCHED_BATCH) {
		cw_debug("co-location: off (scheduling policy %d)", policy);
		return -1;
	}
	pthread_t th;
	void *res = (void *)(intptr_t)-1;
	if (pthread_create(&th, NULL, probe, NULL) != 0 || pthread_join(th, &res) != 0 || res != 0) {
		cw_debug("co-location: off (leaving SCHED_IDLE is not permitted: %s)",
			 res == (void *)(intptr_t)-1 ? "probe failed" : strerror((int)(intptr_t)res));
		return -1;
	}
	if (sched_getaffinity(0, sizeof(affinity), &affinity) < 0) {
		cw_debug("co-location: off (sched_getaffinity: %s)", strerror(errno));
		return -1;
	}
	if (CPU_COUNT(&affinity) < 2) {
		cw_debug("co-location: off (capwatch may run on one CPU only)");
		return -1;
	}
	wd_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (wd_fd < 0) {
		cw_debug("co-location: off (timerfd: %s)", strerror(errno));
		return -1;
	}
	enabled = true;
	cw_debug("co-location: on");
	return wd_fd;
}

void cw_colocate_thread_start(void)
{
	notify_tid = (pid_t)syscall(SYS_gettid);
	is_notify_thread = true;
}

int cw_colocate_addfd(int listener, struct seccomp_notif_addfd *a, pid_t tid)
{
	if (!enabled || !is_notify_thread)
		return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	uint64_t t0 = mono_ns();
	if (t0 < atomic_load(&off_until))
		return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);

	/* The watchdog first: from the moment the policy is SCHED_IDLE this
	 * thread may not run again until someone gives it back. */
	atomic_fetch_add(&uses, 1);
	if (!atomic_load(&wd_running)) {
		pthread_mutex_lock(&wd_lock);
		bool ok = atomic_load(&wd_running);
		if (!ok) {
			struct itimerspec arm = {
				.it_value = { 0, CW_COLOCATE_WATCHDOG_US * 1000L },
				.it_interval = { 0, CW_COLOCATE_WATCHDOG_US * 1000L },
			};
			ok = timerfd_settime(wd_fd, 0, &arm, NULL) == 0;
			atomic_store(&wd_running, ok);
		}
		pthread_mutex_unlock(&wd_lock);
		if (!ok)
			return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	}
	atomic_store(&idle_since, t0);
	/* Held on this CPU too: the target's completion of the ADDFD would
	 * otherwise wake this thread on the other, idle, CPU. */
	int cpu = sched_getcpu();
	cpu_set_t one;
	CPU_ZERO(&one);
	bool pinned = false;
	if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &affinity)) {
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	bool idle = set_policy(0, SCHED_IDLE) == 0;
	uint64_t t1 = mono_ns();
	int r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, a);
	int e = errno;
	uint64_t t2 = mono_ns();
	if (idle && set_policy(0, policy) < 0) {
		/* Cannot happen once probed; if it does, never again. */
		cw_warn("co-location: cannot leave SCHED_IDLE: %s", strerror(errno));
		enabled = false;
	}
	if (pinned)
		sched_setaffinity(0, sizeof(affinity), &affinity);
	atomic_store(&idle_since, 0);
	uint64_t t3 = mono_ns();
	atomic_fetch_add(&n_addfds, 1);
	if (t3 - t0 > SLOW_NS) {
		atomic_fetch_add(&n_backoffs, 1);
		uint64_t until = t3 + slow_backoff;
		if (until > atomic_load(&off_until))
			atomic_store(&off_until, until);
		slow_backoff = slow_backoff * 2 > SLOW_BACKOFF_MAX_NS ? SLOW_BACKOFF_MAX_NS : slow_backoff * 2;
	} else if (r >= 0 && t2 - t1 > APART_NS) {
		apart_tid = tid;
	} else {
		slow_backoff = SLOW_BACKOFF_MIN_NS;
	}
	errno = e;
	return r;
}

bool cw_colocate_rejoin(pid_t tid)
{
	if (!enabled || !is_notify_thread || apart_tid != tid || tid == 0)
		return false;
	apart_tid = 0;
	atomic_fetch_add(&n_rejoins, 1);
	return true;
}

bool cw_colocate_get_stats(struct cw_colocate_stats *st)
{
	st->addfds = atomic_load(&n_addfds);
	st->rejoins = atomic_load(&n_rejoins);
	st->rescues = atomic_load(&n_rescues);
	st->backoffs = atomic_load(&n_backoffs);
	return wd_fd >= 0;
}

void cw_colocate_watchdog(int tfd)
{
	uint64_t x;
	if (read(tfd, &x, sizeof(x)) != (ssize_t)sizeof(x))
		return;
	uint64_t since = atomic_load(&idle_since);
	uint64_t now = mono_ns();
	if (since == 0) {
		/* Stop ticking if no ADDFD was co-located since the last tick.
		 * WD_RUNNING goes false before USES is looked at: an ADDFD
		 * counts itself before it reads WD_RUNNING, so it either is
		 * seen here (and the timer keeps running) or sees false and
		 * starts the timer again, after this under the lock. */
		if (atomic_exchange(&uses, 0) != 0)
			return;
		pthread_mutex_lock(&wd_lock);
		atomic_store(&wd_running, false);
		if (atomic_load(&uses) == 0 && atomic_load(&idle_since) == 0) {
			struct itimerspec stop = { 0 };
			timerfd_settime(tfd, 0, &stop, NULL);
		} else {
			atomic_store(&wd_running, true);
		}
		pthread_mutex_unlock(&wd_lock);
		return;
	}
	if (now - since < (uint64_t)CW_COLOCATE_WATCHDOG_US * 1000ULL)
		return; /* a recent ADDFD: looked at again on the next tick */
	if (last_rescue == 0 || now - last_rescue > RESCUE_MEMORY_NS)
		rescue_backoff = RESCUE_BACKOFF_MIN_NS;
	else if (rescue_backoff * 2 <= RESCUE_BACKOFF_MAX_NS)
		rescue_backoff *= 2;
	else
		rescue_backoff = RESCUE_BACKOFF_MAX_NS;
	last_rescue = now;
	atomic_store(&off_until, now + rescue_backoff);
	atomic_fetch_add(&n_rescues, 1);
	sched_setaffinity(notify_tid, sizeof(affinity), &affinity);
	if (set_policy(notify_tid, policy) < 0)
		cw_warn("co-location: cannot restore the notification thread's policy: %s",
			strerror(errno));
	cw_debug("co-location: an ADDFD waited %.1f ms; off for %.0f ms",
		 (double)(now - since) / 1e6, (double)rescue_backoff / 1e6);
}
