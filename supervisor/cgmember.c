/* Cgroup membership of a process, as the kernel back end asks it.
 *
 * The kernel sends the proc connector's fork event before it attaches
 * the child to a cgroup (kernel/fork.c copy_process: proc_fork_connector,
 * then cgroup_post_fork). Until then the child's css_set is
 * init_css_set, and /proc/CHILD/cgroup names the root. capwatch reads
 * fork events as they come, so once in a few thousand forks it read a new
 * member of the tree as a stranger (20,000 forks read at once: 11 such;
 * tests/unit/test_cgmember), and killed nothing when it was to kill it:
 * a child of a memfd image ran (CI, e178). Such a child has not run: the
 * kernel wakes it only after the cgroup is set. So a task that reads as
 * another cgroup's and has never been on a CPU is read again. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include "supervisor/cgmember.h"
#include "supervisor/util.h"

/* 1 when PID's cgroup v2 line is CG_LINE's or below it, 0 when it is
 * another, -1 when it cannot be read. ROOTLIKE (on 0): the other is the
 * root or above the namespace's root ("/", "/.."), what a task not yet
 * attached reads. */
static int line_is(const char *cg_line, pid_t pid, bool *rootlike)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	size_t l = strlen(cg_line);
	*rootlike = false;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, cg_line, l) == 0 && (line[l] == '\0' || line[l] == '/'))
			return 1;
		if (strncmp(line, "0::", 3) == 0)
			*rootlike = strcmp(line + 3, "/") == 0 || strncmp(line + 3, "/..", 3) == 0;
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Has task PID never been on a CPU? Its schedstat's third field (the
 * times it was scheduled in) is 0; without schedstat, it has never been
 * switched out. False when it cannot be read. */
static bool never_ran(pid_t pid)
{
	char path[64], buf[4096]; /* (status: its switch counts are at its end) */
	unsigned long long run, wait, slices;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) > 0 && sscanf(buf, "%llu %llu %llu", &run, &wait, &slices) == 3)
		return slices == 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *v = strstr(buf, "voluntary_ctxt_switches:");
	const char *nv = strstr(buf, "nonvoluntary_ctxt_switches:");
	unsigned long a, b;
	return v && nv && sscanf(v, "voluntary_ctxt_switches: %lu", &a) == 1 &&
	       sscanf(nv, "nonvoluntary_ctxt_switches: %lu", &b) == 1 && a == 0 && b == 0;
}

pid_t cw_proc_parent(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) <= 0)
		return 0;
	const char *rp = strrchr(buf, ')'); /* the name may hold anything */
	int pp = 0;
	if (!rp || sscanf(rp + 1, " %*c %d", &pp) != 1 || pp < 0)
		return 0;
	return (pid_t)pp;
}

/* Is the parent of PID a member as it reads now? */
static bool parent_member(const char *cg_line, pid_t pid)
{
	pid_t pp = cw_proc_parent(pid);
	bool rootlike;
	return pp > 0 && line_is(cg_line, pp, &rootlike) == 1;
}

bool cw_cgroup_member_running(const char *cg_line, pid_t pid)
{
	bool rootlike;
	return pid > 0 && line_is(cg_line, pid, &rootlike) == 1;
}

bool cw_cgroup_member(const char *cg_line, pid_t pid)
{
	if (pid <= 0)
		return false;
	bool rootlike;
	int r = line_is(cg_line, pid, &rootlike);
	if (r != 0 || !rootlike || !never_ran(pid))
		return r == 1;
	/* The parent is between the fork event and cgroup_post_fork, a few
	 * microseconds unless it is preempted there: on a loaded machine
	 * (a load of 15 on 2 CPUs here) more than 200 ms, about once in
	 * 35,000 forks (test_cgmember). A child whose parent is a member
	 * is waited for up to 2 s: copy_process cannot be stopped by a
	 * signal or the freezer, so only the CPU's load stretches it. Any
	 * other (a stranger's child, read after a connector loss) for 200
	 * ms, the time it takes to be scheduled at most, as a rule. */
	double start = cw_now(), end = start + 0.2;
	bool extended = false;
	for (unsigned i = 0;; i++) {
		if (i < 64) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 100 * 1000 };
			nanosleep(&ts, NULL);
		}
		r = line_is(cg_line, pid, &rootlike);
		if (r != 0 || !rootlike || !never_ran(pid))
			return r == 1;
		if (cw_now() > end) {
			if (extended || !parent_member(cg_line, pid))
				return false;
			extended = true;
			end = start + 2.0;
		}
	}
}
