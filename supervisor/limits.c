/* Resource limits and fail-closed teardown (see limits.h). */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "supervisor/limits.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/kernel.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#define CW_MAX_PROCS_DEFAULT 4096

static const int own_res[] = { RLIMIT_FSIZE, RLIMIT_NOFILE };
#define CG_DIR_MAX 512

/* The run's limits (run->limits), from cw_limits_init to
 * cw_limits_teardown. The --timeout watchdog thread reads cg_dir and
 * cg_version (cw_limits_kill) without run_lock: both are set before it
 * starts (prepare and attach run before the launch ends) and cleared only
 * after it is joined (teardown). */
struct cw_limits {
	char cg_dir[CG_DIR_MAX]; /* "" when the run has no cgroup */
	int cg_version;
	char cg_layer[32];
	char cg_note[768];

	/* Without a pids cgroup: the limit counted by the ptrace tracker. */
	bool cnt_on;
	long cnt_max;
	uint64_t cnt_killed;

	/* capwatch's own limits as it was started with (cw_limits_init). */
	struct rlimit own_orig[CW_ARRAY_SIZE(own_res)];
	bool own_saved[CW_ARRAY_SIZE(own_res)];
};
#define CNT_NOTES 10 /* kills noted one by one; the rest only counted */

const char *cw_limits_layer(const struct cw_run *run)
{
	const struct cw_limits *l = run->limits;
	if (!l)
		return NULL;
	if (l->cg_layer[0])
		return l->cg_layer;
	return l->cnt_on ? CW_LIMITS_TRACKER_LAYER : NULL;
}

uint64_t cw_limits_killed(const struct cw_run *run)
{
	return run->limits ? run->limits->cnt_killed : 0;
}

void cw_limits_new_task(struct cw_run *run, pid_t pid, size_t ntasks,
			bool (*kill_fn)(const struct cw_run *run, pid_t pid))
{
	struct cw_limits *l = run->limits;
	if (!l || !l->cnt_on || ntasks <= (size_t)l->cnt_max)
		return;
	/* The task is normally in its first ptrace stop (auto-attached,
	 * not yet continued): SIGKILL ends it there. When its own stop was
	 * reaped before this fork event, ptrace.c has continued it already:
	 * it has run briefly, and anything it forked meanwhile is counted
	 * at that fork's event. A thread takes its process with it, as
	 * there is no killing one thread alone. */
	if (kill_fn ? !kill_fn(run, pid) : kill(pid, SIGKILL) < 0)
		return;
	l->cnt_killed++;
	if (l->cnt_killed <= CNT_NOTES)
		cw_record_note(run, pid, "warning", "process limit %ld reached (%zu tasks): new task %d killed",
			    l->cnt_max, ntasks, (int)pid);
	if (l->cnt_killed == CNT_NOTES)
		cw_record_note(run, pid, "warning", "further tasks over the process limit are killed without a note");
}

const char *cw_limits_note(const struct cw_run *run)
{
	return run->limits ? run->limits->cg_note : "";
}

/* capwatch's own cgroup path in the hierarchy whose /proc/self/cgroup line
 * starts with PREFIX ("0::" for v2, or "N:pids:" for v1). */
int cw_limits_own_cgroup(const char *ctrl, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	char line[1024];
	int r = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		bool match = ctrl ? strstr(c1 + 1, ctrl) != NULL : (c1[1] == '\0' && strncmp(line, "0", 1) == 0);
		if (ctrl && match) { /* a comma list such as "cpu,cpuacct" */
			match = false;
			char *save, *tok;
			for (tok = strtok_r(c1 + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (strcmp(tok, ctrl) == 0)
					match = true;
		}
		if (match) {
			snprintf(out, n, "%s", c2 + 1);
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

static bool is_cgroup2(const char *mnt)
{
	struct statfs sf;
	return statfs(mnt, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* Remove the empty cgroups of capwatch runs that were SIGKILLed (their
 * pid is gone): nothing else would. Non-empty ones stay (rmdir fails). */
static void sweep_stale(const char *parent)
{
	DIR *d = opendir(parent);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "capwatch-", 9) != 0)
			continue;
		long pid = strtol(e->d_name + 9, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char p[CG_DIR_MAX + sizeof(e->d_name) + 2];
		snprintf(p, sizeof(p), "%s/%s", parent, e->d_name);
		rmdir(p);
	}
	closedir(d);
}

/* Create MNT/OWN/capwatch-PID with pids.max set. */
static int try_make(struct cw_limits *lim, const char *mnt, const char *own, int version, long max)
{
	char dir[CG_DIR_MAX];
	snprintf(dir, sizeof(dir), "%s%s%s", mnt, own[0] == '/' ? "" : "/",
		 strcmp(own, "/") == 0 ? "" : own);
	sweep_stale(dir);
	size_t l = strlen(dir);
	snprintf(dir + l, sizeof(dir) - l, "/capwatch-%d", (int)getpid());
	if (mkdir(dir, 0755) < 0)
		return -errno;
	char num[32];
	snprintf(num, sizeof(num), "%ld", max);
	int e = cw_write_at(dir, "pids.max", num);
	if (e < 0) {
		rmdir(dir);
		return e;
	}
	snprintf(lim->cg_dir, sizeof(lim->cg_dir), "%s", dir);
	lim->cg_version = version;
	return 0;
}

void cw_limits_prepare(struct cw_run *run)
{
	struct cw_limits *l = run->limits;
	l->cg_dir[0] = l->cg_layer[0] = l->cg_note[0] = '\0';
	l->cnt_on = false;
	l->cnt_killed = 0;
	long max = run->opts->max_procs > 0 ? run->opts->max_procs : CW_MAX_PROCS_DEFAULT;
	char own[400];
	int e = -ENOENT;

	/* Tests only: exercise the tracker's count on a machine where a
	 * pids cgroup could be made (tests/hardening/fork_bomb_count.sh).
	 * It can only trade the cgroup for the other enforcement. */
	const char *knob = getenv("CAPWATCH_TEST_NO_CGROUP");
	if (knob && strcmp(knob, "1") == 0) {
		e = -EPERM;
		goto fallback;
	}

	const char *v2 = is_cgroup2("/sys/fs/cgroup") ? "/sys/fs/cgroup" :
			 is_cgroup2("/sys/fs/cgroup/unified") ? "/sys/fs/cgroup/unified" : NULL;
	if (v2 && cw_limits_own_cgroup(NULL, own, sizeof(own)) == 0) {
		/* The pids controller must be enabled for our children: only
		 * possible when it is available here at all. */
		char p[600];
		snprintf(p, sizeof(p), "%s%s", v2, strcmp(own, "/") == 0 ? "" : own);
		cw_write_at(p, "cgroup.subtree_control", "+pids");
		e = try_make(l, v2, own, 2, max);
	}
	if (e < 0 && cw_limits_own_cgroup("pids", own, sizeof(own)) == 0)
		e = try_make(l, "/sys/fs/cgroup/pids", own, 1, max);
fallback:
	if (e < 0) {
		/* The ptrace tracker counts the tree's tasks instead and kills
		 * each new one past the limit (cw_limits_new_task). Only with
		 * the ptrace back end: the report names the layer then. */
		l->cnt_on = true;
		l->cnt_max = max;
		snprintf(l->cg_note, sizeof(l->cg_note), "no writable cgroup with the pids controller (%s): "
			 "the process limit is kept by the tracker's count", strerror(-e));
		cw_debug("%s", l->cg_note);
		return;
	}
	snprintf(l->cg_layer, sizeof(l->cg_layer), "cgroup-v%d-pids", l->cg_version);
	cw_debug("process limit %ld in %s", max, l->cg_dir);
}

/* ---- capwatch's own limits ---- */

/* Raise capwatch's own soft limits; with L, first save the ones it has
 * now into L (once: the limits capwatch was started with). */
static void own_raise(struct cw_limits *l)
{
	for (size_t i = 0; i < CW_ARRAY_SIZE(own_res); i++) {
		struct rlimit rl;
		if (getrlimit(own_res[i], &rl) < 0)
			continue;
		if (l && !l->own_saved[i]) {
			l->own_orig[i] = rl;
			l->own_saved[i] = true;
		}
		if (rl.rlim_cur == rl.rlim_max)
			continue;
		rl.rlim_cur = rl.rlim_max;
		/* An RLIMIT_NOFILE hard limit above fs.nr_open cannot be the
		 * soft one (EPERM): capwatch keeps its lower soft limit. */
		if (setrlimit(own_res[i], &rl) < 0)
			cw_debug("raising capwatch's own limit %d: %s", own_res[i], strerror(errno));
	}
}

int cw_limits_init(struct cw_run *run)
{
	struct cw_limits *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	run->limits = l;
	own_raise(l);
	return 0;
}

void cw_limits_own_raise(void)
{
	own_raise(NULL);
}

int cw_limits_own_restore(const struct cw_run *run, pid_t pid)
{
	const struct cw_limits *l = run->limits;
	int e = 0;
	for (size_t i = 0; l && i < CW_ARRAY_SIZE(own_res); i++) {
		struct rlimit now;
		if (!l->own_saved[i])
			continue;
		/* The hard limit is the one capwatch has now (it never raises
		 * one); only the soft limit goes back. */
		if (prlimit(pid, own_res[i], NULL, &now) < 0) {
			e = -errno;
			continue;
		}
		struct rlimit want = { l->own_orig[i].rlim_cur, now.rlim_max };
		if (want.rlim_cur > want.rlim_max)
			want.rlim_cur = want.rlim_max;
		if (want.rlim_cur != now.rlim_cur && prlimit(pid, own_res[i], &want, NULL) < 0)
			e = -errno;
	}
	return e;
}

void cw_limits_attach(struct cw_run *run, pid_t child)
{
	/* The command gets the limits capwatch was started with: it is
	 * still waiting for its "go", before its exec. */
	struct cw_limits *l = run->limits;
	int r = cw_limits_own_restore(run, child);
	if (r < 0)
		cw_record_note(run, child, "warning", "the command could not be given capwatch's original "
			    "resource limits (prlimit: %s): it runs with capwatch's raised soft limits",
			    strerror(-r));
	if (!l->cg_dir[0])
		return;
	char num[32];
	snprintf(num, sizeof(num), "%d", (int)child);
	int e = cw_write_at(l->cg_dir, "cgroup.procs", num);
	if (e < 0) {
		snprintf(l->cg_note, sizeof(l->cg_note), "moving the command into %s failed (%s): "
			 "the process limit is kept by the tracker's count", l->cg_dir, strerror(-e));
		cw_record_note(run, child, "warning", "%s", l->cg_note);
		rmdir(l->cg_dir);
		l->cg_dir[0] = l->cg_layer[0] = '\0';
		l->cnt_on = true; /* the tracker's count then */
		l->cnt_max = run->opts->max_procs > 0 ? run->opts->max_procs : CW_MAX_PROCS_DEFAULT;
	}
}

/* SIGKILL every member; returns how many were still there. */
static int kill_members(const struct cw_limits *l)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/cgroup.procs", l->cg_dir);
	FILE *f = fopen(p, "re");
	if (!f)
		return 0;
	int n = 0, pid;
	while (fscanf(f, "%d", &pid) == 1) {
		kill(pid, SIGKILL);
		n++;
	}
	fclose(f);
	return n;
}

void cw_limits_kill(const struct cw_run *run)
{
	cw_kernel_kill_cgroup(run); /* the kernel back end's group, if any */
	const struct cw_limits *l = run->limits;
	if (!l || !l->cg_dir[0])
		return;
	if (l->cg_version != 2 || cw_write_at(l->cg_dir, "cgroup.kill", "1") < 0)
		kill_members(l);
}

void cw_limits_teardown(struct cw_run *run)
{
	struct cw_limits *l = run->limits;
	if (!l)
		return;
	if (!l->cg_dir[0])
		goto out;
	/* Members die asynchronously (a fork bomb may still be forking on
	 * v1): kill again until the directory can go, for a bounded time. */
	for (int i = 0; i < 200; i++) {
		cw_limits_kill(run);
		if (rmdir(l->cg_dir) == 0 || errno == ENOENT)
			break;
		usleep(10000);
	}
out:
	free(l);
	run->limits = NULL;
}
