/* One run: set up (profile, workspace, scratch, environment, outputs),
 * launch, loop, then the outcome, the report and the exit status
 * (contract sections 1 and 4). The report is written on every path out of
 * here once its destination is open. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "supervisor/colocate.h"
#include "supervisor/run.h"
#include "supervisor/annot.h"
#include "supervisor/approval.h"
#include "supervisor/hosts.h"
#include "supervisor/kernel.h"
#include "supervisor/fds.h"
#include "supervisor/secret_ids.h"
#include "supervisor/filter.h"
#include "supervisor/landlock.h"
#include "supervisor/launch.h"
#include "supervisor/limits.h"
#include "supervisor/log.h"
#include "supervisor/notify.h"
#include "policy/profile_load.h"
#include "supervisor/ptrace.h"
#include "supervisor/resolve.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "supervisor/watchdog.h"

extern char **environ;

#define TRACE_BUF (256 * 1024)

double cw_run_time(const struct cw_run *run)
{
	return cw_now() - run->t0;
}

/* ---- the trace ---- */

/* Write all N bytes; *DONE says how many went either way. EFBIG: a soft
 * RLIMIT_FSIZE lowered on capwatch since it started (SIGXFSZ is ignored,
 * so the write fails instead of killing us): raised again to the hard
 * limit and tried once more. */
static int write_all_n(int fd, const char *buf, size_t n, size_t *done)
{
	bool raised = false;
	*done = 0;
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EFBIG && !raised) {
				raised = true;
				cw_limits_own_raise();
				continue;
			}
			return -errno;
		}
		if (w == 0)
			return -EIO;
		buf += w;
		n -= (size_t)w;
		*done += (size_t)w;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	size_t done;
	return write_all_n(fd, buf, n, &done);
}

/* The trace keeps every event up to a write failure (EFBIG, ENOSPC...):
 * a line cut by the failure is taken off again (back to the last
 * newline written, when the file can be truncated), and nothing is
 * written after it, so the file stays valid JSONL with no gap. */
static void trace_failed(struct cw_run *run, int err, off_t cut)
{
	if (cut >= 0 && ftruncate(run->trace_fd, cut) == 0)
		lseek(run->trace_fd, cut, SEEK_SET);
	run->trace_failed = true;
	cw_err("writing the trace failed: %s; it ends at the last complete event written", strerror(-err));
}

void cw_run_trace_flush(struct cw_run *run)
{
	run->last_flush = cw_now();
	if (run->trace_fd < 0 || run->tlen == 0)
		return;
	if (run->trace_failed) {
		run->tlen = 0;
		return;
	}
	off_t base = lseek(run->trace_fd, 0, SEEK_CUR); /* -1 on a pipe */
	size_t done;
	int e = write_all_n(run->trace_fd, run->tbuf, run->tlen, &done);
	if (e < 0) {
		const char *nl = done ? memrchr(run->tbuf, '\n', done) : NULL;
		size_t keep = nl ? (size_t)(nl - run->tbuf) + 1 : 0;
		trace_failed(run, e, base >= 0 && keep < done ? base + (off_t)keep : -1);
	}
	run->tlen = 0;
}

void cw_run_trace_emit(struct cw_run *run)
{
	struct cw_jbuf *j = &run->tj;
	if (run->trace_fd >= 0 && !j->oom) {
		if (run->tlen + j->len + 1 > run->tcap)
			cw_run_trace_flush(run);
		if (j->len + 1 > run->tcap) {
			/* A line bigger than the buffer: write it directly. */
			if (!run->trace_failed) {
				off_t base = lseek(run->trace_fd, 0, SEEK_CUR);
				int e = write_all(run->trace_fd, j->buf, j->len);
				if (e == 0)
					e = write_all(run->trace_fd, "\n", 1);
				if (e < 0)
					trace_failed(run, e, base);
			}
		} else {
			memcpy(run->tbuf + run->tlen, j->buf, j->len);
			run->tlen += j->len;
			run->tbuf[run->tlen++] = '\n';
		}
	}
	cw_jbuf_reset(j);
}

void cw_run_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cw_log(strcmp(level, "warning") == 0 ? CW_LOG_WARNING : CW_LOG_INFO, "%s", msg);
	run->events++;
	cw_trace_note_write(&run->tj, ++run->seq, cw_run_time(run), pid, level, msg);
	cw_run_trace_emit(run);
}

/* ---- changes ---- */

struct change {
	char *path, *path2;     /* path2: rename target */
	enum cw_change_kind kind;
	bool existed;
	struct stat before;
};

struct cw_changes {
	struct change *v;
	size_t n, cap;
	size_t *index; /* open addressing on path (renames are not indexed) */
	size_t index_cap;
};

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int changes_grow(struct cw_changes *c)
{
	size_t ncap = c->index_cap ? c->index_cap * 2 : 1024;
	size_t *ni = calloc(ncap, sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].kind == CW_CHANGE_RENAME)
			continue;
		size_t h = hash_str(c->v[i].path) & (ncap - 1);
		while (ni[h])
			h = (h + 1) & (ncap - 1);
		ni[h] = i + 1;
	}
	free(c->index);
	c->index = ni;
	c->index_cap = ncap;
	return 0;
}

void cw_run_change(struct cw_run *run, enum cw_change_kind kind, const char *path, const char *path2)
{
	struct cw_changes *c = run->changes;
	if (!c || !path)
		return;
	size_t *slot = NULL;
	if (kind != CW_CHANGE_RENAME) {
		if ((c->n + 1) * 2 > c->index_cap && changes_grow(c) < 0)
			return;
		size_t h = hash_str(path) & (c->index_cap - 1);
		while (c->index[h]) {
			if (strcmp(c->v[c->index[h] - 1].path, path) == 0)
				return; /* first touch decides the "before" state */
			h = (h + 1) & (c->index_cap - 1);
		}
		slot = &c->index[h];
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct change *nv = realloc(c->v, ncap * sizeof(*nv));
		if (!nv)
			return;
		c->v = nv;
		c->cap = ncap;
	}
	struct change *ch = &c->v[c->n];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->path = strdup(path);
	ch->path2 = path2 ? strdup(path2) : NULL;
	if (!ch->path || (path2 && !ch->path2)) {
		free(ch->path);
		free(ch->path2);
		return;
	}
	ch->existed = cw_stat_long(path, &ch->before, false) == 0; /* also deeper than PATH_MAX */
	c->n++;
	if (slot)
		*slot = c->n;
}

static bool same_state(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mode == b->st_mode &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* outcome.changes: the net effect on disk of the writes capwatch let
 * through, so that a write that failed (or was undone) leaves nothing. */
static void changes_report(struct cw_run *run)
{
	struct cw_changes *c = run->changes;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct change *ch = &c->v[i];
		struct stat now;
		bool exists = cw_stat_long(ch->path, &now, false) == 0;
		if (ch->kind == CW_CHANGE_RENAME) {
			struct stat st2;
			if (ch->existed && !exists && ch->path2 && cw_stat_long(ch->path2, &st2, false) == 0)
				cw_report_add_change(run->report, "renamed", ch->path, ch->path2);
			continue;
		}
		if (!ch->existed && exists)
			cw_report_add_change(run->report, "created", ch->path, NULL);
		else if (ch->existed && !exists)
			cw_report_add_change(run->report, "deleted", ch->path, NULL);
		else if (ch->existed && exists && !same_state(&ch->before, &now))
			cw_report_add_change(run->report, "modified", ch->path, NULL);
	}
}

static void changes_free(struct cw_changes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].path2);
	}
	free(c->v);
	free(c->index);
	free(c);
}

/* ---- setup helpers ---- */

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int push_str(char ***arr, size_t *n, char *s)
{
	if (!s)
		return -ENOMEM;
	char **a = realloc(*arr, (*n + 2) * sizeof(*a));
	if (!a) {
		free(s);
		return -ENOMEM;
	}
	a[(*n)++] = s;
	a[*n] = NULL;
	*arr = a;
	return 0;
}

/* An absolute, normalized name for a file that may not exist yet. */
static char *abs_name(const char *cwd, const char *file)
{
	char real[PATH_MAX], out[PATH_MAX + 16];
	if (realpath(file, real))
		return strdup(real);
	if (cw_path_normalize(cwd, file, out, sizeof(out)) < 0)
		return NULL;
	return strdup(out);
}

/* Find COMMAND like execvp does. Returns 0 with *OUT, -ENOENT (127) or
 * -EACCES (126). */
static int find_command(const char *cmd, const char *path_env, char **out)
{
	struct stat st;
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return (errno == ENOENT || errno == ENOTDIR) ? -ENOENT : -EACCES;
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return -EACCES;
		*out = strdup(cmd);
		return *out ? 0 : -ENOMEM;
	}
	const char *p = path_env && *path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
	bool seen_eacces = false;
	while (*p) {
		size_t n = strcspn(p, ":");
		char buf[PATH_MAX];
		int k;
		if (n == 0)
			k = snprintf(buf, sizeof(buf), "./%s", cmd); /* empty entry: cwd */
		else
			k = snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, cmd);
		if (k > 0 && (size_t)k < sizeof(buf) && stat(buf, &st) == 0) {
			if (!S_ISDIR(st.st_mode) && access(buf, X_OK) == 0) {
				*out = strdup(buf);
				return *out ? 0 : -ENOMEM;
			}
			seen_eacces = true;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return seen_eacces ? -EACCES : -ENOENT;
}

static bool env_kept(const char *entry, const struct cw_options *o)
{
	static const char *const keep[] = { "PATH", "HOME", "LANG", "TERM", "TZ", "USER", "LOGNAME" };
	size_t n = strcspn(entry, "=");
	if (n == 6 && strncmp(entry, "TMPDIR", 6) == 0)
		return false; /* replaced by the scratch directory */
	for (size_t i = 0; i < CW_ARRAY_SIZE(keep); i++)
		if (strlen(keep[i]) == n && strncmp(entry, keep[i], n) == 0)
			return true;
	if (n >= 3 && strncmp(entry, "LC_", 3) == 0)
		return true;
	for (size_t i = 0; i < o->nenv_pass; i++)
		if (strlen(o->env_pass[i]) == n && strncmp(entry, o->env_pass[i], n) == 0)
			return true;
	return false;
}

static int build_env(struct cw_run *run, bool full)
{
	size_t n = 0;
	for (char **e = environ; *e; e++) {
		if (full ? strncmp(*e, "TMPDIR=", 7) == 0 : !env_kept(*e, run->opts))
			continue;
		if (push_str(&run->envp, &n, strdup(*e)) < 0)
			return -ENOMEM;
	}
	if (run->scratch) {
		char *t;
		if (asprintf(&t, "TMPDIR=%s", run->scratch) < 0 || push_str(&run->envp, &n, t) < 0)
			return -ENOMEM;
		/* Per-user caches (~/.npm, ~/.cache/pip, go's, ccache's) lie
		 * outside every workspace: under a profile that does not
		 * allow writes there, npm exits 243 with no message. Unless
		 * the command's environment names them, they go to the run's
		 * scratch (cold, removed with it): the build works and the
		 * user's caches cannot be poisoned (issue 17 item 9). */
		static const char *const caches[][2] = {
			{ "XDG_CACHE_HOME", "" }, { "npm_config_cache", "/npm" },
			{ "PIP_CACHE_DIR", "/pip" }, { "GOMODCACHE", "/go-mod" },
			{ "CCACHE_DIR", "/ccache" }, { "YARN_CACHE_FOLDER", "/yarn" },
		};
		if (cw_profile_default(run->profile, CW_CAP_UNRESTRICTED) != CW_ALLOW && !run->observe)
			for (size_t i = 0; i < CW_ARRAY_SIZE(caches); i++) {
				size_t nl = strlen(caches[i][0]);
				bool named = false;
				for (size_t k = 0; k < n; k++)
					named |= strncmp(run->envp[k], caches[i][0], nl) == 0 && run->envp[k][nl] == '=';
				if (named)
					continue;
				if (asprintf(&t, "%s=%s/cache%s", caches[i][0], run->scratch, caches[i][1]) < 0 ||
				    push_str(&run->envp, &n, t) < 0)
					return -ENOMEM;
				run->caches_redirected = true;
			}
	}
	if (!run->envp)
		run->envp = calloc(1, sizeof(char *));
	return run->envp ? 0 : -ENOMEM;
}

/* Comma-separated names of the variables the sanitizer would drop. */
static char *dropped_env_names(const struct cw_run *run)
{
	size_t cap = 256, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (char **e = environ; *e; e++) {
		if (env_kept(*e, run->opts))
			continue;
		size_t n = strcspn(*e, "=");
		if (len + n + 2 > cap) {
			cap = (len + n + 2) * 2;
			char *ns = realloc(s, cap);
			if (!ns) {
				free(s);
				return NULL;
			}
			s = ns;
		}
		if (len)
			s[len++] = ',';
		memcpy(s + len, *e, n);
		len += n;
		s[len] = '\0';
	}
	return s;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void remove_scratch(struct cw_run *run)
{
	if (!run->scratch)
		return;
	if (run->opts->keep_scratch) {
		cw_info("scratch directory kept: %s", run->scratch);
		return;
	}
	/* FTW_PHYS: never follow a symlink the command left behind. */
	nftw(run->scratch, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int open_output(const char *file)
{
	return open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
}

static void rfc3339_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The file the report spills denials to (report.h): opened before the
 * command exists, and nameless (O_TMPFILE), so nothing of the tree can
 * open it; where O_TMPFILE is not supported, a private name unlinked at
 * once, still before the command starts. Only capwatch's descriptor
 * reaches it (O_CLOEXEC; /proc/PID/fd is closed to the tree because
 * capwatch is not dumpable). */
static int open_spill(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/.capwatch-spill-XXXXXX", dir);
	fd = mkostemp(p, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(p);
	return fd;
}

/* The report's I/O (policy/ makes no system calls): plain descriptors. */
static int io_write(int fd, const char *p, size_t n, size_t *done)
{
	return write_all_n(fd, p, n, done);
}

static ssize_t io_pread(int fd, char *p, size_t n, uint64_t off)
{
	for (;;) {
		ssize_t k = pread(fd, p, n, (off_t)off);
		if (k >= 0 || errno != EINTR)
			return k < 0 ? -errno : k;
	}
}

static void io_close(int fd)
{
	close(fd);
}

static const struct cw_report_io report_io = { io_write, io_pread, io_close };

/* Bound the memory the report's denials take: every denial past the first
 * CW_REPORT_KEEP_DENIALS goes to the spill file (or, when no report will
 * be written, is only counted). Without a spill file they stay in memory,
 * as before: slower to grow out of bounds than to lose a denial. */
static void setup_spill(struct cw_run *run, const char *dir)
{
	if (run->report_fd < 0) {
		cw_report_set_spill(run->report, CW_REPORT_SPILL_DISCARD, CW_REPORT_KEEP_DENIALS, NULL);
		return;
	}
	int fd = open_spill(dir);
	if (fd < 0) {
		cw_warn("no spill file for the report in %s (%s): denials are kept in memory",
			dir, strerror(-fd));
		return;
	}
	if (cw_report_set_spill(run->report, fd, CW_REPORT_KEEP_DENIALS, &report_io) < 0) {
		close(fd);
		cw_warn("the report's spill file could not be set up: denials are kept in memory");
	}
}

/* "Seccomp:" of /proc/self/status: 0 none, 1 strict, 2 filter. */
static int seccomp_mode(void)
{
	char buf[4096];
	_cleanup_close_ int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strstr(buf, "\nSeccomp:");
	return p ? atoi(p + 9) : -1;
}

/* ---- outcome ---- */

struct outcome {
	const char *state, *kind;
	bool has_exit;
	int code, signal;
	const struct cw_decision *denial;
	int status; /* capwatch's exit status */
};

/* Put back the report file to offset START after a failed write that
 * left its end at the current offset, for the minimal report: truncated
 * when the file allows it, else (an append-only inode refuses ftruncate
 * but not a write at an offset of a descriptor opened before it became
 * append-only) the minimal report is written over the start and the rest
 * of the partial one blanked with spaces, JSON whitespace. Returns the
 * bytes to blank after the minimal report's, or -errno when there is no
 * going back (a pipe, an O_APPEND descriptor on an append-only file). */
static off_t rewind_report(int fd, off_t start)
{
	off_t end = lseek(fd, 0, SEEK_CUR);
	if (start < 0 || end < start)
		return -ESPIPE;
	if (ftruncate(fd, start) == 0)
		return lseek(fd, start, SEEK_SET) == start ? 0 : -errno;
	int e = -errno;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_APPEND) || lseek(fd, start, SEEK_SET) != start)
		return e;
	return end - start;
}

/* The report always exists (issue 14): when the full document cannot be
 * written (EFBIG under a hard RLIMIT_FSIZE, ENOSPC, ...), what was
 * written of it is taken back and a minimal valid report put in its
 * place, naming the reason. Returns true when the descriptor holds a
 * valid report; false after a one-line error saying it does not. */
static bool put_report(struct cw_run *run)
{
	int fd = run->report_fd;
	off_t start = lseek(fd, 0, SEEK_CUR);
	int e = cw_report_write(run->report, fd, &report_io);
	if (e == 0)
		return true;
	char reason[200];
	snprintf(reason, sizeof(reason), "the full report could not be written (%s): this is the "
		 "minimal report, the trace has the run", strerror(-e));
	struct cw_report_minimal m = { .reason = reason, .events = run->events,
				       .notifications = run->notifications,
				       .elapsed = cw_run_time(run) };
	_cleanup_free_ char *text = cw_report_render_minimal(run->report, &m);
	off_t blank = rewind_report(fd, start);
	int e2 = !text ? -ENOMEM : blank < 0 ? (int)blank : 0;
	size_t len = text ? strlen(text) : 0, done;
	if (e2 == 0)
		e2 = write_all_n(fd, text, len, &done);
	if (e2 == 0 && blank > (off_t)len) {
		/* spaces up to the old end, then one newline */
		char sp[4096];
		memset(sp, ' ', sizeof(sp));
		for (off_t left = blank - (off_t)len; left > 0 && e2 == 0;) {
			size_t k = left > (off_t)sizeof(sp) ? sizeof(sp) : (size_t)left;
			if (left == (off_t)k)
				sp[k - 1] = '\n';
			e2 = write_all_n(fd, sp, k, &done);
			left -= (off_t)k;
		}
	}
	if (e2 == 0) {
		cw_err("writing the report failed (%s): a minimal report was written instead", strerror(-e));
		return true;
	}
	cw_err("writing the report failed (%s) and no minimal report could replace it (%s): "
	       "the report is incomplete and not valid JSON", strerror(-e), strerror(-e2));
	return false;
}

/* The back end as the report and the trace name it. */
static const char *backend_name(const struct cw_run *run)
{
	return run->backend && strcmp(run->backend, "kernel") == 0 ? "seccomp-unotify+cgroup+fanotify"
								     : "seccomp-unotify+ptrace";
}

/* --backend: the kernel back end where asked for or (auto) where this
 * machine allows it, else the portable one; the reason goes in the
 * report. Returns false when the kernel one was required and cannot be. */
static bool choose_backend(struct cw_run *run)
{
	char why[200] = "";
	run->backend = "portable";
	if (run->opts->backend == CW_BACKEND_PORTABLE) {
		snprintf(run->backend_reason, sizeof(run->backend_reason), "--backend portable");
		return true;
	}
	int e = seccomp_mode() == 2 ? -EBUSY : cw_kernel_probe(run, why, sizeof(why));
	if (e == -EBUSY && !why[0])
		snprintf(why, sizeof(why), "capwatch itself runs under a seccomp filter (nested)");
	if (e == 0) {
		run->backend = "kernel";
		snprintf(run->backend_reason, sizeof(run->backend_reason), "%s",
			 run->opts->backend == CW_BACKEND_KERNEL ? "--backend kernel"
								 : "auto: root, cgroup v2, fanotify and the proc connector are available");
		return true;
	}
	if (run->opts->backend == CW_BACKEND_KERNEL) {
		cw_err("--backend kernel: %s", why);
		return false;
	}
	snprintf(run->backend_reason, sizeof(run->backend_reason), "auto: kernel back end unavailable: %s", why);
	return true;
}

/* Returns false when a report was asked for and none valid could be
 * written (capwatch then exits 125, contract section 1). */
static void set_enforcement(struct cw_run *run)
{
	if (!run->report)
		return;
	const char *layers[12];
	size_t nl = 0;
	if (!run->no_listener) {
		layers[nl++] = "seccomp-bpf";
		layers[nl++] = "seccomp-unotify";
	}
	if (run->tracker_ops == &cw_tracker_ptrace)
		layers[nl++] = "ptrace";
	if (run->tracker_ops == &cw_tracker_kernel)
		layers[nl++] = cw_kernel_layers();
	if (run->child > 0 && run->privs.layer[0])
		layers[nl++] = run->privs.layer;
	if (run->child > 0 && run->privs.layer_ns[0])
		layers[nl++] = run->privs.layer_ns;
	if (run->child > 0 && cw_landlock_layer())
		layers[nl++] = cw_landlock_layer();
	/* Without a pids cgroup the tracker's count keeps the process limit:
	 * ptrace's (at the fork stop) or the connector's (at the fork event,
	 * processes only, after the child may have run briefly). */
	const char *lim = cw_limits_layer();
	if (run->child > 0 && lim && strcmp(lim, CW_LIMITS_TRACKER_LAYER) != 0)
		layers[nl++] = lim;
	else if (run->child > 0 && lim && run->tracker_ops == &cw_tracker_ptrace)
		layers[nl++] = lim;
	else if (run->child > 0 && lim && run->tracker_ops == &cw_tracker_kernel)
		layers[nl++] = "connector-task-count";
	layers[nl] = NULL;
	struct cw_enforcement enf = {
		.backend = backend_name(run),
		.backend_reason = run->backend_reason[0] ? run->backend_reason : NULL,
		.level = run->observe ? "observe" : "enforce",
		.degraded = run->degraded,
		.downgrade_reason = run->degraded ? run->downgrade_reason : "",
		.layers = layers,
	};
	cw_report_set_enforcement(run->report, &enf);
}

static bool write_report(struct cw_run *run, const struct outcome *o)
{
	/* One writer: the --timeout watchdog may have taken the report
	 * because this thread was stuck; it writes it and exits. */
	if (!cw_watchdog_claim_report())
		for (;;)
			pause();
	/* Every event so far is in the trace before the report is tried. */
	cw_run_trace_flush(run);
	if (!run->report)
		return run->report_fd < 0;
	set_enforcement(run);
	cw_report_set_outcome(run->report, o->state, o->kind, o->has_exit, o->code, o->signal, o->denial);
	cw_annot_report(run);
	struct cw_colocate_stats cs;
	if (cw_colocate_get_stats(&cs)) {
		struct cw_report_colocation rc = {
			.addfds = cs.addfds, .rejoins = cs.rejoins, .rescues = cs.rescues, .backoffs = cs.backoffs,
		};
		cw_report_set_colocation(run->report, &rc);
	}
	cw_tracker_report(run);
	changes_report(run);
	cw_report_set_stats(run->report, run->events, run->notifications, cw_run_time(run));
	/* Written as it is rendered, element by element, with the spilled
	 * denials read back from their file: the peak does not grow with the
	 * run. Nothing is rendered when there is nowhere to write it. */
	return run->report_fd < 0 || put_report(run);
}

static void finish_trace(struct cw_run *run, const struct outcome *o)
{
	if (run->trace_fd < 0)
		return;
	cw_trace_summary_write(&run->tj, ++run->seq, cw_run_time(run), run->events, run->denials,
			       o->state, o->kind, cw_run_time(run));
	cw_run_trace_emit(run);
	cw_run_trace_flush(run);
}

int cw_run_emergency_report(struct cw_run *run, const char *state, const char *kind, const char *reason)
{
	int e = 0;
	if (run->report && run->report_fd >= 0) {
		/* The counters are read while their threads are stuck (or
		 * gone on): informative only. */
		struct cw_report_minimal m = { .state = state, .kind = kind, .reason = reason,
					       .events = run->events, .notifications = run->notifications,
					       .elapsed = cw_run_time(run) };
		_cleanup_free_ char *text = cw_report_render_minimal(run->report, &m);
		size_t done;
		e = text ? write_all_n(run->report_fd, text, strlen(text), &done) : -ENOMEM;
	}
	remove_scratch(run);
	return e;
}

/* The kind of a command that was never executed, by capwatch's exit
 * status for it (contract section 1): 127, not found, is
 * executable_not_found; 126, there but not executable (mode without x, a
 * directory, a format the kernel refuses), has no kind of its own in the
 * contract's list and is application_failure without "exit": the fault is
 * in the command as given (change_command), not in the policy
 * (policy_denied) or in capwatch (sandbox_setup_failure), and no "exit"
 * tells it from a command that ran and failed. man capwatch, EXIT STATUS. */
static const char *unstarted_kind(int status)
{
	return status == CW_EXIT_NOT_FOUND ? "executable_not_found" : "application_failure";
}

/* Outcome for a run that never started the command. */
static int end_unstarted(struct cw_run *run, const char *state, const char *kind,
			 const struct cw_decision *denial, int status)
{
	struct outcome o = { .state = state, .kind = kind, .denial = denial, .status = status };
	bool ok = write_report(run, &o);
	finish_trace(run, &o);
	return ok ? status : CW_EXIT_FAILURE;
}

static void compute_outcome(struct cw_run *run, struct outcome *o)
{
	int st = run->child_status;
	memset(o, 0, sizeof(*o));
	if (run->start_denied && !run->child_execed) {
		o->state = "denied";
		o->kind = "policy_denied";
		o->denial = &run->first_denial;
		o->status = CW_EXIT_CANNOT_EXEC;
		return;
	}
	if (!run->child_execed && WIFEXITED(st) &&
	    (WEXITSTATUS(st) == CW_EXIT_CANNOT_EXEC || WEXITSTATUS(st) == CW_EXIT_NOT_FOUND)) {
		/* execve failed in the child although the command looked
		 * runnable: 127 when something was not there (the file
		 * vanished, a "#!" interpreter missing), 126 when it is there
		 * but cannot run (EACCES from the kernel, e.g. an interpreter
		 * without x; ENOEXEC past the /bin/sh fallback).
		 * unstarted_kind() says which kind each is. */
		o->state = "failed";
		o->status = WEXITSTATUS(st);
		o->kind = unstarted_kind(o->status);
		/* The child exits without a word; say here what is said
		 * when find_command() sees the problem first. */
		cw_err("%s: %s", run->opts->command[0], o->status == CW_EXIT_NOT_FOUND
		       ? "not found when executed (the file, or its \"#!\" interpreter)"
		       : "cannot execute (the file, or its \"#!\" interpreter)");
		return;
	}
	o->has_exit = true;
	if (WIFSIGNALED(st)) {
		o->signal = WTERMSIG(st);
		o->status = 128 + o->signal;
	} else {
		o->code = WEXITSTATUS(st);
		o->status = o->code;
	}
	if (run->timed_out) {
		o->state = "cancelled";
		o->kind = "timed_out";
		o->status = CW_EXIT_TIMEOUT;
	} else if (run->have_denial) {
		o->state = "denied";
		o->kind = "enforcement_denied";
		o->denial = &run->first_denial;
	} else if (run->cancelled) {
		o->state = "cancelled";
		o->kind = "cancelled";
	} else if (run->degraded) {
		o->state = "completed";
		o->kind = "enforcement_degraded";
	} else if (o->status == 0) {
		o->state = "completed";
		o->kind = "success";
	} else {
		o->state = "failed";
		o->kind = "application_failure";
	}
}

/* One short line on stderr when something was denied (unless -q): how
 * many, the first, and where the report is, so that a command that fails
 * on a denial (npm exits 243 with no message) is never unexplained. The
 * log escapes what the scope holds. */
static void say_denials(const struct cw_run *run, const struct outcome *o)
{
	if (!run->denials || !o->denial || run->opts->verbosity < 0 || run->opts->from_request)
		return;
	const struct cw_decision *d = o->denial;
	char where[64];
	if (run->opts->report)
		snprintf(where, sizeof(where), "%s", "details in ");
	else if (run->opts->report_fd >= 0)
		snprintf(where, sizeof(where), "details in the report on descriptor %d", run->opts->report_fd);
	else
		snprintf(where, sizeof(where), "run with --report FILE for details");
	cw_warn("%llu operation%s denied by profile %s; first: %s %s (%s), next action %s; %s%s",
		(unsigned long long)run->denials, run->denials == 1 ? "" : "s", run->profile_name,
		cw_cap_name(d->cap), d->scope, d->rule, cw_next_action_name(d->next_action), where,
		run->opts->report ? run->opts->report : "");
}

static void set_run(struct cw_run *run, const char *profile)
{
	cw_report_set_run(run->report, profile, run->opts->command[0],
			  (const char *const *)run->opts->command + 1, run->cwd,
			  run->ctx.roots, run->ctx.nroots);
	run->report_run_set = true;
}

void cw_run_kill_all(struct cw_run *run)
{
	if (run->tracker_ops)
		run->tracker_ops->kill_all(run, SIGKILL);
	else if (run->child > 0)
		kill(run->child, SIGKILL);
	cw_limits_kill(); /* what escaped the tracker (CLONE_UNTRACED...) */
}

/* After a supervisor failure with the command running: kill everything and
 * reap what we can, briefly. */
static void kill_and_drain(struct cw_run *run)
{
	cw_run_kill_all(run);
	double deadline = cw_now() + 5;
	while (run->tracker_ops && run->tracker_ops->alive(run) && cw_now() < deadline) {
		/* The listener is closed first so that nothing waits on us. */
		run->tracker_ops->reap(run);
		usleep(10000);
	}
}

static void run_free(struct cw_run *run)
{
	cw_approval_shutdown(run); /* no-op when the loop already did */
	cw_hosts_free(run);
	cw_tracker_free(run);
	cw_annot_free();
	changes_free(run->changes);
	if (run->profile)
		cw_profile_free(run->profile);
	if (run->report)
		cw_report_free(run->report);
	cw_jbuf_free(&run->tj);
	free(run->tbuf);
	free(run->syscall_names);
	for (size_t i = 0; i < run->ctx.nroots; i++)
		free(run->roots[i]);
	free(run->roots);
	for (size_t i = 0; i < run->nprotected; i++)
		free(run->protected_files[i]);
	free(run->protected_files);
	if (run->envp)
		for (char **e = run->envp; *e; e++)
			free(*e);
	free(run->envp);
	free(run->scratch);
	free(run->cwd);
	free(run->command_path);
	free(run->profile_name);
	if (run->report_fd >= 0)
		close(run->report_fd);
	if (run->trace_fd >= 0)
		close(run->trace_fd);
	if (run->listener >= 0)
		close(run->listener);
	if (run->child_pidfd >= 0)
		close(run->child_pidfd);
}

/* Take descriptor FD, given with OPT, for capwatch's own output: it must
 * be open for writing; it is moved out of the command's reach (a
 * close-on-exec duplicate, the original closed) and, when it is a file,
 * the file is protected. Returns the new descriptor or -errno (message
 * printed). */
static int take_output_fd(struct cw_run *run, int fd, const char *opt)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		cw_err("%s %d: %s", opt, fd, fl < 0 ? strerror(errno) : "descriptor is not open for writing");
		return fl < 0 ? -errno : -EBADF;
	}
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (own < 0) {
		int e = errno;
		cw_err("%s %d: %s", opt, fd, strerror(e));
		return -e;
	}
	close(fd); /* the command must not inherit it */
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", own);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n > 0 && target[0] == '/') {
		target[n] = '\0';
		if (push_str(&run->protected_files, &run->nprotected, strdup(target)) < 0) {
			close(own);
			return -ENOMEM;
		}
	}
	return own;
}

int cw_run_main(const struct cw_options *opts)
{
	struct cw_run r = { 0 };
	struct cw_run *run = &r;
	struct cw_profile_files pfiles = { 0 };
	struct sock_fprog prog = { 0 };
	struct cw_launch_signals sigs;
	_cleanup_close_ int sigfd = -1;
	int status = CW_EXIT_FAILURE;
	int e;
	char err_reason[256] = "";

	run->opts = opts;
	run->t0 = cw_now();
	run->last_flush = run->t0;
	run->report_fd = run->trace_fd = run->listener = run->child_pidfd = -1;
	run->observe = opts->observe;
	cw_jbuf_init(&run->tj);
	cw_log_set_level(opts->verbosity < 0 ? CW_LOG_ERROR :
			 opts->verbosity == 0 ? CW_LOG_WARNING :
			 opts->verbosity == 1 ? CW_LOG_INFO : CW_LOG_DEBUG);

	/* The signal state the command must inherit, before we change ours. */
	sigprocmask(SIG_SETMASK, NULL, &sigs.mask);
	sigaction(SIGPIPE, NULL, &sigs.pipe);
	signal(SIGPIPE, SIG_IGN); /* a closed report/trace pipe is an error, not death */
	/* A file size limit makes a write fail (EFBIG), never kills capwatch
	 * before its report (issue 14). Blocked, not ignored, until the
	 * command is launched: the child restores the mask above, while an
	 * ignored disposition would survive its exec. Ignored from then on. */
	{
		sigset_t xfsz;
		sigemptyset(&xfsz);
		sigaddset(&xfsz, SIGXFSZ);
		sigprocmask(SIG_BLOCK, &xfsz, NULL);
	}
	/* Soft RLIMIT_FSIZE and RLIMIT_NOFILE up to the hard limits; the
	 * command gets the ones we were started with (cw_limits_attach). */
	cw_limits_own_raise();

	char cwdbuf[PATH_MAX];
	if (!getcwd(cwdbuf, sizeof(cwdbuf))) {
		cw_err("cannot determine the current directory: %s", strerror(errno));
		goto out;
	}
	run->cwd = strdup(cwdbuf);

	/* 1. Where the report goes: first, so that every later failure is
	 * reported. */
	run->report = cw_report_new();
	if (!run->report || !run->cwd) {
		cw_err("out of memory");
		goto out;
	}
	struct cw_hash_key hk; /* capabilitiesUsed is keyed by scopes the command chooses */
	cw_hash_key_random(&hk);
	cw_report_set_hash_key(run->report, &hk);
	if (opts->report) {
		run->report_fd = open_output(opts->report);
		if (run->report_fd < 0) {
			cw_err("%s: %s", opts->report, strerror(errno));
			goto out;
		}
		if (push_str(&run->protected_files, &run->nprotected, abs_name(run->cwd, opts->report)) < 0)
			goto oom;
	} else if (opts->report_fd >= 0) {
		int fl = fcntl(opts->report_fd, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			cw_err("--report-fd %d: %s", opts->report_fd,
			       fl < 0 ? strerror(errno) : "descriptor is not open for writing");
			goto out;
		}
		run->report_fd = fcntl(opts->report_fd, F_DUPFD_CLOEXEC, 3);
		close(opts->report_fd); /* the command must not inherit it */
		if (run->report_fd < 0) {
			cw_err("--report-fd %d: %s", opts->report_fd, strerror(errno));
			goto out;
		}
		char link[64], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", run->report_fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && target[0] == '/') {
			target[n] = '\0';
			if (push_str(&run->protected_files, &run->nprotected, strdup(target)) < 0)
				goto oom;
		}
	}

	/* 2. The workspace roots, the scratch directory, the context. */
	size_t nroots = 0;
	for (size_t i = 0; i < (opts->nworkspaces ? opts->nworkspaces : 1); i++) {
		const char *w = opts->nworkspaces ? opts->workspaces[i] : run->cwd;
		char real[PATH_MAX];
		struct stat st;
		if (!realpath(w, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
			cw_err("--workspace %s: %s", w, errno ? strerror(errno) : "not a directory");
			snprintf(err_reason, sizeof(err_reason), "workspace %s unusable", w);
			goto setup_failed;
		}
		if (push_str(&run->roots, &nroots, strdup(real)) < 0)
			goto oom;
	}
	run->ctx.roots = (const char *const *)run->roots;
	run->ctx.nroots = nroots;

	/* 3. The profile. */
	e = cw_profile_load(opts->profile, &run->profile, &pfiles);
	if (e < 0) {
		snprintf(err_reason, sizeof(err_reason), "profile %s could not be loaded", opts->profile);
		goto setup_failed;
	}
	for (size_t i = 0; i < pfiles.n; i++)
		if (push_str(&run->protected_files, &run->nprotected, strdup(pfiles.paths[i])) < 0)
			goto oom;
	run->profile_name = xstrdup(cw_profile_name(run->profile));

	if (opts->trace) {
		run->trace_fd = open_output(opts->trace);
		if (run->trace_fd < 0) {
			cw_err("%s: %s", opts->trace, strerror(errno));
			snprintf(err_reason, sizeof(err_reason), "trace file unusable");
			goto setup_failed;
		}
		if (push_str(&run->protected_files, &run->nprotected, abs_name(run->cwd, opts->trace)) < 0)
			goto oom;
	} else if (opts->trace_fd >= 0) {
		/* --trace-fd N: a stream for a log pipeline, taken like
		 * --report-fd (the command does not inherit it, a file behind
		 * it is protected); its flags stay the caller's (O_APPEND) */
		e = take_output_fd(run, opts->trace_fd, "--trace-fd");
		if (e < 0) {
			if (e == -ENOMEM)
				goto oom;
			snprintf(err_reason, sizeof(err_reason), "trace descriptor unusable");
			goto setup_failed;
		}
		run->trace_fd = e;
	}
	if (run->trace_fd >= 0) {
		run->tcap = TRACE_BUF;
		run->tbuf = malloc(run->tcap);
		if (!run->tbuf)
			goto oom;
	}

	const char *tmp = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof(tmpl), "%s/capwatch-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) { /* mkdtemp creates it 0700 */
		cw_err("cannot create a scratch directory %s: %s", tmpl, strerror(errno));
		snprintf(err_reason, sizeof(err_reason), "scratch directory could not be created");
		goto setup_failed;
	}
	char realtmp[PATH_MAX];
	run->scratch = strdup(realpath(tmpl, realtmp) ? realtmp : tmpl);
	if (!run->scratch)
		goto oom;

	setup_spill(run, tmp && tmp[0] == '/' ? tmp : "/tmp");

	run->ctx.scratch = run->scratch;
	run->ctx.home = getenv("HOME");
	run->ctx.protected_files = (const char *const *)run->protected_files;
	run->ctx.nprotected = run->nprotected;
	run->ctx.approve_risk = opts->approve_risk != NULL;
	run->ctx.approve_reason = opts->approve_risk;
	run->ctx.grants = opts->grants;
	run->ctx.ngrants = opts->ngrants;
	run->changes = calloc(1, sizeof(*run->changes));
	if (!run->changes || cw_tracker_new(run) < 0)
		goto oom;

	set_run(run, run->profile_name ? run->profile_name : opts->profile);
	if (!choose_backend(run)) {
		snprintf(err_reason, sizeof(err_reason), "--backend kernel is not available here");
		goto setup_failed;
	}

	if (run->trace_fd >= 0) {
		struct utsname u;
		char start[32];
		uname(&u);
		rfc3339_now(start, sizeof(start));
		struct cw_trace_header h = {
			.profile = run->profile_name, .roots = run->ctx.roots, .nroots = run->ctx.nroots,
			.command = opts->command[0], .args = (const char *const *)opts->command + 1,
			.kernel = u.release, .start = start, .scratch = run->scratch, .home = run->ctx.home,
			.protected_files = run->ctx.protected_files, .nprotected = run->ctx.nprotected,
			.backend = backend_name(run), .level = run->observe ? "observe" : "enforce",
		};
		cw_trace_header_write(&run->tj, &h);
		cw_run_trace_emit(run);
	}

	/* 4. Before starting: is the command there, may it start at all? */
	e = find_command(opts->command[0], getenv("PATH"), &run->command_path);
	if (e == -ENOMEM)
		goto oom;
	if (e < 0) {
		cw_err("%s: %s", opts->command[0], e == -ENOENT ? "command not found" : "cannot execute (permission denied or not a regular file)");
		int st = e == -ENOENT ? CW_EXIT_NOT_FOUND : CW_EXIT_CANNOT_EXEC;
		status = end_unstarted(run, "failed", unstarted_kind(st), NULL, st);
		goto out;
	}
	char abs_cmd[PATH_MAX + 16];
	if (cw_path_normalize(run->cwd, run->command_path, abs_cmd, sizeof(abs_cmd)) < 0)
		snprintf(abs_cmd, sizeof(abs_cmd), "%s", run->command_path);
	if (!cw_profile_allows_start(run->profile)) {
		struct cw_op op = { .kind = CW_OP_EXEC, .syscall = "execve", .path = abs_cmd };
		struct cw_decision d;
		cw_policy_decide(run->profile, &run->ctx, &op, &d);
		if (d.verdict == CW_ALLOW) {
			/* The profile says no start, the rule says allow: trust
			 * the stricter one. */
			d.verdict = CW_DENY;
			d.cap = CW_CAP_PROCESS_SPAWN;
			snprintf(d.reason, sizeof(d.reason), "profile %s does not let any command start", run->profile_name);
		}
		struct cw_denial_record dr = { .pid = 0, .program = abs_cmd, .syscall = "execve", .d = &d,
					       .time = cw_run_time(run), .enforced = true };
		cw_report_add_denial(run->report, &dr);
		run->denials++;
		cw_err("profile %s: %s is not allowed to start (%s)", run->profile_name, opts->command[0], d.rule);
		status = end_unstarted(run, "denied", "policy_denied", &d, CW_EXIT_CANNOT_EXEC);
		goto out;
	}
	bool full_env = false;
	if (opts->inherit_env) {
		_cleanup_free_ char *names = dropped_env_names(run);
		struct cw_op op = { .kind = CW_OP_ENV, .syscall = "execve", .env_names = names ? names : "" };
		struct cw_decision d;
		cw_policy_decide(run->profile, &run->ctx, &op, &d);
		cw_report_count_capability(run->report, d.cap, d.scope, d.verdict);
		if (d.verdict != CW_ALLOW && !run->observe) {
			if (d.verdict == CW_ASK) {
				d.verdict = CW_DENY; /* no prompt yet: an unanswered ask */
				d.next_action = CW_NEXT_REQUEST_APPROVAL;
			}
			struct cw_denial_record dr = { .pid = 0, .program = abs_cmd, .syscall = "execve", .d = &d,
						       .time = cw_run_time(run), .enforced = true };
			cw_report_add_denial(run->report, &dr);
			run->denials++;
			cw_err("--inherit-env denied by profile %s (%s)", run->profile_name, d.rule);
			status = end_unstarted(run, "denied", "policy_denied", &d, CW_EXIT_CANNOT_EXEC);
			goto out;
		}
		full_env = true;
	}
	if (build_env(run, full_env) < 0 || cw_annot_setup(run) < 0)
		goto oom;

	/* Descriptors capwatch was started with: closed, or passed with
	 * --keep-fd when the profile allows them (fds.h). */
	if (cw_fds_decide(run) < 0) {
		snprintf(err_reason, sizeof(err_reason), "a --keep-fd descriptor is not open");
		goto setup_failed;
	}

	/* 5. The filter, the signals, the launch. */
	if (cw_filter_build(run, &prog) < 0) {
		snprintf(err_reason, sizeof(err_reason), "seccomp filter could not be built");
		goto setup_failed;
	}
	if (cw_notify_init(run) < 0) {
		snprintf(err_reason, sizeof(err_reason), "seccomp notifications unavailable");
		goto setup_failed;
	}
	if (cw_approval_init(run) < 0) {
		snprintf(err_reason, sizeof(err_reason), "the approval channel could not be set up");
		goto setup_failed;
	}
	run->tty_mode = isatty(STDIN_FILENO);
	run->under_filter = seccomp_mode() == 2;
	sigset_t mask;
	sigemptyset(&mask);
	int fwd[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM };
	for (size_t i = 0; i < CW_ARRAY_SIZE(fwd); i++)
		sigaddset(&mask, fwd[i]);
	if (run->tty_mode) {
		sigaddset(&mask, SIGTSTP);
		sigaddset(&mask, SIGTTIN);
		sigaddset(&mask, SIGTTOU);
	}
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		cw_err("signalfd: %s", strerror(errno));
		snprintf(err_reason, sizeof(err_reason), "signalfd failed");
		goto setup_failed;
	}

	cw_run_trace_flush(run);
	{
		char links[256];
		if (cw_resolve_toplinks(links, sizeof(links)))
			cw_debug("merged /usr: %s (followed without a walk while unchanged)", links);
	}
	/* Secrets by identity (secret_ids.h): scanned now, before the command
	 * can make names, so that no number of files it creates first can
	 * spend the scan's budget (red team e128). */
	cw_secret_ids_start(run);
	e = cw_launch(run, &prog, &sigs);
	signal(SIGXFSZ, SIG_IGN); /* the command has its own disposition now */
	if (e < 0) {
		snprintf(err_reason, sizeof(err_reason), "launching the command failed: %s", strerror(-e));
		goto setup_failed;
	}
	if (run->degraded)
		cw_run_note(run, run->child, "warning", "%s", run->downgrade_reason);
	/* What the command keeps of capwatch's privileges, when not all
	 * was dropped (degraded cases are in the warning above). */
	if (run->privs.note[0] && !run->degraded)
		cw_run_note(run, run->child, "info", "%s", run->privs.note);
	if (run->caches_redirected)
		cw_run_note(run, run->child, "info",
			    "per-user caches (XDG_CACHE_HOME, npm_config_cache, PIP_CACHE_DIR, GOMODCACHE, "
			    "CCACHE_DIR, YARN_CACHE_FOLDER) go to the run's scratch %s/cache: the profile "
			    "does not allow writes outside the workspace", run->scratch);
	/* Not degraded (the profile asked for it), but worth a line: the
	 * kernel does not back the supervisor on writes in this run. */
	if (cw_landlock_fs_unbounded())
		cw_run_note(run, run->child, "info", "%s", cw_landlock_note());
	/* Nothing of capwatch's (the listener, its memory) can be read
	 * through /proc or ptrace by a process of the same user. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

	/* 6. The run. The enforcement is in the report from here, for a
	 * report the watchdog may have to write. */
	set_enforcement(run);
	e = cw_watchdog_start(run);
	if (e < 0) {
		snprintf(err_reason, sizeof(err_reason), "the --timeout watchdog could not start: %s", strerror(-e));
		goto setup_failed;
	}
	e = cw_notify_loop(run, sigfd);
	cw_approval_shutdown(run); /* what still waits for an answer is denied */
	if (e < 0) {
		cw_err("event loop failed: %s", strerror(-e));
		close(run->listener); /* pending notifications fail with ENOSYS */
		run->listener = -1;
		kill_and_drain(run);
		snprintf(err_reason, sizeof(err_reason), "supervisor failure: %s", strerror(-e));
		if (!run->child_exited)
			goto setup_failed;
	}
	if (run->tracker_ops->alive(run))
		kill_and_drain(run);

	{
		struct outcome o;
		compute_outcome(run, &o);
		bool ok = write_report(run, &o);
		finish_trace(run, &o);
		say_denials(run, &o);
		status = ok ? o.status : CW_EXIT_FAILURE;
	}
	goto out;

oom:
	cw_err("out of memory");
	snprintf(err_reason, sizeof(err_reason), "out of memory");
setup_failed:
	if (run->child > 0 && !run->child_exited)
		kill_and_drain(run);
	{
		if (!run->report_run_set)
			set_run(run, opts->profile);
		struct outcome o = { .state = "failed", .kind = "sandbox_setup_failure", .status = CW_EXIT_FAILURE };
		if (err_reason[0])
			cw_debug("setup failure: %s", err_reason);
		write_report(run, &o);
		finish_trace(run, &o);
	}
	status = CW_EXIT_FAILURE;
out:
	cw_watchdog_stop();
	cw_kernel_teardown(run);
	cw_limits_teardown();
	remove_scratch(run);
	free(prog.filter);
	cw_profile_files_free(&pfiles);
	run_free(run);
	return status;
}
