/* The process tracker (kernel-notes K22-K29). PTRACE_SEIZE without
 * per-syscall stops: only fork/vfork/clone/exec events, group-stops and
 * signal-delivery-stops, so a traced process runs at full speed between
 * them. All ptrace requests come from the one supervisor thread. */
#include "config.h"
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>
#include "supervisor/ptrace.h"
#include "supervisor/annot.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/kernel.h"
#include "supervisor/limits.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

struct cw_tracker {
	struct cw_proc **procs; /* every task ever seen, in order of appearance */
	size_t nprocs, cap;
	size_t *index;          /* open addressing: pid -> procs[i] + 1; 0 = empty */
	size_t index_cap;       /* power of two */
	size_t nalive;
	size_t argv_kept; /* bytes charged to CW_ARGV_RUN_BUDGET (ptrace.h) */
	/* The listener's waits are killable once capwatch has received a
	 * call (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, probed at attach):
	 * only then is an interrupted wait one capwatch never saw. */
	bool killable_recv;
};

static void restart_unreceived(struct cw_run *run, struct cw_proc *p, pid_t pid);

static size_t hash_pid(pid_t pid, size_t cap)
{
	return ((size_t)(unsigned)pid * 2654435761u) & (cap - 1);
}

static int index_grow(struct cw_tracker *t)
{
	size_t ncap = t->index_cap ? t->index_cap * 2 : 256;
	size_t *ni = calloc(ncap, sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	free(t->index);
	t->index = ni;
	t->index_cap = ncap;
	/* Re-insert: later entries for a reused pid overwrite earlier ones. */
	for (size_t i = 0; i < t->nprocs; i++) {
		size_t h = hash_pid(t->procs[i]->pid, ncap);
		while (ni[h] && t->procs[ni[h] - 1]->pid != t->procs[i]->pid)
			h = (h + 1) & (ncap - 1);
		ni[h] = i + 1;
	}
	return 0;
}

struct cw_proc *cw_tracker_find(const struct cw_run *run, pid_t pid)
{
	const struct cw_tracker *t = run->tracker;
	if (!t || !t->index_cap)
		return NULL;
	size_t h = hash_pid(pid, t->index_cap);
	while (t->index[h]) {
		struct cw_proc *p = t->procs[t->index[h] - 1];
		if (p->pid == pid)
			return p;
		h = (h + 1) & (t->index_cap - 1);
	}
	return NULL;
}

struct cw_proc *cw_tracker_add(struct cw_run *run, pid_t pid)
{
	struct cw_tracker *t = run->tracker;
	if ((t->nprocs + 1) * 2 > t->index_cap && index_grow(t) < 0)
		return NULL;
	if (t->nprocs == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		struct cw_proc **np = realloc(t->procs, ncap * sizeof(*np));
		if (!np)
			return NULL;
		t->procs = np;
		t->cap = ncap;
	}
	struct cw_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->tgid = pid;
	p->alive = true;
	p->start = cw_record_time(run);
	p->end = -1;
	t->procs[t->nprocs++] = p;
	p->serial = t->nprocs;
	t->nalive++;
	size_t h = hash_pid(pid, t->index_cap);
	while (t->index[h] && t->procs[t->index[h] - 1]->pid != pid)
		h = (h + 1) & (t->index_cap - 1);
	t->index[h] = t->nprocs;
	return p;
}

void cw_tracker_dead(struct cw_run *run, struct cw_proc *p)
{
	if (p->alive) {
		p->alive = false;
		p->end = cw_record_time(run);
		run->tracker->nalive--;
	}
}

void cw_tracker_pending_argv(struct cw_run *run, pid_t tgid, char **argv, bool truncated)
{
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (!p || !p->alive) {
		cw_tracker_free_argv(argv);
		return;
	}
	cw_tracker_free_argv(p->pending_argv);
	p->pending_argv = argv;
	p->pending_argv_truncated = truncated;
}

size_t cw_tracker_nalive(const struct cw_run *run)
{
	return run->tracker ? run->tracker->nalive : 0;
}

size_t cw_tracker_count(const struct cw_run *run)
{
	return run->tracker ? run->tracker->nprocs : 0;
}

struct cw_proc *cw_tracker_at(const struct cw_run *run, size_t i)
{
	return run->tracker && i < run->tracker->nprocs ? run->tracker->procs[i] : NULL;
}

void cw_tracker_kill_all(struct cw_run *run)
{
	if (run->tracker_ops)
		run->tracker_ops->kill_all(run, SIGKILL);
	else if (run->child > 0)
		kill(run->child, SIGKILL);
	cw_limits_kill(run); /* what escaped the tracker (CLONE_UNTRACED...) */
}

int cw_tracker_new(struct cw_run *run)
{
	run->tracker = calloc(1, sizeof(*run->tracker));
	if (!run->tracker || index_grow(run->tracker) < 0)
		return -ENOMEM;
	return 0;
}

void cw_tracker_free_argv(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

void cw_tracker_free(struct cw_run *run)
{
	struct cw_tracker *t = run->tracker;
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct cw_proc *p = t->procs[i];
		while (p) {
			struct cw_proc *prev = p->prev_image;
			free(p->exe);
			cw_tracker_free_argv(p->argv);
			free(p->pending_exec);
			cw_tracker_free_argv(p->pending_argv);
			free(p);
			p = prev;
		}
	}
	free(t->procs);
	free(t->index);
	free(t);
	run->tracker = NULL;
}

/* State and parent of PID from /proc/PID/stat. */
static bool stat_state(pid_t pid, char *state, pid_t *ppid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) < 0)
		return false;
	char *rp = strrchr(buf, ')'); /* comm may contain anything */
	if (!rp || sscanf(rp + 1, " %c %d", state, ppid) != 2)
		return false;
	return true;
}

bool cw_tracker_in_tree(const struct cw_run *run, pid_t pid)
{
	if (pid <= 0)
		return false;
	if (run->tracker_ops == &cw_tracker_kernel)
		return cw_kernel_in_tree(run, pid);
	struct cw_proc *p = cw_tracker_find(run, pid);
	if (p && p->alive)
		return true;
	if (!p && !(pid == run->child && !run->child_exited))
		return false;
	if (!p)
		return true; /* degraded mode knows only the first child */
	/* Exited, but still a zombie its parent has not reaped: the pid
	 * cannot have been reused, and it belongs to a parent of ours. */
	char st;
	pid_t ppid;
	return stat_state(pid, &st, &ppid) && st == 'Z' && cw_tracker_find(run, ppid) &&
	       cw_tracker_find(run, ppid)->alive;
}

/* TID's thread group and parent from /proc/TID/status: false when it
 * could not be read (TID gone), TGID then TID and PPID 0. */
static bool status_ids(pid_t tid, pid_t *tgid, pid_t *ppid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	*tgid = tid;
	*ppid = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *s = strstr(buf, "\nTgid:");
	if (!s)
		return false;
	*tgid = (pid_t)strtol(s + 6, NULL, 10);
	s = strstr(buf, "\nPPid:");
	if (s)
		*ppid = (pid_t)strtol(s + 6, NULL, 10);
	return *tgid > 0;
}

bool cw_tracker_ids(const struct cw_run *run, pid_t tid, pid_t *tgid, pid_t *ppid)
{
	struct cw_proc *p = cw_tracker_find(run, tid);
	if (p && p->alive) {
		*tgid = p->tgid;
		struct cw_proc *leader = p->is_thread ? cw_tracker_find(run, p->tgid) : p;
		*ppid = leader ? leader->ppid : p->ppid;
		return true;
	}
	return status_ids(tid, tgid, ppid);
}

/* /proc/PID/cmdline split at NUL bytes (ptrace.h). */
char **cw_tracker_read_cmdline(pid_t pid, size_t max_bytes, size_t max_args, bool *cut)
{
	char path[64];
	*cut = false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* one byte over MAX_BYTES: whether there was more */
	size_t want = max_bytes + 1, cap = want < 4096 ? want : 4096, len = 0;
	_cleanup_free_ char *buf = malloc(cap);
	if (!buf)
		return NULL;
	for (;;) {
		if (len == cap) {
			if (cap >= want)
				break;
			size_t nc = cap * 2 < want ? cap * 2 : want;
			char *nb = realloc(buf, nc);
			if (!nb)
				return NULL;
			buf = nb;
			cap = nc;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		/* The kernel fills the buffer up to the end of the argument
		 * area (get_mm_cmdline loops): a short read is the end, and
		 * the read that would return 0 is not needed (one syscall
		 * less per exec). */
		if (len < cap)
			break;
	}
	if (len > max_bytes) {
		/* the argument that crosses the bound is cut, as the trace
		 * cuts it (policy/trace.c kv_argv) */
		len = max_bytes;
		*cut = true;
	}
	size_t count = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			count++;
	if (len && buf[len - 1] != '\0')
		count++;
	if (count > max_args) {
		count = max_args;
		*cut = true;
	}
	char **argv = calloc(count + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	size_t k = 0, s = 0;
	for (size_t i = 0; i <= len && k < count; i++) {
		if (i == len || buf[i] == '\0') {
			argv[k] = strndup(buf + s, i - s);
			if (!argv[k]) {
				cw_tracker_free_argv(argv);
				return NULL;
			}
			k++;
			s = i + 1;
		}
	}
	return argv;
}

char *cw_tracker_read_exe(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0 || n == (ssize_t)sizeof(buf) - 1)
		return NULL; /* a full buffer may be a cut name */
	buf[n] = '\0';
	return strdup(buf);
}

/* The image the kernel mapped, by descriptor: stat() of the magic link
 * follows the kernel's own reference to the file, with no name in
 * between (it works when the name is longer than PATH_MAX, deleted, or
 * a memfd's). 0 and ST filled, or -errno. */
static int stat_exe(pid_t pid, struct stat *st)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return stat(path, st) < 0 ? -errno : 0;
}

/* Does NAME (read back from /proc/PID/exe) name the file ST is, now? */
static bool names_image(const char *name, const struct stat *st)
{
	struct stat ns;
	return name && name[0] == '/' && stat(name, &ns) == 0 && ns.st_dev == st->st_dev &&
	       ns.st_ino == st->st_ino;
}

bool cw_tracker_system_loader(const char *path, const struct stat *st)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/lib32/", "/libx32/", "/usr/lib/",
					    "/usr/lib64/", "/usr/lib32/", "/usr/libx32/" };
	bool in_dir = false;
	for (size_t i = 0; i < CW_ARRAY_SIZE(dirs); i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			in_dir = true;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return in_dir && S_ISREG(st->st_mode) && st->st_uid == 0 && !(st->st_mode & 022) &&
	       (strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld64", 4) == 0) && strstr(base, ".so");
}

bool cw_tracker_approved(const struct cw_proc *p, const struct stat *st)
{
	for (unsigned i = 0; i < p->napproved && i < CW_ARRAY_SIZE(p->approved); i++)
		if (p->approved[i].dev == st->st_dev && p->approved[i].ino == st->st_ino)
			return true;
	return false;
}

void cw_tracker_approve_image(struct cw_run *run, pid_t tgid, dev_t dev, ino_t ino)
{
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (!p || !p->alive)
		return;
	size_t max = CW_ARRAY_SIZE(p->approved);
	if (p->napproved == max) {
		memmove(&p->approved[0], &p->approved[1], (max - 1) * sizeof(p->approved[0]));
		p->napproved--;
	}
	p->approved[p->napproved].dev = dev;
	p->approved[p->napproved].ino = ino;
	p->napproved++;
}

/* Kill an image that cannot be identified before its first instruction,
 * and record why (a denial of process_spawn and a trace note). */
static void kill_unidentified(struct cw_run *run, struct cw_proc *p, const struct stat *st,
			      bool have_id, const char *why)
{
	struct cw_decision d;
	memset(&d, 0, sizeof(d));
	d.verdict = d.profile_verdict = CW_DENY;
	d.cap = CW_CAP_PROCESS_SPAWN;
	if (have_id)
		snprintf(d.scope, sizeof(d.scope), "inode:%u:%u:%llu", major(st->st_dev), minor(st->st_dev),
			 (unsigned long long)st->st_ino);
	else
		snprintf(d.scope, sizeof(d.scope), "/proc/%d/exe", (int)p->pid);
	snprintf(d.rule, sizeof(d.rule), "builtin:exec-unidentified");
	snprintf(d.reason, sizeof(d.reason), "the image the kernel loaded cannot be identified (%s)", why);
	d.next_action = CW_NEXT_CHANGE_COMMAND;
	d.source = CW_SOURCE_PLATFORM_SANDBOX;
	d.err = EACCES;
	if (run->observe) {
		cw_record_note(run, p->pid, "warning", "exec of %s: %s; recorded only (observe)", d.scope, d.reason);
		return;
	}
	kill(p->pid, SIGKILL);
	cw_record_note(run, p->pid, "warning", "exec of %s killed at the exec stop: %s", d.scope, d.reason);
	run->denials++;
	struct cw_denial_record dr = {
		.pid = p->pid, .program = p->exe ? p->exe : d.scope, .syscall = "execve", .d = &d,
		.time = cw_record_time(run), .enforced = true, .proc = p->serial,
	};
	cw_report_add_denial(run->report, &dr);
	if (!run->have_denial) {
		run->have_denial = true;
		run->first_denial = d;
	}
}

void cw_tracker_trace_spawn(struct cw_run *run, struct cw_proc *p, const char *via)
{
	run->events++;
	cw_trace_spawn_write(&run->tj, ++run->seq, cw_record_time(run), p->pid, p->ppid, p->pid, via);
	cw_record_trace_emit(run);
}

static void cont(pid_t pid, int sig)
{
	if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig) < 0 && errno != ESRCH)
		cw_debug("PTRACE_CONT %d: %s", (int)pid, strerror(errno));
}

/* A new task announced by PTRACE_EVENT_{FORK,VFORK,CLONE} in PARENT. */
static void on_new_task(struct cw_run *run, struct cw_proc *parent, int event)
{
	unsigned long msg = 0;
	if (ptrace(PTRACE_GETEVENTMSG, parent->pid, 0, &msg) < 0)
		return;
	pid_t npid = (pid_t)msg;
	bool thread = false;
	if (event == PTRACE_EVENT_CLONE) {
		/* The parent is stopped right after clone(): its registers still
		 * hold the flags (rdi on x86_64). */
		struct user_regs_struct regs;
		if (ptrace(PTRACE_GETREGS, parent->pid, 0, &regs) == 0)
			thread = regs.rdi & CLONE_THREAD;
	}
	struct cw_proc *c = cw_tracker_find(run, npid);
	/* The child's own stop, or even its exit, may have been reaped before
	 * this event (both pending at once): that entry is this child (its
	 * pid cannot have been reused while the parent sits in this stop).
	 * Adding another one would wait forever for an exit already seen. */
	if (!c || (!c->alive && !c->unannounced))
		c = cw_tracker_add(run, npid);
	if (!c)
		return;
	c->unannounced = false;
	c->is_thread = thread;
	c->tgid = thread ? parent->tgid : npid;
	if (thread) {
		c->ppid = parent->ppid;
	} else {
		c->ppid = parent->tgid;
		/* A fork child runs the parent's image until it execs. */
		if (parent->exe && !c->exe)
			c->exe = strdup(parent->exe);
		cw_tracker_trace_spawn(run, c, event == PTRACE_EVENT_FORK ? "fork" :
				    event == PTRACE_EVENT_VFORK ? "vfork" : "clone");
	}
	/* --max-procs without a pids cgroup: killed here when over it */
	cw_limits_new_task(run, npid, run->tracker->nalive, NULL);
}

/* Does PID hold a seccomp listener descriptor? */
bool cw_tracker_holds_listener(pid_t pid)
{
	char dir[64], link[384], target[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strcmp(target, "anon_inode:seccomp notify") == 0;
		}
	}
	closedir(d);
	return found;
}

/* What one argument costs the run's budget besides its text and NUL:
 * its pointer, its allocation's header, and the JSON node the report
 * makes of it at the end (a cJSON item and its string, about 96 bytes:
 * for empty arguments the report's copy is the larger one). */
#define ARG_OVERHEAD (sizeof(char *) + 2 * sizeof(size_t) + 96u)

/* What ARGV costs the run's budget. */
static size_t argv_cost(char *const *argv)
{
	size_t c = sizeof(*argv);
	for (; argv && *argv; argv++)
		c += strlen(*argv) + 1 + ARG_OVERHEAD;
	return c;
}

/* Keep no more than ARGV[0], itself at most CW_ARGV0_KEEP bytes; *CUT
 * set when anything went. */
static void argv_keep_first(char **argv, bool *cut)
{
	if (!argv || !argv[0])
		return;
	if (strlen(argv[0]) > CW_ARGV0_KEEP) {
		argv[0][CW_ARGV0_KEEP] = '\0';
		*cut = true;
	}
	for (char **a = argv + 1; *a; a++) {
		free(*a);
		*a = NULL;
		*cut = true;
	}
}

/* P's argv from /proc (else as its notification read it), within the
 * per-image bounds and what is left of the run's budget (ptrace.h). */
static void take_argv(struct cw_run *run, struct cw_proc *p)
{
	struct cw_tracker *t = run->tracker;
	size_t left = t->argv_kept < CW_ARGV_RUN_BUDGET ? CW_ARGV_RUN_BUDGET - t->argv_kept : 0;
	bool over = left < CW_ARGV0_KEEP + 64;
	size_t max_bytes = over ? CW_ARGV0_KEEP : left < CW_ARGV_KEEP_BYTES ? left : CW_ARGV_KEEP_BYTES;
	/* the cost of an argument is at least its pointer, a byte and the
	 * allocator's header: no more of them than the budget pays for */
	size_t per_arg = 1 + ARG_OVERHEAD;
	size_t max_args = over ? 1 : left / per_arg < CW_ARGV_KEEP_ARGS ? left / per_arg : CW_ARGV_KEEP_ARGS;
	bool cut = false;
	cw_tracker_free_argv(p->argv);
	p->argv = cw_tracker_read_cmdline(p->pid, max_bytes, max_args ? max_args : 1, &cut);
	if ((!p->argv || !p->argv[0]) && p->pending_argv) {
		/* Already gone (a zombie has no cmdline): as notified. */
		cw_tracker_free_argv(p->argv);
		p->argv = p->pending_argv;
		p->pending_argv = NULL;
		cut = p->pending_argv_truncated;
		if (over || argv_cost(p->argv) > left)
			argv_keep_first(p->argv, &cut);
	} else if (over && p->argv) {
		argv_keep_first(p->argv, &cut);
	}
	p->argv_truncated = cut;
	t->argv_kept += argv_cost(p->argv);
}

/* A process runs a new program (its exec happened): the previous image
 * gets its own record, the process_spawn deferred at the notification is
 * counted, and exe and argv are read back from /proc and traced. */
void cw_tracker_record_exec(struct cw_run *run, struct cw_proc *p)
{
	if (p->execed) {
		/* The pid runs a new program (a script's "exec python ...", a
		 * shell's last command): the previous one gets its own record,
		 * ended now, without an exit status. */
		struct cw_proc *old = calloc(1, sizeof(*old));
		if (old) {
			*old = *p;
			old->alive = false;
			old->end = cw_record_time(run);
			old->exited = false;
			old->signal = 0;
			old->pending_exec = NULL;
			old->pending_argv = NULL;
			p->prev_image = old;
			p->exe = NULL;
			p->argv = NULL;
			p->argv_truncated = false;
			p->start = old->end;
		}
	}
	p->execed = true;
	char *decided = p->pending_exec; /* the path the notification decided */
	p->pending_exec = NULL;
	if (decided)
		cw_report_count_capability(run->report, CW_CAP_PROCESS_SPAWN, decided, CW_ALLOW);
	free(p->exe);
	p->exe = cw_tracker_read_exe(p->pid);
	if (!p->exe && decided) {
		/* Gone before it could be read (the kernel back end sees the
		 * exec after the fact): the name its notification decided. */
		p->exe = decided;
		decided = NULL;
	}
	free(decided);
	take_argv(run, p);
	cw_tracker_free_argv(p->pending_argv);
	p->pending_argv = NULL;
	if (p->pid == run->child)
		run->child_execed = true;
	p->preload = cw_annot_exec(run, p->pid);
	run->events++;
	cw_trace_exec_write(&run->tj, ++run->seq, cw_record_time(run), p->pid, p->ppid,
			    p->exe, (const char *const *)p->argv, p->argv_truncated, p->preload);
	cw_record_trace_emit(run);
}

/* The mapping of PID that holds ADDR, in maps' text: 1 with its device,
 * inode and name (NAME, N bytes, "" when it has none), 0 when no mapping
 * holds it. */
static int map_at_text(pid_t pid, unsigned long addr, dev_t *dev, ino_t *ino, char *name, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char line[PATH_MAX + 256];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, in;
		unsigned maj, mnr;
		int off = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu %n", &lo, &hi, &maj, &mnr, &in, &off) < 5 ||
		    addr < lo || addr >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(name, n, "%s", off > 0 ? line + off : "");
		*dev = makedev(maj, mnr);
		*ino = (ino_t)in;
		found = 1;
	}
	fclose(f);
	return found;
}

/* PROCMAP_QUERY (Linux 6.11; include/uapi/linux/fs.h, newer than the
 * headers this may be built with): one mapping of /proc/PID/maps by
 * address, without the text of all of them. */
struct cw_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define CW_PROCMAP_QUERY _IOWR('f', 17, struct cw_procmap_query)

/* As map_at_text, by PROCMAP_QUERY where the kernel has it (else, and for
 * a name longer than N, the text). */
static int map_at(pid_t pid, unsigned long addr, dev_t *dev, ino_t *ino, char *name, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	name[0] = '\0';
	struct cw_procmap_query q = {
		.size = sizeof(q), .query_addr = addr, /* (flags 0: the mapping that holds it) */
		.vma_name_size = (uint32_t)n, .vma_name_addr = (uint64_t)(uintptr_t)name,
	};
	if (ioctl(fd, CW_PROCMAP_QUERY, &q) < 0) {
		if (errno == ENOENT)
			return 0;
		return map_at_text(pid, addr, dev, ino, name, n); /* ENOTTY, ENAMETOOLONG... */
	}
	*dev = makedev(q.dev_major, q.dev_minor);
	*ino = (ino_t)q.inode;
	return 1;
}

/* The ELF interpreter mapped into PID at its exec stop, when it is not
 * the system's loader: 1 with its name in OUT (a name that still names
 * the mapped file, else its /proc/PID/maps text: then decided as that
 * name, which no profile allows by accident), 0 when there is none or it
 * is the loader. The first instruction tells: without an interpreter the
 * kernel starts the program at its entry, in the mapping of the image
 * itself (IMG, /proc/PID/exe), with one at the interpreter's entry, in
 * the interpreter's mapping. (An image whose own file is mapped under
 * another device number than stat gives, as on some stacked file
 * systems, is then decided by its name as its own interpreter: the same
 * decision.) */
static int mapped_interp(pid_t pid, const struct stat *img, char *out, size_t n)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
		return 0;
	dev_t dev;
	ino_t ino;
	char name[PATH_MAX];
	if (map_at(pid, regs.rip, &dev, &ino, name, sizeof(name)) != 1)
		return 0;
	if (dev == img->st_dev && ino == img->st_ino)
		return 0; /* no interpreter: the program starts itself */
	struct stat st;
	bool names = name[0] == '/' && stat(name, &st) == 0 && st.st_ino == ino && st.st_dev == dev;
	if (names && cw_tracker_system_loader(name, &st))
		return 0;
	snprintf(out, n, "%s", name[0] ? name : "(anonymous interpreter)");
	return 1;
}

/* The exec stop: the new image has not run an instruction yet. Record what
 * the kernel actually executed, and check it against the policy: the
 * notification-time check read memory the target could rewrite; this one
 * reads the kernel's own record (kernel-notes K21). */
static void on_exec(struct cw_run *run, struct cw_proc *p)
{
	unsigned long former = 0;
	if (ptrace(PTRACE_GETEVENTMSG, p->pid, 0, &former) == 0 && (pid_t)former != p->pid) {
		/* A non-leader thread exec'd and took over the leader's pid. */
		struct cw_proc *f = cw_tracker_find(run, (pid_t)former);
		if (f)
			cw_tracker_dead(run, f);
	}
	if (p->pid == run->child && !run->child_execed && cw_tracker_holds_listener(p->pid)) {
		/* Whoever holds the listener can answer for capwatch (K14). */
		kill(p->pid, SIGKILL);
		cw_record_note(run, p->pid, "warning", "the command still held the seccomp listener at exec: killed");
		return;
	}
	/* What the kernel mapped, by descriptor first; its name second. */
	struct stat img;
	int id_err = stat_exe(p->pid, &img);
	cw_tracker_record_exec(run, p);

	/* The image is identified by its device and inode. Its name is
	 * decided on only when it still names that very file (a name may be
	 * missing: longer than PATH_MAX, a deleted file, a memfd; or stale).
	 * Without a usable name, the image must be one that an exec
	 * notification allowed; anything else is killed now, before its
	 * first instruction (it never fails open). */
	bool allowed_by_id = id_err == 0 && cw_tracker_approved(p, &img);
	p->napproved = 0;
	if (id_err < 0) {
		char why[128];
		snprintf(why, sizeof(why), "/proc/PID/exe cannot be opened: %s", strerror(-id_err));
		kill_unidentified(run, p, &img, false, why);
		return;
	}
	if (!names_image(p->exe, &img)) {
		if (allowed_by_id)
			return; /* the file the notification decided on */
		kill_unidentified(run, p, &img, true,
				  p->exe ? "its name no longer names it, and no allowed exec named it"
					 : "its name cannot be read back, and no allowed exec named it");
		return;
	}
	struct cw_op op = { .kind = CW_OP_EXEC, .syscall = "execve", .path = p->exe };
	struct cw_decision d;
	cw_policy_decide(run->profile, &run->ctx, &op, &d);
	/* The ELF interpreter the kernel mapped with it runs first: unless it
	 * is the system's loader, it is a program of its own (an allowed
	 * ELF whose PT_INTERP names a denied one, red team e134). */
	char interp[PATH_MAX];
	const char *denied = p->exe;
	if (d.verdict == CW_ALLOW && mapped_interp(p->pid, &img, interp, sizeof(interp)) == 1) {
		struct cw_op iop = { .kind = CW_OP_EXEC, .syscall = "execve", .path = interp };
		cw_policy_decide(run->profile, &run->ctx, &iop, &d);
		denied = interp;
	}
	if (d.verdict != CW_ALLOW && !run->observe) {
		/* Denied at notification time we would not be here, so the
		 * image changed under us (or it is a script's interpreter that
		 * the profile does not allow). Kill before it runs. */
		kill(p->pid, SIGKILL);
		cw_record_note(run, p->pid, "warning", "exec of %s denied at the exec stop (%s): killed",
			    denied, d.rule);
		run->denials++;
		struct cw_denial_record dr = {
			.pid = p->pid, .program = p->exe, .syscall = "execve", .d = &d,
			.time = cw_record_time(run), .enforced = true, .proc = p->serial,
		};
		cw_report_add_denial(run->report, &dr);
		if (!run->have_denial) {
			run->have_denial = true;
			run->first_denial = d;
		}
	}
}

void cw_tracker_exited(struct cw_run *run, struct cw_proc *p, int status)
{
	if (!p->alive)
		return; /* seen already (the kernel back end hears of it twice) */
	cw_tracker_dead(run, p);
	p->exited = WIFEXITED(status);
	p->code = p->exited ? WEXITSTATUS(status) : 0;
	p->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (!p->is_thread) {
		run->events++;
		cw_trace_exit_write(&run->tj, ++run->seq, cw_record_time(run), p->pid, p->code, p->signal);
		cw_record_trace_emit(run);
	}
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_status(struct cw_run *run, pid_t pid, int status)
{
	struct cw_proc *p = cw_tracker_find(run, pid);
	if (!p || !p->alive) {
		/* Its own stop arrived before the parent's fork event. */
		p = cw_tracker_add(run, pid);
		if (!p)
			return;
		p->unannounced = true;
		status_ids(pid, &p->tgid, &p->ppid);
		p->is_thread = p->tgid != pid;
	}

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		cw_tracker_exited(run, p, status);
		if (pid == run->child) {
			run->child_exited = true;
			run->child_status = status;
		}
		return;
	}
	if (!WIFSTOPPED(status))
		return;

	int event = (unsigned)status >> 16;
	int sig = WSTOPSIG(status);
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		on_new_task(run, p, event);
		cont(pid, 0);
		return;
	case PTRACE_EVENT_EXEC:
		on_exec(run, p);
		cont(pid, 0);
		return;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig)) {
			/* Group-stop: LISTEN keeps it stopped the way job
			 * control expects, and lets SIGCONT resume it. */
			p->group_stopped = true;
			if (ptrace(PTRACE_LISTEN, pid, 0, 0) < 0 && errno != ESRCH)
				cw_debug("PTRACE_LISTEN %d: %s", (int)pid, strerror(errno));
			if (pid == run->child && run->tty_mode && run->stop_requested) {
				/* The terminal stopped the job: stop capwatch too, so
				 * that the shell sees the job stopped (it waits for
				 * capwatch, not for the command). SIGCONT from `fg`
				 * resumes capwatch and the command's group alike. */
				run->stop_requested = false;
				cw_record_trace_flush(run);
				raise(SIGSTOP);
			}
			return;
		}
		/* The first stop of an auto-attached task, or a re-trap after
		 * SIGCONT ended a group-stop. */
		p->group_stopped = false;
		cont(pid, 0);
		return;
	default:
		break;
	}
	/* Signal-delivery-stop: deliver the signal as if we were not here. */
	if (run->tracker->killable_recv)
		restart_unreceived(run, p, pid);
	cont(pid, sig);
}

/* --- calls a signal interrupted before capwatch received them --- */

#ifndef ERESTARTSYS
#define ERESTARTSYS 512   /* include/linux/errno.h: never seen by user space */
#define ERESTARTNOINTR 513
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#define CW_USER_CS_64 0x33 /* x86_64 user code segment: a 64-bit syscall */

void cw_tracker_note_continue(struct cw_run *run, pid_t tid, const struct seccomp_notif *req)
{
	if (run->tracker_ops != &cw_tracker_ptrace || !run->tracker->killable_recv)
		return;
	struct cw_proc *p = cw_tracker_find(run, tid);
	if (!p)
		return;
	p->continued.set = true;
	p->continued.nr = req->data.nr;
	memcpy(p->continued.args, req->data.args, sizeof(p->continued.args));
	p->continued.ip = req->data.instruction_pointer;
}

/* Calls whose own body never sleeps interruptibly: -ERESTARTSYS from one
 * of them came from the wait for capwatch, even when capwatch let an
 * identical one (a kill(getpid(), 0) loop) CONTINUE just before. */
static bool never_interrupted(int nr)
{
	switch (nr) {
	case __NR_kill: case __NR_tkill: case __NR_tgkill:
	case __NR_rt_sigqueueinfo: case __NR_rt_tgsigqueueinfo: case __NR_pidfd_send_signal:
	case __NR_pidfd_open: case __NR_prlimit64: case __NR_setpriority:
	case __NR_sched_setaffinity: case __NR_sched_setscheduler: case __NR_sched_setparam:
	case __NR_sched_setattr: case __NR_ioprio_set: case __NR_kcmp:
		return true;
	default:
		return false;
	}
}

/* A handler installed without SA_RESTART turns an interrupted wait for
 * capwatch's answer into EINTR (kernel/seccomp.c returns -ERESTARTSYS
 * when a signal comes before the listener received the call; after that
 * the wait is killable only), on calls such as kill() or open() of a
 * regular file that the kernel alone never interrupts (issue 17 item 3).
 * Such a call has not run at all: nothing of it happened in the kernel
 * nor in capwatch. At the signal-delivery-stop its return value is still
 * -ERESTARTSYS, and -ERESTARTNOINTR instead makes the kernel restart it
 * after the handler whatever SA_RESTART says, as if the signal had come
 * just before the call. The same value also comes from a call whose own
 * body was interrupted after capwatch let it CONTINUE (a FIFO open under
 * --observe, say): that one must stay EINTR, as bare. The thread's last
 * CONTINUE is remembered; a call with its number, arguments and return
 * address is left alone (it may be that one), so only a call capwatch
 * never let run is restarted. Only unconditionally notified numbers
 * qualify: a conditionally notified one (sendto without an address) may
 * have run in the kernel without capwatch. */
static void restart_unreceived(struct cw_run *run, struct cw_proc *p, pid_t pid)
{
	struct user_regs_struct regs;
	if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
		return;
	if ((int64_t)regs.rax != -ERESTARTSYS || regs.cs != CW_USER_CS_64)
		return;
	int64_t nr = (int64_t)regs.orig_rax;
	if (nr < 0 || nr >= CW_NSYSCALLS)
		return;
	enum cw_filter_rule rule = cw_syscalls[nr].rule;
	if (rule != CW_RULE_NOTIFY && rule != CW_RULE_ESCAPE && rule != CW_RULE_NONE)
		return;
	/* Under --observe every call continues, and one that would sleep in
	 * its own body (a FIFO open, a connect) takes a signal that comes
	 * before the call as EINTR, bare: only the calls that never sleep
	 * interruptibly are restarted there (red team e141). Enforcing,
	 * capwatch performs such calls itself, and a signal does not end
	 * them after it has received them either (capwatch(1), "Signals"). */
	if (run->observe && !never_interrupted((int)nr))
		return;
	uint64_t args[6] = { regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9 };
	if (!never_interrupted((int)nr) && p->continued.set && p->continued.nr == nr &&
	    p->continued.ip == regs.rip &&
	    memcmp(p->continued.args, args, sizeof(args)) == 0)
		return;
	regs.rax = (unsigned long long)-ERESTARTNOINTR;
	if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0)
		cw_debug("PTRACE_SETREGS %d: %s", (int)pid, strerror(errno));
}

/* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV known to this kernel? Flags are
 * checked before the program is read: EFAULT on a NULL program means
 * known, EINVAL unknown. Nothing is installed either way. */
static bool probe_killable_recv(void)
{
	long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			 SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, NULL);
	return r < 0 && errno == EFAULT;
}

/* --- ptrace back end --- */

static int ptrace_attach(struct cw_run *run, pid_t child)
{
	long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
		    PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SEIZE, child, 0, (void *)opts) < 0)
		return -errno;
	run->tracker->killable_recv = probe_killable_recv();
	struct cw_proc *p = cw_tracker_add(run, child);
	if (!p)
		return -ENOMEM;
	p->ppid = getpid();
	return 0;
}

static void ptrace_reap(struct cw_run *run)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0 && errno == ECHILD && run->tracker->nalive) {
			/* The kernel says no tracee is left: an entry we still
			 * think alive missed its exit. Never wait for it. */
			struct cw_tracker *t = run->tracker;
			for (size_t i = 0; i < t->nprocs; i++)
				if (t->procs[i]->alive) {
					cw_debug("pid %d: no exit seen, gone", (int)t->procs[i]->pid);
					cw_tracker_dead(run, t->procs[i]);
				}
			return;
		}
		if (pid <= 0)
			return;
		on_status(run, pid, status);
	}
}

static size_t ptrace_alive(const struct cw_run *run)
{
	return run->tracker->nalive;
}

static void ptrace_kill_all(struct cw_run *run, int sig)
{
	struct cw_tracker *t = run->tracker;
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i]->alive && !t->procs[i]->is_thread)
			kill(t->procs[i]->pid, sig);
	if (!run->tty_mode && run->child > 0)
		kill(-run->child, sig);
}

const struct cw_tracker_ops cw_tracker_ptrace = {
	.name = "ptrace",
	.attach = ptrace_attach,
	.reap = ptrace_reap,
	.alive = ptrace_alive,
	.kill_all = ptrace_kill_all,
};

/* --- wait-only back end (degraded: no ptrace) --- */

static int waitonly_attach(struct cw_run *run, pid_t child)
{
	struct cw_proc *p = cw_tracker_add(run, child);
	if (!p)
		return -ENOMEM;
	p->ppid = getpid();
	return 0;
}

static void waitonly_reap(struct cw_run *run)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(run->child, &status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (pid == run->child)
		on_status(run, pid, status);
}

static size_t waitonly_alive(const struct cw_run *run)
{
	/* Descendants are invisible: the listener's EPOLLHUP tells when the
	 * last filtered task is gone. */
	return (run->child_exited ? 0 : 1) + (run->listener_hup || run->listener < 0 ? 0 : 1);
}

static void waitonly_kill_all(struct cw_run *run, int sig)
{
	if (run->child > 0) {
		kill(run->child, sig);
		if (!run->tty_mode)
			kill(-run->child, sig);
	}
}

const struct cw_tracker_ops cw_tracker_waitonly = {
	.name = "wait",
	.attach = waitonly_attach,
	.reap = waitonly_reap,
	.alive = waitonly_alive,
	.kill_all = waitonly_kill_all,
};

static void report_one(struct cw_run *run, const struct cw_proc *p);

bool cw_tracker_defer_exec(struct cw_run *run, pid_t tgid, const char *scope)
{
	if (run->tracker_ops != &cw_tracker_ptrace && run->tracker_ops != &cw_tracker_kernel)
		return false;
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (!p || !p->alive)
		return false;
	/* A previous pending exec that never reached its stop failed. */
	free(p->pending_exec);
	p->pending_exec = strdup(scope);
	return p->pending_exec != NULL;
}

void cw_tracker_report(struct cw_run *run)
{
	struct cw_tracker *t = run->tracker;
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++) {
		if (t->procs[i]->is_thread)
			continue;
		/* Oldest image first. */
		struct cw_proc *chain[64];
		size_t n = 0;
		for (struct cw_proc *p = t->procs[i]; p && n < CW_ARRAY_SIZE(chain); p = p->prev_image)
			chain[n++] = p;
		while (n--) {
			report_one(run, chain[n]);
			/* the report holds its own copy from now on: this one
			 * would double what argv costs at the end of a run */
			cw_tracker_free_argv(chain[n]->argv);
			chain[n]->argv = NULL;
		}
	}
}

static void report_one(struct cw_run *run, const struct cw_proc *p)
{
	struct cw_proc_record r = {
		.pid = p->pid, .ppid = p->ppid, .exe = p->exe,
		.argv = (const char *const *)p->argv,
		.start = p->start, .end = p->alive ? -1 : p->end,
		.exited = p->exited, .code = p->code, .signal = p->signal,
		.preload = p->preload ? p->preload : "unknown",
		.proc = p->serial,
		.argv_truncated = p->argv_truncated,
	};
	cw_report_add_process(run->report, &r);
}
