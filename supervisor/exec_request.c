/* `capwatch exec --request REQUEST.json`: one JSON execution request in,
 * one JSON outcome out (schemas/request.schema.json,
 * schemas/outcome.schema.json, docs/agents.md).
 *
 * The request is validated and turned into the run form's command line,
 * which a child process parses and runs with the ordinary machinery
 * (cw_cli_parse + the run form's main, given by main.c), its report on a pipe. In captured mode the
 * command's stdout and stderr are pipes too; the parent drains all three
 * while the run goes on (a full pipe would otherwise stall the command),
 * keeps up to outputLimit bytes of each stream and the SHA-256 of all of
 * it, and prints the outcome when the child is gone. capwatch's own
 * diagnostics stay on capwatch's stderr, apart from the captured streams. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "supervisor/exec_request.h"
#include "profile.h"
#include "supervisor/cli.h"
#include "supervisor/log.h"
#include "supervisor/sha256.h"
#include "supervisor/util.h"
#include "report.h"

#define REQUEST_SCHEMA "capwatch.request/v1"
#define OUTCOME_SCHEMA "capwatch.outcome/v1"
#define DEFAULT_LIMIT (1024 * 1024)
#define REQUEST_MAX (4 * 1024 * 1024)

/* argv under construction: strings are owned */
struct args {
	char **v;
	size_t n, cap;
	bool oom;
};

static void push(struct args *a, const char *s)
{
	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, nc * sizeof(*v));
		if (!v) {
			a->oom = true;
			return;
		}
		a->v = v;
		a->cap = nc;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n]) {
		a->oom = true;
		return;
	}
	a->v[++a->n] = NULL;
}

static void args_free(struct args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The validated request. Strings point into the cJSON tree. */
struct request {
	const char *origin;
	bool captured;
	size_t limit;
	struct args argv;       /* the run form */
	const cJSON *env;       /* object of strings, or NULL */
	const char *cwd;        /* or NULL */
};

static int bad(const char *file, const char *field, const char *msg)
{
	fprintf(stderr, "capwatch: %s: %s: %s\n", file, field, msg);
	return CW_EXIT_FAILURE;
}

static bool nonempty_string(const cJSON *j)
{
	return cJSON_IsString(j) && j->valuestring[0];
}

static const char *const known_keys[] = {
	"schema", "origin", "mode", "profile", "command", "env", "workingDirectory",
	"workspaceRoots", "capabilities", "approval", "timeout", "outputLimit", NULL,
};

/* Each step below validates its fields of ROOT and adds their options to
 * the run form; each returns CW_CLI_CONTINUE, or the exit status after a
 * message naming the field. */

/* No unknown field; schema, origin and mode. */
static int parse_header(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j, *e;

	if (!cJSON_IsObject(root))
		return bad(file, "(top level)", "expected a JSON object");
	cJSON_ArrayForEach(e, root) {
		bool ok = false;
		for (const char *const *k = known_keys; *k && !ok; k++)
			ok = strcmp(e->string, *k) == 0;
		if (!ok)
			return bad(file, e->string, "unknown field");
	}
	j = cJSON_GetObjectItemCaseSensitive(root, "schema");
	if (j && (!cJSON_IsString(j) || strcmp(j->valuestring, REQUEST_SCHEMA)))
		return bad(file, "schema", "expected \"" REQUEST_SCHEMA "\"");
	j = cJSON_GetObjectItemCaseSensitive(root, "origin");
	if (!nonempty_string(j))
		return bad(file, "origin", "required: a non-empty string naming who asks (e.g. the agent)");
	r->origin = j->valuestring;
	j = cJSON_GetObjectItemCaseSensitive(root, "mode");
	if (!cJSON_IsString(j) || (strcmp(j->valuestring, "captured") && strcmp(j->valuestring, "interactive")))
		return bad(file, "mode", "required: \"captured\" or \"interactive\"");
	r->captured = strcmp(j->valuestring, "captured") == 0;
	return CW_CLI_CONTINUE;
}

static int parse_profile(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "profile");
	if (!j)
		return CW_CLI_CONTINUE;
	if (!nonempty_string(j))
		return bad(file, "profile", "expected a built-in profile name or a profile file");
	/* A name that is neither a built-in profile nor a file is an
	 * invalid request (nothing on stdout), not a failed run. */
	cw_profile *bp = NULL;
	if (!strchr(j->valuestring, '/') && cw_profile_builtin(j->valuestring, &bp) != 0 &&
	    access(j->valuestring, F_OK) < 0) {
		fprintf(stderr, "capwatch: %s: profile: unknown profile \"%s\" (built-in profiles: none, "
			"readonly, verify, repair, observe; or a profile file)\n", file, j->valuestring);
		return CW_EXIT_FAILURE;
	}
	cw_profile_free(bp);
	push(&r->argv, "--profile");
	push(&r->argv, j->valuestring);
	return CW_CLI_CONTINUE;
}

/* workingDirectory and workspaceRoots (the working directory by default). */
static int parse_places(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j, *e;
	char buf[64];

	j = cJSON_GetObjectItemCaseSensitive(root, "workingDirectory");
	if (j) {
		if (!cJSON_IsString(j) || j->valuestring[0] != '/')
			return bad(file, "workingDirectory", "expected an absolute path");
		struct stat st;
		if (stat(j->valuestring, &st) < 0 || !S_ISDIR(st.st_mode))
			return bad(file, "workingDirectory", "not an existing directory");
		r->cwd = j->valuestring;
	}
	j = cJSON_GetObjectItemCaseSensitive(root, "workspaceRoots");
	if (j) {
		if (!cJSON_IsArray(j))
			return bad(file, "workspaceRoots", "expected an array of absolute paths");
		int i = 0;
		cJSON_ArrayForEach(e, j) {
			snprintf(buf, sizeof buf, "workspaceRoots[%d]", i++);
			if (!cJSON_IsString(e) || e->valuestring[0] != '/')
				return bad(file, buf, "expected an absolute path");
			push(&r->argv, "--workspace");
			push(&r->argv, e->valuestring);
		}
	} else if (r->cwd) {
		push(&r->argv, "--workspace");
		push(&r->argv, r->cwd);
	}
	return CW_CLI_CONTINUE;
}

/* timeout, outputLimit and the variables passed (env). */
static int parse_limits_env(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j, *e;
	char buf[64];

	j = cJSON_GetObjectItemCaseSensitive(root, "timeout");
	if (j) {
		if (!cJSON_IsNumber(j) || j->valuedouble <= 0 || j->valuedouble > 1e7)
			return bad(file, "timeout", "expected a number of seconds > 0");
		snprintf(buf, sizeof buf, "%.3f", j->valuedouble);
		push(&r->argv, "--timeout");
		push(&r->argv, buf);
	}
	r->limit = DEFAULT_LIMIT;
	j = cJSON_GetObjectItemCaseSensitive(root, "outputLimit");
	if (j) {
		if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > (double)(1u << 30) ||
		    j->valuedouble != (double)(size_t)j->valuedouble)
			return bad(file, "outputLimit", "expected a byte count between 0 and 2^30");
		r->limit = (size_t)j->valuedouble;
	}
	j = cJSON_GetObjectItemCaseSensitive(root, "env");
	if (j) {
		if (!cJSON_IsObject(j))
			return bad(file, "env", "expected an object of NAME: \"value\"");
		cJSON_ArrayForEach(e, j) {
			snprintf(buf, sizeof buf, "env.%.50s", e->string);
			if (!e->string[0] || strchr(e->string, '='))
				return bad(file, buf, "not a variable name");
			if (!cJSON_IsString(e))
				return bad(file, buf, "expected a string value");
			push(&r->argv, "--env-pass");
			push(&r->argv, e->string);
		}
		r->env = j;
	}
	return CW_CLI_CONTINUE;
}

/* The requested capabilities: granted (as --approve) only when the
 * approval context says so; never more than "ask" lets through. */
static int parse_approval(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j, *e;
	char buf[64];

	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	if (caps && !cJSON_IsArray(caps))
		return bad(file, "capabilities", "expected an array of {\"kind\", \"scope\"}");
	int i = 0;
	cJSON_ArrayForEach(e, caps) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "kind");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "scope");
		snprintf(buf, sizeof buf, "capabilities[%d].kind", i);
		if (!cJSON_IsString(k) || cw_cap_from_name(k->valuestring) < 0)
			return bad(file, buf, "expected a capability kind (contract section 2)");
		snprintf(buf, sizeof buf, "capabilities[%d].scope", i);
		if (s && !nonempty_string(s))
			return bad(file, buf, "expected a non-empty scope");
		i++;
	}
	const cJSON *ap = cJSON_GetObjectItemCaseSensitive(root, "approval");
	if (!ap)
		return CW_CLI_CONTINUE;
	if (!cJSON_IsObject(ap))
		return bad(file, "approval", "expected an object with policyVersion");
	j = cJSON_GetObjectItemCaseSensitive(ap, "policyVersion");
	if (!cJSON_IsNumber(j))
		return bad(file, "approval.policyVersion", "required: a number");
	if (j->valuedouble != CW_POLICY_VERSION)
		return bad(file, "approval.policyVersion",
			   "the approval was given under another policy version (this capwatch: 1)");
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(ap, "granted");
	if (g && !cJSON_IsBool(g))
		return bad(file, "approval.granted", "expected true or false");
	const cJSON *risk = cJSON_GetObjectItemCaseSensitive(ap, "approveRisk");
	if (risk && !nonempty_string(risk))
		return bad(file, "approval.approveRisk", "expected the reason, a non-empty string");
	cJSON_ArrayForEach(e, ap) {
		if (strcmp(e->string, "policyVersion") && strcmp(e->string, "granted") &&
		    strcmp(e->string, "approveRisk") && strcmp(e->string, "reason")) {
			snprintf(buf, sizeof buf, "approval.%.40s", e->string);
			return bad(file, buf, "unknown field");
		}
	}
	if (risk) {
		push(&r->argv, "--approve-risk");
		push(&r->argv, risk->valuestring);
	}
	if (g && cJSON_IsTrue(g)) {
		cJSON_ArrayForEach(e, caps) {
			const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "kind");
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "scope");
			char *grant = NULL;
			if (asprintf(&grant, "%s%s%s", k->valuestring, s ? ":" : "",
				     s ? s->valuestring : "") < 0) {
				r->argv.oom = true;
				break;
			}
			push(&r->argv, "--approve");
			push(&r->argv, grant);
			free(grant);
		}
	}
	return CW_CLI_CONTINUE;
}

/* The command, last in the run form (after "--"). */
static int parse_command(const char *file, const cJSON *root, struct request *r)
{
	const cJSON *j, *e;
	char buf[64];

	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(root, "command");
	if (!cJSON_IsObject(cmd))
		return bad(file, "command", "required: {\"name\": ..., \"args\": [...]}");
	j = cJSON_GetObjectItemCaseSensitive(cmd, "name");
	if (!nonempty_string(j))
		return bad(file, "command.name", "required: a non-empty string");
	push(&r->argv, "--");
	push(&r->argv, j->valuestring);
	j = cJSON_GetObjectItemCaseSensitive(cmd, "args");
	if (j && !cJSON_IsArray(j))
		return bad(file, "command.args", "expected an array of strings");
	int i = 0;
	cJSON_ArrayForEach(e, j) {
		snprintf(buf, sizeof buf, "command.args[%d]", i++);
		if (!cJSON_IsString(e))
			return bad(file, buf, "expected a string");
		push(&r->argv, e->valuestring);
	}
	return CW_CLI_CONTINUE;
}

/* Validate ROOT and build the run form, in the order of its options.
 * Returns CW_CLI_CONTINUE, or the exit status after a message naming the
 * field. */
static int parse_request(const char *file, const cJSON *root, struct request *r)
{
	int st = parse_header(file, root, r);
	if (st != CW_CLI_CONTINUE)
		return st;
	push(&r->argv, "capwatch");
	int (*const steps[])(const char *, const cJSON *, struct request *) = {
		parse_profile, parse_places, parse_limits_env, parse_approval, parse_command,
	};
	for (size_t i = 0; i < CW_ARRAY_SIZE(steps); i++)
		if ((st = steps[i](file, root, r)) != CW_CLI_CONTINUE)
			return st;
	if (r->argv.oom) {
		fputs("capwatch: out of memory\n", stderr);
		return CW_EXIT_FAILURE;
	}
	return CW_CLI_CONTINUE;
}

/* ---- the child: the ordinary run ---- */

static void child(struct request *r, int out, int err, int rep, cw_exec_run_fn run_main)
{
	/* capwatch's own messages go where exec's stderr goes, not into the
	 * captured stderr */
	int logfd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (logfd >= 0)
		cw_log_set_fd(logfd);
	if (r->captured) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(CW_EXIT_FAILURE);
		if (nul > 2)
			close(nul);
	}
	if (r->cwd && chdir(r->cwd) < 0) {
		cw_err("workingDirectory %s: %s", r->cwd, strerror(errno));
		_exit(CW_EXIT_FAILURE);
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, r->env)
		setenv(e->string, e->valuestring, 1);
	char fdarg[16];
	snprintf(fdarg, sizeof fdarg, "%d", rep);
	/* insert --report-fd after argv[0] */
	size_t n = r->argv.n;
	char **v = calloc(n + 3, sizeof(char *));
	if (!v)
		_exit(CW_EXIT_FAILURE);
	v[0] = r->argv.v[0];
	v[1] = "--report-fd";
	v[2] = fdarg;
	for (size_t i = 1; i < n; i++)
		v[i + 2] = r->argv.v[i];
	struct cw_options opts;
	FILE *logf = logfd >= 0 ? fdopen(dup(logfd), "w") : NULL;
	int st = cw_cli_parse((int)(n + 2), v, &opts, logf ? logf : stderr, logf ? logf : stderr);
	if (logf)
		fflush(logf);
	if (st != CW_CLI_CONTINUE)
		_exit(st == 0 ? CW_EXIT_FAILURE : st);
	opts.from_request = true;
	_exit(run_main(&opts));
}

/* ---- the parent: drain, digest, outcome ---- */

struct stream {
	int fd;
	char *buf;            /* up to limit bytes (report: everything) */
	size_t len, total;
	bool bounded;
	size_t limit;
	struct cw_sha256 sha;
};

static int drain(struct stream *s)
{
	char tmp[65536];
	ssize_t r = read(s->fd, tmp, sizeof tmp);
	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (r == 0)
		return 1;
	cw_sha256_update(&s->sha, tmp, (size_t)r);
	s->total += (size_t)r;
	size_t keep = (size_t)r;
	if (s->bounded)
		keep = s->len >= s->limit ? 0 : (s->limit - s->len < keep ? s->limit - s->len : keep);
	if (keep) {
		char *nb = realloc(s->buf, s->len + keep + 1);
		if (!nb)
			return -ENOMEM;
		s->buf = nb;
		memcpy(s->buf + s->len, tmp, keep);
		s->len += keep;
		s->buf[s->len] = '\0';
	}
	return 0;
}

/* Valid UTF-8 for JSON: each byte of an invalid sequence (and NUL) becomes
 * U+FFFD. A sequence cut by the limit at the end is dropped. */
static char *utf8_text(const char *p, size_t n, bool cut, bool *lossy)
{
	char *o = malloc(n * 3 + 1), *q = o;
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0;
	*lossy = false;
	if (!o)
		return NULL;
	while (i < n) {
		unsigned c = s[i];
		size_t l = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		bool ok = l > 0 && c != 0;
		if (ok && l > 1) {
			if (i + l > n) {
				if (cut)
					break; /* the limit cut this character */
				ok = false;
			} else {
				for (size_t k = 1; k < l && ok; k++)
					ok = (s[i + k] & 0xc0) == 0x80;
				if (ok) {
					unsigned cp = l == 2 ? (c & 0x1f) << 6 | (s[i + 1] & 0x3f) :
						      l == 3 ? (c & 0x0f) << 12 | (s[i + 1] & 0x3fu) << 6 | (s[i + 2] & 0x3f) :
							       (c & 0x07) << 18 | (s[i + 1] & 0x3fu) << 12 |
								       (s[i + 2] & 0x3fu) << 6 | (s[i + 3] & 0x3f);
					ok = (l == 2 && cp >= 0x80) || (l == 3 && cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) ||
					     (l == 4 && cp >= 0x10000 && cp <= 0x10ffff);
				}
			}
		}
		if (ok) {
			memcpy(q, s + i, l);
			q += l;
			i += l;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
			i++;
			*lossy = true;
		}
	}
	*q = '\0';
	return o;
}

static void add_stream(cJSON *root, const char *key, struct stream *s)
{
	char hex[65];
	bool lossy;
	bool truncated = s->total > s->len;
	cJSON *o = cJSON_AddObjectToObject(root, key);
	char *text = utf8_text(s->buf ? s->buf : "", s->len, truncated, &lossy);
	cw_sha256_hex(&s->sha, hex);
	if (!o || !text) {
		free(text);
		return;
	}
	cJSON_AddStringToObject(o, "text", text);
	cJSON_AddNumberToObject(o, "bytes", (double)s->total);
	cJSON_AddNumberToObject(o, "capturedBytes", (double)s->len);
	cJSON_AddBoolToObject(o, "truncated", truncated);
	cJSON_AddBoolToObject(o, "lossy", lossy);
	cJSON_AddStringToObject(o, "sha256", hex);
	free(text);
}

static const char *const outcome_keys[] = { "state", "kind", "exit", "denial", "enforcement", "changes",
					     "changes_truncated", "changesOmitted", NULL };

/* static by necessity: the pid pass_on(), a signal handler, sends to;
 * a handler has no argument to find it through. */
static volatile pid_t exec_child;

static void pass_on(int sig)
{
	if (exec_child > 0)
		kill(exec_child, sig);
}

static int usage(FILE *f, int st)
{
	fputs("Usage: capwatch exec --request REQUEST.json|-\n"
	      "Run one JSON execution request and print one JSON outcome on stdout\n"
	      "(schemas/request.schema.json, schemas/outcome.schema.json, docs/agents.md).\n", f);
	return st;
}

/* The arguments of exec: *FILE, the request. CW_CLI_CONTINUE or the exit
 * status (after --help, or a usage message). */
static int parse_args(int argc, char **argv, const char **file)
{
	*file = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return usage(stdout, 0);
		if (strcmp(argv[i], "--request") == 0 && i + 1 < argc && !*file)
			*file = argv[++i];
		else if (strncmp(argv[i], "--request=", 10) == 0 && !*file)
			*file = argv[i] + 10;
		else {
			fprintf(stderr, "capwatch: exec: unexpected argument \"%s\"\n", argv[i]);
			return usage(stderr, CW_EXIT_FAILURE);
		}
	}
	if (!*file) {
		fputs("capwatch: exec: --request REQUEST.json is required\n", stderr);
		return usage(stderr, CW_EXIT_FAILURE);
	}
	return CW_CLI_CONTINUE;
}

/* Read and parse FILE ("-": stdin), at most REQUEST_MAX bytes. The tree,
 * or NULL after a message. */
static cJSON *read_request(const char *file)
{
	int fd = strcmp(file, "-") == 0 ? dup(0) : open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "capwatch: %s: %s\n", file, strerror(errno));
		return NULL;
	}
	struct stream in = { .fd = fd };
	cw_sha256_init(&in.sha);
	int dr;
	while ((dr = drain(&in)) == 0 && in.total <= REQUEST_MAX)
		;
	close(fd);
	if (dr < 0 || in.total > REQUEST_MAX) {
		fprintf(stderr, "capwatch: %s: %s\n", file, dr < 0 ? strerror(-dr) : "request too large");
		free(in.buf);
		return NULL;
	}
	cJSON *root = cJSON_ParseWithLength(in.buf ? in.buf : "", in.len);
	free(in.buf);
	if (!root)
		fprintf(stderr, "capwatch: %s: not valid JSON\n", file);
	return root;
}

/* Fork the run; in this process, SS[0] is the report's pipe and, captured,
 * SS[1] and SS[2] the command's stdout and stderr. The child's pid, or -1
 * after a message. */
static pid_t start_run(struct request *r, struct stream ss[3], cw_exec_run_fn run_main)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pr[2] = { -1, -1 };
	if ((r->captured && (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)) ||
	    pipe2(pr, O_CLOEXEC) < 0) {
		fprintf(stderr, "capwatch: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "capwatch: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (r->captured) {
			close(po[0]);
			close(pe[0]);
		}
		close(pr[0]);
		child(r, po[1], pe[1], pr[1], run_main);
	}
	if (r->captured) {
		close(po[1]);
		close(pe[1]);
	}
	close(pr[1]);
	ss[0] = (struct stream){ .fd = pr[0] };
	ss[1] = (struct stream){ .fd = po[0], .bounded = true, .limit = r->limit };
	ss[2] = (struct stream){ .fd = pe[0], .bounded = true, .limit = r->limit };
	for (int i = 0; i < 3; i++)
		cw_sha256_init(&ss[i].sha);
	return pid;
}

/* The run (the child) decides what a signal does to the command and
 * reports it; this process stays to print the outcome. A terminal's ^C
 * and ^\ reach the child's process group directly; SIGTERM and SIGHUP
 * sent to us are passed on. */
static void pass_signals_to(pid_t pid)
{
	exec_child = pid;
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = pass_on;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Drain the OPEN_N first of SS that are open until each is at its end:
 * all of them at once, a full pipe would stall the command. */
static void drain_all(struct stream ss[3], int open_n)
{
	while (open_n > 0) {
		struct pollfd pf[3];
		int map[3], k = 0;
		for (int i = 0; i < 3; i++)
			if (ss[i].fd >= 0) {
				pf[k].fd = ss[i].fd;
				pf[k].events = POLLIN;
				map[k++] = i;
			}
		if (poll(pf, (nfds_t)k, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int x = 0; x < k; x++) {
			if (!(pf[x].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			struct stream *s = &ss[map[x]];
			int d = drain(s);
			if (d != 0) {
				close(s->fd);
				s->fd = -1;
				open_n--;
			}
		}
	}
}

/* The outcome from the report in SS[0] (or, without one, a setup
 * failure), the exit status CODE and the captured streams, on stdout.
 * Returns CODE, or 125 when it could not be printed. */
static int print_outcome(const struct request *r, struct stream ss[3], int code)
{
	cJSON *out = cJSON_CreateObject();
	cJSON *rep = ss[0].buf ? cJSON_ParseWithLength(ss[0].buf, ss[0].len) : NULL;
	cJSON_AddStringToObject(out, "schema", OUTCOME_SCHEMA);
	cJSON_AddStringToObject(out, "origin", r->origin);
	cJSON_AddStringToObject(out, "mode", r->captured ? "captured" : "interactive");
	cJSON_AddNumberToObject(out, "policyVersion", CW_POLICY_VERSION);
	const cJSON *ro = rep ? cJSON_GetObjectItemCaseSensitive(rep, "outcome") : NULL;
	if (ro) {
		for (const char *const *k = outcome_keys; *k; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(ro, *k);
			if (v)
				cJSON_AddItemToObject(out, *k, cJSON_Duplicate(v, true));
		}
		const char *const extra[] = { "profile", "denials", "approvals", NULL };
		for (const char *const *k = extra; *k; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(rep, *k);
			if (v)
				cJSON_AddItemToObject(out, *k, cJSON_Duplicate(v, true));
		}
	} else {
		/* no report: capwatch failed before it could write one */
		cJSON_AddStringToObject(out, "state", "failed");
		cJSON_AddStringToObject(out, "kind", "sandbox_setup_failure");
		cJSON *en = cJSON_AddObjectToObject(out, "enforcement");
		cJSON_AddStringToObject(en, "backend", "none");
		cJSON_AddStringToObject(en, "level", "enforce");
		cJSON_AddBoolToObject(en, "degraded", false);
		cJSON_AddStringToObject(en, "downgradeReason", "no report was written");
		cJSON_AddArrayToObject(out, "changes");
	}
	cJSON_AddNumberToObject(out, "exitStatus", code);
	if (r->captured) {
		add_stream(out, "stdout", &ss[1]);
		add_stream(out, "stderr", &ss[2]);
	}
	char *text = cJSON_Print(out);
	if (text) {
		fputs(text, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		free(text);
	} else {
		fputs("capwatch: out of memory\n", stderr);
		code = CW_EXIT_FAILURE;
	}
	cJSON_Delete(out);
	cJSON_Delete(rep);
	return code;
}

int cw_exec_request(int argc, char **argv, cw_exec_run_fn run_main)
{
	const char *file;
	int st = parse_args(argc, argv, &file);
	if (st != CW_CLI_CONTINUE)
		return st;
	cJSON *root = read_request(file);
	if (!root)
		return CW_EXIT_FAILURE;
	struct request r = { 0 };
	st = parse_request(file, root, &r);
	if (st != CW_CLI_CONTINUE) {
		args_free(&r.argv);
		cJSON_Delete(root);
		return st;
	}

	struct stream ss[3];
	pid_t pid = start_run(&r, ss, run_main);
	if (pid < 0) {
		args_free(&r.argv);
		cJSON_Delete(root);
		return CW_EXIT_FAILURE;
	}
	pass_signals_to(pid);
	drain_all(ss, r.captured ? 3 : 1);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int code = print_outcome(&r, ss, WIFEXITED(status) ? WEXITSTATUS(status) : CW_EXIT_FAILURE);
	for (int i = 0; i < 3; i++)
		free(ss[i].buf);
	args_free(&r.argv);
	cJSON_Delete(root);
	return code;
}
