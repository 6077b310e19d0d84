/* One run, the top of the program: set up (profile, workspace, scratch,
 * environment, outputs), launch, loop, then the outcome, the report and
 * the exit status (contract sections 1 and 4), one step function each
 * (cw_run_main at the end reads as the list). The report is written on
 * every path out of here once its destination is open. Only main.c calls
 * in here; what the modules share while the run goes on is elsewhere
 * (record.h, changes.h, outcome.h, ptrace.h's cw_tracker_kill_all). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
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
#include <time.h>
#include <unistd.h>
#include "supervisor/run.h"
#include "supervisor/state.h"
#include "supervisor/annot.h"
#include "supervisor/changes.h"
#include "supervisor/colocate.h"
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
#include "supervisor/outcome.h"
#include "policy/profile_load.h"
#include "supervisor/ptrace.h"
#include "supervisor/record.h"
#include "supervisor/resolve.h"
#include "supervisor/scratch.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "supervisor/watchdog.h"
#include "supervisor/tty_link.h"
#include "supervisor/handlers/handlers.h" /* cw_fs_init, cw_fs_free */
#include "supervisor/handlers/scratch.h"

extern char **environ;

#define TRACE_BUF (256 * 1024)

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

/* Protect FILE (the report, the trace) by its resolved name and by the
 * names the kernel walks for the name it was given (cw_walked_names:
 * joined to the cwd with its ".." kept, and through each symlink on the
 * way): every symlink and directory of that walk is then a directory
 * above a protected name (cw_path_holds_protected), which the command may
 * not replace to have the user read another file by that name (red team
 * 22). Not the given name with ".." collapsed: "sub/../r" with sub a
 * symlink is not "r" in the cwd, and that name is nothing to protect. */
static int protect_file(struct cw_run *run, const char *file)
{
	char *real = abs_name(run->cwd, file);
	if (push_str(&run->protected_files, &run->nprotected, real) < 0)
		return -ENOMEM;
	return cw_walked_names(run->cwd, file, &run->protected_files, &run->nprotected);
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

/* The report with outcome O. One writer: the --timeout watchdog may have
 * taken the report because this thread was stuck; it writes it and
 * exits. */
static bool write_report(struct cw_run *run, const struct cw_outcome *o)
{
	if (!cw_watchdog_claim_report(run))
		for (;;)
			pause();
	return cw_outcome_write_report(run, o);
}

/* Outcome for a run that never started the command. */
static int end_unstarted(struct cw_run *run, const char *state, const char *kind,
			 const struct cw_decision *denial, int status)
{
	struct cw_outcome o = { .state = state, .kind = kind, .denial = denial, .status = status };
	bool ok = write_report(run, &o);
	cw_outcome_finish_trace(run, &o);
	return ok ? status : CW_EXIT_FAILURE;
}

/* One short line on stderr when something was denied (unless -q): how
 * many, how many of them were tolerated (their process went on and
 * succeeded), the one that explains the outcome and where the report is,
 * so that a command that fails on a denial (npm exits 243 with no
 * message) is never unexplained. The log escapes what the scope holds. */
static void say_denials(const struct cw_run *run, const struct cw_outcome *o)
{
	uint64_t n = run->hl.enforced, tol = run->hl.tolerated;
	/* a timed-out or cancelled run has a headline too; a command whose
	 * own exec was denied (policy_denied) has that denial */
	bool found = run->hl.found;
	const struct cw_decision *d = &run->headline;
	if (!n && o->denial) {
		n = run->denials ? run->denials : 1;
		found = true;
		d = o->denial;
	}
	if (!n || run->opts->verbosity < 0 || run->opts->from_request)
		return;
	char where[64], tolerated[64] = "";
	if (run->opts->report)
		snprintf(where, sizeof(where), "%s", "details in ");
	else if (run->opts->report_fd >= 0)
		snprintf(where, sizeof(where), "details in the report on descriptor %d", run->opts->report_fd);
	else
		snprintf(where, sizeof(where), "run with --report FILE for details");
	const char *s = n == 1 ? "" : "s", *rep = run->opts->report ? run->opts->report : "";
	if (!found) {
		cw_warn("%llu operation%s denied by profile %s, %s (the process went on and succeeded); "
			"%s%s", (unsigned long long)n, s, run->profile_name,
			n == 1 ? "tolerated" : "all tolerated", where, rep);
		return;
	}
	if (tol)
		snprintf(tolerated, sizeof(tolerated), " (%llu tolerated)", (unsigned long long)tol);
	cw_warn("%llu operation%s denied by profile %s%s; the one that explains the outcome: %s %s (%s), "
		"next action %s; %s%s", (unsigned long long)n, s, run->profile_name, tolerated,
		cw_cap_name(d->cap), d->scope, d->rule, cw_next_action_name(d->next_action), where, rep);
}

static void set_run(struct cw_run *run, const char *profile)
{
	cw_report_set_run(run->report, profile, run->opts->command[0],
			  (const char *const *)run->opts->command + 1, run->cwd,
			  run->ctx.roots, run->ctx.nroots);
	run->report_run_set = true;
}

/* After a supervisor failure with the command running: kill everything and
 * reap what we can, briefly. */
static void kill_and_drain(struct cw_run *run)
{
	cw_tracker_kill_all(run);
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
	cw_landlock_free(run);
	cw_secret_ids_free(run);
	cw_colocate_free(run);
	cw_tracker_free(run);
	cw_handlers_free(run);
	cw_fs_free(run);
	cw_annot_free(run);
	cw_changes_free(run->changes);
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

/* ---- the run, step by step ---- */

/* What cw_run_main's steps share besides the run. */
struct setup {
	struct cw_profile_files pfiles;
	struct sock_fprog prog;
	struct cw_launch_signals sigs; /* as capwatch was started: the command's */
	int sigfd;
	int status;                    /* capwatch's exit status at STEP_END */
	char err_reason[256];          /* why setup failed (debug line) */
};

/* How a step ended: go on to the next; the run is over with su->status
 * (the report, if any, written); out of memory; setup failed (reported
 * as sandbox_setup_failure). */
enum step { STEP_OK, STEP_END, STEP_OOM, STEP_FAILED };

static enum step setup_failed(struct setup *su, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static enum step setup_failed(struct setup *su, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(su->err_reason, sizeof(su->err_reason), fmt, ap);
	va_end(ap);
	return STEP_FAILED;
}

static enum step end_with(struct setup *su, int status)
{
	su->status = status;
	return STEP_END;
}

/* The process capwatch is: the signal state the command must inherit
 * saved before ours changes, the log level, the limits, the directory. */
static enum step configure_process(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	cw_log_set_level(opts->verbosity < 0 ? CW_LOG_ERROR :
			 opts->verbosity == 0 ? CW_LOG_WARNING :
			 opts->verbosity == 1 ? CW_LOG_INFO : CW_LOG_DEBUG);

	/* The signal state the command must inherit, before we change ours. */
	sigprocmask(SIG_SETMASK, NULL, &su->sigs.mask);
	sigaction(SIGPIPE, NULL, &su->sigs.pipe);
	signal(SIGPIPE, SIG_IGN); /* a closed report/trace pipe is an error, not death */
	/* A file size limit makes a write fail (EFBIG), never kills capwatch
	 * before its report (issue 14). Blocked, not ignored, until the
	 * command is launched: the child restores the mask above, while an
	 * ignored disposition would survive its exec. Ignored from then on. */
	sigset_t held;
	sigemptyset(&held);
	sigaddset(&held, SIGXFSZ);
	/* The terminal never stops capwatch: a write or read of a terminal
	 * by a background process whose thread blocks SIGTTOU or SIGTTIN
	 * goes ahead, with no signal (__tty_check_change). Otherwise the
	 * tree could set TOSTOP on the terminal capwatch's stderr is (from
	 * a session of its own, no decision needed) and the watchdog's
	 * timeout warning, written before it kills, would stop capwatch
	 * in a background job: no timeout, no report (red team 23, F2).
	 * In tty mode the loop reads them from its signalfd to follow the
	 * job's stops (open_signals). */
	sigaddset(&held, SIGTTOU);
	sigaddset(&held, SIGTTIN);
	sigprocmask(SIG_BLOCK, &held, NULL);
	/* Soft RLIMIT_FSIZE and RLIMIT_NOFILE up to the hard limits; the
	 * command gets the ones we were started with (cw_limits_attach). */
	if (cw_limits_init(run) < 0) {
		cw_err("out of memory");
		return end_with(su, CW_EXIT_FAILURE);
	}

	char cwdbuf[PATH_MAX];
	if (!getcwd(cwdbuf, sizeof(cwdbuf))) {
		cw_err("cannot determine the current directory: %s", strerror(errno));
		return end_with(su, CW_EXIT_FAILURE);
	}
	run->cwd = strdup(cwdbuf);
	return STEP_OK;
}

/* 1. Where the report goes: first, so that every later failure is
 * reported. A failure here has no report to write. */
static enum step open_report(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	run->report = cw_report_new();
	if (!run->report || !run->cwd) {
		cw_err("out of memory");
		return end_with(su, CW_EXIT_FAILURE);
	}
	struct cw_hash_key hk; /* capabilitiesUsed is keyed by scopes the command chooses */
	cw_hash_key_random(&hk);
	cw_report_set_hash_key(run->report, &hk);
	if (opts->report) {
		run->report_fd = open_output(opts->report);
		if (run->report_fd < 0) {
			cw_err("%s: %s", opts->report, strerror(errno));
			return end_with(su, CW_EXIT_FAILURE);
		}
		if (protect_file(run, opts->report) < 0)
			return STEP_OOM;
	} else if (opts->report_fd >= 0) {
		int fl = fcntl(opts->report_fd, F_GETFL);
		if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
			cw_err("--report-fd %d: %s", opts->report_fd,
			       fl < 0 ? strerror(errno) : "descriptor is not open for writing");
			return end_with(su, CW_EXIT_FAILURE);
		}
		run->report_fd = fcntl(opts->report_fd, F_DUPFD_CLOEXEC, 3);
		close(opts->report_fd); /* the command must not inherit it */
		if (run->report_fd < 0) {
			cw_err("--report-fd %d: %s", opts->report_fd, strerror(errno));
			return end_with(su, CW_EXIT_FAILURE);
		}
		char link[64], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", run->report_fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && target[0] == '/') {
			target[n] = '\0';
			if (push_str(&run->protected_files, &run->nprotected, strdup(target)) < 0)
				return STEP_OOM;
		}
	}
	return STEP_OK;
}

/* 2. The workspace roots. 3. The profile. */
static enum step configure_policy(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	size_t nroots = 0;
	for (size_t i = 0; i < (opts->nworkspaces ? opts->nworkspaces : 1); i++) {
		const char *w = opts->nworkspaces ? opts->workspaces[i] : run->cwd;
		char real[PATH_MAX];
		struct stat st;
		if (!realpath(w, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
			cw_err("--workspace %s: %s", w, errno ? strerror(errno) : "not a directory");
			return setup_failed(su, "workspace %s unusable", w);
		}
		if (push_str(&run->roots, &nroots, strdup(real)) < 0)
			return STEP_OOM;
	}
	run->ctx.roots = (const char *const *)run->roots;
	run->ctx.nroots = nroots;

	/* The message through capwatch's log: exec --request points it at
	 * its own copy of stderr, not the command's. */
	char perr[2048];
	if (cw_profile_load_quiet(opts->profile, &run->profile, &su->pfiles, perr, sizeof(perr)) < 0) {
		cw_err("%s", perr);
		return setup_failed(su, "profile %s could not be loaded", opts->profile);
	}
	/* each file of the chain by its resolved name and the names walked
	 * to it, the one given on the command line first (profile_load.h) */
	for (size_t i = 0; i < su->pfiles.n; i++)
		if (push_str(&run->protected_files, &run->nprotected, strdup(su->pfiles.paths[i])) < 0)
			return STEP_OOM;
	run->profile_name = xstrdup(cw_profile_name(run->profile));
	return STEP_OK;
}

/* The trace's destination and its buffer. */
static enum step open_trace(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	if (opts->trace) {
		run->trace_fd = open_output(opts->trace);
		if (run->trace_fd < 0) {
			cw_err("%s: %s", opts->trace, strerror(errno));
			return setup_failed(su, "trace file unusable");
		}
		if (protect_file(run, opts->trace) < 0)
			return STEP_OOM;
	} else if (opts->trace_fd >= 0) {
		/* --trace-fd N: a stream for a log pipeline, taken like
		 * --report-fd (the command does not inherit it, a file behind
		 * it is protected); its flags stay the caller's (O_APPEND) */
		int e = take_output_fd(run, opts->trace_fd, "--trace-fd");
		if (e == -ENOMEM)
			return STEP_OOM;
		if (e < 0)
			return setup_failed(su, "trace descriptor unusable");
		run->trace_fd = e;
	}
	if (run->trace_fd >= 0) {
		run->tcap = TRACE_BUF;
		run->tbuf = malloc(run->tcap);
		if (!run->tbuf)
			return STEP_OOM;
	}
	return STEP_OK;
}

/* The scratch directory, the report's spill file, the decision context,
 * the tracker, the back end; the trace's header. */
static enum step configure_run(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	const char *tmp = getenv("TMPDIR");
	int e = cw_scratch_create(run, tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (e == -ENOMEM)
		return STEP_OOM;
	if (e < 0)
		return setup_failed(su, "scratch directory could not be created");

	cw_outcome_setup_spill(run, tmp && tmp[0] == '/' ? tmp : "/tmp");

	run->ctx.scratch = run->scratch;
	run->ctx.home = getenv("HOME");
	run->ctx.protected_files = (const char *const *)run->protected_files;
	run->ctx.nprotected = run->nprotected;
	run->ctx.approve_risk = opts->approve_risk != NULL;
	run->ctx.approve_reason = opts->approve_risk;
	run->ctx.grants = opts->grants;
	run->ctx.ngrants = opts->ngrants;
	run->changes = cw_changes_new();
	if (!run->changes || cw_tracker_new(run) < 0 || cw_handlers_init(run) < 0)
		return STEP_OOM;

	set_run(run, run->profile_name ? run->profile_name : opts->profile);
	if (!choose_backend(run))
		return setup_failed(su, "--backend kernel is not available here");

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
			.backend = cw_outcome_backend_name(run), .level = run->observe ? "observe" : "enforce",
		};
		cw_trace_header_write(&run->tj, &h);
		cw_record_trace_emit(run);
	}
	return STEP_OK;
}

/* A denial before the command exists, in the report. */
static void deny_unstarted(struct cw_run *run, const char *abs_cmd, const struct cw_decision *d)
{
	struct cw_denial_record dr = { .pid = 0, .program = abs_cmd, .syscall = "execve", .d = d,
				       .time = cw_record_time(run), .enforced = true };
	cw_report_add_denial(run->report, &dr);
	run->denials++;
}

/* 4. Before starting: is the command there, may it start at all, with
 * which environment, and which descriptors. */
static enum step check_start(struct cw_run *run, struct setup *su)
{
	const struct cw_options *opts = run->opts;
	int e = find_command(opts->command[0], getenv("PATH"), &run->command_path);
	if (e == -ENOMEM)
		return STEP_OOM;
	if (e < 0) {
		cw_err("%s: %s", opts->command[0], e == -ENOENT ? "command not found" : "cannot execute (permission denied or not a regular file)");
		int st = e == -ENOENT ? CW_EXIT_NOT_FOUND : CW_EXIT_CANNOT_EXEC;
		return end_with(su, end_unstarted(run, "failed", cw_outcome_unstarted_kind(st), NULL, st));
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
		deny_unstarted(run, abs_cmd, &d);
		cw_err("profile %s: %s is not allowed to start (%s)", run->profile_name, opts->command[0], d.rule);
		return end_with(su, end_unstarted(run, "denied", "policy_denied", &d, CW_EXIT_CANNOT_EXEC));
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
			deny_unstarted(run, abs_cmd, &d);
			cw_err("--inherit-env denied by profile %s (%s)", run->profile_name, d.rule);
			return end_with(su, end_unstarted(run, "denied", "policy_denied", &d, CW_EXIT_CANNOT_EXEC));
		}
		full_env = true;
	}
	if (build_env(run, full_env) < 0 || cw_annot_setup(run) < 0)
		return STEP_OOM;

	/* Descriptors capwatch was started with: closed, or passed with
	 * --keep-fd when the profile allows them (fds.h). */
	if (cw_fds_decide(run) < 0)
		return setup_failed(su, "a --keep-fd descriptor is not open");
	return STEP_OK;
}

/* The signals the loop takes through its signalfd (su->sigfd), blocked. */
static enum step open_signals(struct cw_run *run, struct setup *su)
{
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
	su->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (su->sigfd < 0) {
		cw_err("signalfd: %s", strerror(errno));
		return setup_failed(su, "signalfd failed");
	}
	return STEP_OK;
}

/* What the run says about itself once the command is there. */
static void note_launched(struct cw_run *run)
{
	if (run->degraded)
		cw_record_note(run, run->child, "warning", "%s", run->downgrade_reason);
	/* What the command keeps of capwatch's privileges, when not all
	 * was dropped (degraded cases are in the warning above). */
	if (run->privs.note[0] && !run->degraded)
		cw_record_note(run, run->child, "info", "%s", run->privs.note);
	if (run->caches_redirected)
		cw_record_note(run, run->child, "info",
			    "per-user caches (XDG_CACHE_HOME, npm_config_cache, PIP_CACHE_DIR, GOMODCACHE, "
			    "CCACHE_DIR, YARN_CACHE_FOLDER) go to the run's scratch %s/cache: the profile "
			    "does not allow writes outside the workspace", run->scratch);
	/* Not degraded (the profile asked for it), but worth a line: the
	 * kernel does not back the supervisor on writes in this run. */
	if (cw_landlock_fs_unbounded(run))
		cw_record_note(run, run->child, "info", "%s", cw_landlock_note(run));
}

/* 5. The filter, the signals, the launch. */
static enum step launch(struct cw_run *run, struct setup *su)
{
	run->tty_mode = isatty(STDIN_FILENO);
	/* Before the tree's PID namespace is made (its helpers would be
	 * forked into it) and before capwatch is a subreaper (the helper is
	 * never capwatch's child). */
	cw_tty_link_start(run);
	const char *kr = getenv("CAPWATCH_KERNEL_READS");
	if (run->backend && strcmp(run->backend, "kernel") == 0 && kr && strcmp(kr, "1") == 0) {
		/* Reads passed in the kernel need Landlock to keep the tree
		 * from reading a terminal not its own (cw_landlock_reads) and
		 * a PID namespace of its own (kernel.h); without both they stay
		 * notified, as with the portable back end. */
		run->kernel_reads = true;
		cw_landlock_prepare(run);
		int e = cw_landlock_reads(run) ? 0 : -ENOTSUP;
		const char *what = "Landlock cannot handle reads for this profile";
		if (e == 0 && (e = cw_kernel_reads_prepare(run)) < 0)
			what = "no PID namespace for the tree";
		if (e < 0) {
			run->kernel_reads = false;
			cw_landlock_prepare(run);
			cw_record_note(run, 0, "warning", "CAPWATCH_KERNEL_READS: %s (%s): reads stay notified", what,
				       strerror(-e));
		}
	}
	if (cw_filter_build(run, &su->prog) < 0)
		return setup_failed(su, "seccomp filter could not be built");
	if (cw_fs_init(run) < 0)
		return STEP_OOM;
	if (cw_notify_init(run) < 0)
		return setup_failed(su, "seccomp notifications unavailable");
	if (cw_approval_init(run) < 0)
		return setup_failed(su, "the approval channel could not be set up");
	run->under_filter = seccomp_mode() == 2;
	enum step st = open_signals(run, su);
	if (st != STEP_OK)
		return st;

	cw_record_trace_flush(run);
	char links[256];
	if (cw_resolve_toplinks(run->links, links, sizeof(links)))
		cw_debug("merged /usr: %s (followed without a walk while unchanged)", links);
	/* Secrets by identity (secret_ids.h): scanned now, before the command
	 * can make names, so that no number of files it creates first can
	 * spend the scan's budget (red team e128). */
	cw_secret_ids_start(run);
	int e = cw_launch(run, &su->prog, &su->sigs);
	signal(SIGXFSZ, SIG_IGN); /* the command has its own disposition now */
	if (e < 0)
		return setup_failed(su, "launching the command failed: %s", strerror(-e));
	note_launched(run);
	/* Nothing of capwatch's (the listener, its memory) can be read
	 * through /proc or ptrace by a process of the same user. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return STEP_OK;
}

/* 6. The run. The enforcement is in the report from here, for a report
 * the watchdog may have to write. */
static enum step run_loop(struct cw_run *run, struct setup *su)
{
	cw_outcome_set_enforcement(run);
	int e = cw_watchdog_start(run);
	if (e < 0)
		return setup_failed(su, "the --timeout watchdog could not start: %s", strerror(-e));
	e = cw_notify_loop(run, su->sigfd);
	cw_approval_shutdown(run); /* what still waits for an answer is denied */
	if (e < 0) {
		cw_err("event loop failed: %s", strerror(-e));
		close(run->listener); /* pending notifications fail with ENOSYS */
		run->listener = -1;
		kill_and_drain(run);
		setup_failed(su, "supervisor failure: %s", strerror(-e));
		if (!run->child_exited)
			return STEP_FAILED;
	}
	if (run->tracker_ops->alive(run))
		kill_and_drain(run);
	return STEP_OK;
}

/* 7. The outcome, the report, the trace's summary, the line on stderr. */
static enum step finish(struct cw_run *run, struct setup *su)
{
	struct cw_outcome o;
	cw_outcome_compute(run, &o);
	bool ok = write_report(run, &o);
	cw_outcome_finish_trace(run, &o);
	say_denials(run, &o);
	return end_with(su, ok ? o.status : CW_EXIT_FAILURE);
}

/* The run could not be set up (or its supervisor failed with the command
 * still there): nothing is left running, and the report says
 * sandbox_setup_failure. */
static int end_failed(struct cw_run *run, struct setup *su)
{
	if (run->child > 0 && !run->child_exited)
		kill_and_drain(run);
	if (!run->report_run_set)
		set_run(run, run->opts->profile);
	struct cw_outcome o = { .state = "failed", .kind = "sandbox_setup_failure", .status = CW_EXIT_FAILURE };
	if (su->err_reason[0])
		cw_debug("setup failure: %s", su->err_reason);
	write_report(run, &o);
	cw_outcome_finish_trace(run, &o);
	return CW_EXIT_FAILURE;
}

int cw_run_main(const struct cw_options *opts)
{
	static enum step (*const steps[])(struct cw_run *, struct setup *) = {
		configure_process, open_report, configure_policy, open_trace, configure_run,
		check_start, launch, run_loop, finish,
	};
	struct cw_run r = { 0 };
	struct cw_run *run = &r;
	struct setup su = { .sigfd = -1, .status = CW_EXIT_FAILURE };

	run->opts = opts;
	run->t0 = cw_now();
	run->last_flush = run->t0;
	run->report_fd = run->trace_fd = run->listener = run->child_pidfd = -1;
	run->ns_init_w = run->own_pidns_fd = run->ns_proc_fd = run->tree_root_fd = -1;
	run->tty_link_w = -1;
	run->observe = opts->observe;
	cw_jbuf_init(&run->tj);

	enum step st = STEP_OK;
	for (size_t i = 0; i < CW_ARRAY_SIZE(steps) && st == STEP_OK; i++)
		st = steps[i](run, &su);
	if (st == STEP_OOM) {
		cw_err("out of memory");
		snprintf(su.err_reason, sizeof(su.err_reason), "out of memory");
	}
	if (st == STEP_OOM || st == STEP_FAILED)
		su.status = end_failed(run, &su);

	cw_watchdog_stop(run);
	if (run->listener >= 0 || run->notifications)
		cw_notify_debug_counts(run);
	cw_kernel_teardown(run);
	cw_tty_link_stop(run); /* the tree is gone */
	cw_limits_teardown(run);
	cw_scratch_remove(run);
	free(su.prog.filter);
	cw_profile_files_free(&su.pfiles);
	if (su.sigfd >= 0)
		close(su.sigfd);
	run_free(run);
	return su.status;
}
