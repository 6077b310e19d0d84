/* Command-line parsing for the run form (contract section 1). */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "supervisor/cli.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

enum {
	OPT_PROFILE = 'p',
	OPT_WORKSPACE = 'w',
	OPT_QUIET = 'q',
	OPT_VERBOSE = 'v',
	OPT_HELP = 'h',
	OPT_REPORT = 0x100,
	OPT_REPORT_FD,
	OPT_TRACE,
	OPT_TIMEOUT,
	OPT_APPROVE_RISK,
	OPT_APPROVE,
	OPT_OBSERVE,
	OPT_ENV_PASS,
	OPT_INHERIT_ENV,
	OPT_KEEP_SCRATCH,
	OPT_VERSION,
	OPT_APPROVAL_SOCKET,
	OPT_APPROVAL_FD,
	OPT_KEEP_FD,
	OPT_APPROVAL_TIMEOUT,
	OPT_NO_LANDLOCK,
	OPT_MAX_PROCS,
	OPT_BACKEND,
	OPT_TRACE_FD,
};

static const struct option long_options[] = {
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "workspace", required_argument, NULL, OPT_WORKSPACE },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "report-fd", required_argument, NULL, OPT_REPORT_FD },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "trace-fd", required_argument, NULL, OPT_TRACE_FD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "approve-risk", required_argument, NULL, OPT_APPROVE_RISK },
	{ "approve", required_argument, NULL, OPT_APPROVE },
	{ "observe", no_argument, NULL, OPT_OBSERVE },
	{ "approval-socket", required_argument, NULL, OPT_APPROVAL_SOCKET },
	{ "approval-fd", required_argument, NULL, OPT_APPROVAL_FD },
	{ "keep-fd", required_argument, NULL, OPT_KEEP_FD },
	{ "approval-timeout", required_argument, NULL, OPT_APPROVAL_TIMEOUT },
	{ "env-pass", required_argument, NULL, OPT_ENV_PASS },
	{ "inherit-env", no_argument, NULL, OPT_INHERIT_ENV },
	{ "keep-scratch", no_argument, NULL, OPT_KEEP_SCRATCH },
	{ "no-landlock", no_argument, NULL, OPT_NO_LANDLOCK },
	{ "max-procs", required_argument, NULL, OPT_MAX_PROCS },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char help_text[] =
	"Usage: capwatch [OPTIONS] -- COMMAND [ARG...]\n"
	"       capwatch replay|explain|learn|diff|export|exec|profiles ...\n"
	"\n"
	"Run COMMAND under a runtime capability policy: every file write, exec,\n"
	"network connection and signal of the process tree is decided by a profile,\n"
	"denied operations fail with EACCES/EPERM, and a JSON report is written.\n"
	"\n"
	"Policy:\n"
	"  -p, --profile NAME|FILE   built-in profile (none, readonly, verify, repair,\n"
	"                            observe) or a JSON profile file; default verify\n"
	"  -w, --workspace DIR       a workspace root (repeatable); default: the\n"
	"                            current directory\n"
	"      --approve CAP[:SCOPE] grant one capability, or one scope of it, for\n"
	"                            this run (repeatable)\n"
	"      --approve-risk REASON turn every \"ask\" decision into allow, recorded\n"
	"                            with REASON\n"
	"      --observe             decide and record, but deny nothing\n"
	"\n"
	"Approvals (\"ask\" decisions; default: a prompt on the terminal):\n"
	"      --approval-socket PATH  ask a program instead: newline-delimited JSON\n"
	"                            on a unix socket created at PATH\n"
	"      --approval-fd N       the same on an already connected descriptor\n"
	"      --approval-timeout SECONDS  deny when no answer came (default 60)\n"
	"\n"
	"Environment:\n"
	"      --env-pass VAR        pass VAR through the environment sanitizer\n"
	"                            (repeatable)\n"
	"      --inherit-env         ask for the full environment (the environment\n"
	"                            capability)\n"
	"      --keep-scratch        keep the run's scratch TMPDIR at the end\n"
	"\n"
	"Output:\n"
	"      --report FILE         write the JSON report to FILE\n"
	"      --report-fd N         write the JSON report to descriptor N (N > 2)\n"
	"      --trace FILE          write the JSONL event trace to FILE\n"
	"      --trace-fd N          write the trace to descriptor N (N > 2) as the\n"
	"                            run goes (a pipe to a log shipper, a FIFO)\n"
	"  -q, --quiet               only errors from capwatch itself\n"
	"  -v, --verbose             more diagnostics (twice: debug)\n"
	"\n"
	"Limits:\n"
	"      --timeout SECONDS     kill the whole process tree after SECONDS\n"
	"                            (suffix s, m, h or d allowed); exit 124\n"
	"      --max-procs N         at most N processes and threads in the tree\n"
	"                            (a cgroup's pids.max; default 4096)\n"
	"      --backend auto|kernel|portable\n"
	"                            how the tree is supervised: kernel (root: cgroup,\n"
	"                            fanotify, proc connector) or portable (ptrace);\n"
	"                            auto (default) takes kernel where it works\n"
	"      --no-landlock         no Landlock backstop on the command (debugging)\n"
	"      --keep-fd N           pass inherited descriptor N (> 2) to the command,\n"
	"                            decided like an open of what it refers to\n"
	"                            (repeatable; others are closed and reported)\n"
	"\n"
	"Other:\n"
	"  -h, --help                show this help and exit\n"
	"      --version             show the version and exit\n"
	"\n"
	"Exit status: the command's own (128+N when killed by signal N); 124 timeout;\n"
	"125 capwatch failed; 126 denied before start or not executable; 127 not found.\n"
	"See capwatch(1) and capwatch-profile(5).\n";

/* One message, one write (the log module's rule; ERR may be a test's
 * memory stream, so it is not used here). */
static int usage_error(FILE *err, const char *fmt, const char *arg)
{
	char msg[512], line[700];
	snprintf(msg, sizeof(msg), fmt, arg);
	snprintf(line, sizeof(line), "capwatch: %s\ncapwatch: try 'capwatch --help'\n", msg);
	fputs(line, err);
	fflush(err);
	return CW_EXIT_FAILURE;
}

/* Parse "1.5", "10s", "2m", "1h", "1d" like timeout(1). */
static int parse_duration(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end) {
		double mult;
		switch (*end) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return -EINVAL;
		}
		if (end[1])
			return -EINVAL;
		v *= mult;
	}
	if (v <= 0 || v > 1e9)
		return -EINVAL;
	*out = v;
	return 0;
}

static int push(const char ***arr, size_t *n, const char *v)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(**arr));
	if (!a)
		return -ENOMEM;
	a[(*n)++] = v;
	*arr = a;
	return 0;
}

/* --approve CAP[:SCOPE]: the capability name ends at the first ':' (scopes
 * such as "203.0.113.7:80" contain colons themselves). */
static int parse_grant(const char *arg, struct cw_grant *g)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	char name[64];
	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, arg, n);
	name[n] = '\0';
	int k = cw_cap_from_name(name);
	if (k < 0)
		return -EINVAL;
	g->cap = (cw_cap_kind)k;
	g->scope = colon && colon[1] ? colon + 1 : NULL;
	return 0;
}

void cw_options_free(struct cw_options *o)
{
	free(o->workspaces);
	free(o->grants);
	free(o->env_pass);
	memset(o, 0, sizeof(*o));
	o->report_fd = -1;
	o->trace_fd = -1;
	o->approval_fd = -1;
}

static bool valid_env_name(const char *s)
{
	if (!*s || strchr(s, '='))
		return false;
	return true;
}

/* What an option's handler below returns: CW_CLI_CONTINUE when the
 * option was taken, NOT_MINE when it belongs to another section, EMPTY or
 * OOM for the messages cw_cli_parse() writes, else the exit status after
 * a message. One handler per section of the help. */
enum { NOT_MINE = -2, EMPTY = -3, OOM = -4 };

/* A decimal number in [LO, HI]. */
static bool parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

static int opt_policy(int c, const char *arg, struct cw_options *o, FILE *err)
{
	switch (c) {
	case OPT_PROFILE:
		if (!*arg)
			return EMPTY;
		o->profile = arg;
		return CW_CLI_CONTINUE;
	case OPT_WORKSPACE:
		if (!*arg)
			return EMPTY;
		return push(&o->workspaces, &o->nworkspaces, arg) < 0 ? OOM : CW_CLI_CONTINUE;
	case OPT_APPROVE_RISK:
		if (!*arg)
			return usage_error(err, "--approve-risk needs a reason%s", "");
		o->approve_risk = arg;
		return CW_CLI_CONTINUE;
	case OPT_APPROVE: {
		struct cw_grant g;
		if (parse_grant(arg, &g) < 0)
			return usage_error(err, "--approve: unknown capability in \"%s\"", arg);
		struct cw_grant *a = realloc(o->grants, (o->ngrants + 1) * sizeof(*a));
		if (!a)
			return OOM;
		a[o->ngrants++] = g;
		o->grants = a;
		return CW_CLI_CONTINUE;
	}
	case OPT_OBSERVE:
		o->observe = true;
		return CW_CLI_CONTINUE;
	}
	return NOT_MINE;
}

static int opt_approvals(int c, const char *arg, struct cw_options *o, FILE *err)
{
	long v;
	switch (c) {
	case OPT_APPROVAL_SOCKET:
		if (!*arg)
			return EMPTY;
		o->approval_socket = arg;
		return CW_CLI_CONTINUE;
	case OPT_APPROVAL_FD:
		if (!parse_long(arg, 3, INT_MAX, &v))
			return usage_error(err, "--approval-fd: not a descriptor above 2: \"%s\"", arg);
		o->approval_fd = (int)v;
		return CW_CLI_CONTINUE;
	case OPT_APPROVAL_TIMEOUT:
		if (parse_duration(arg, &o->approval_timeout) < 0 || o->approval_timeout <= 0)
			return usage_error(err, "--approval-timeout: invalid duration \"%s\"", arg);
		return CW_CLI_CONTINUE;
	}
	return NOT_MINE;
}

static int opt_environment(int c, const char *arg, struct cw_options *o, FILE *err)
{
	switch (c) {
	case OPT_ENV_PASS:
		if (!valid_env_name(arg))
			return usage_error(err, "--env-pass: invalid variable name \"%s\"", arg);
		return push(&o->env_pass, &o->nenv_pass, arg) < 0 ? OOM : CW_CLI_CONTINUE;
	case OPT_INHERIT_ENV:
		o->inherit_env = true;
		return CW_CLI_CONTINUE;
	case OPT_KEEP_SCRATCH:
		o->keep_scratch = true;
		return CW_CLI_CONTINUE;
	}
	return NOT_MINE;
}

static int opt_output(int c, const char *arg, struct cw_options *o, FILE *err)
{
	long v;
	switch (c) {
	case OPT_REPORT:
		if (!*arg)
			return EMPTY;
		o->report = arg;
		return CW_CLI_CONTINUE;
	case OPT_REPORT_FD:
		if (!parse_long(arg, 0, INT_MAX, &v))
			return usage_error(err, "--report-fd: not a descriptor number: \"%s\"", arg);
		/* The report never shares a stream with the command. */
		if (v <= 2)
			return usage_error(err, "--report-fd %s: the report never goes to stdin, stdout or stderr", arg);
		o->report_fd = (int)v;
		return CW_CLI_CONTINUE;
	case OPT_TRACE:
		if (!*arg)
			return EMPTY;
		o->trace = arg;
		return CW_CLI_CONTINUE;
	case OPT_TRACE_FD:
		if (!parse_long(arg, 0, INT_MAX, &v))
			return usage_error(err, "--trace-fd: not a descriptor number: \"%s\"", arg);
		/* JSONL mixed with the command's output is no stream a
		 * pipeline can parse */
		if (v <= 2)
			return usage_error(err, "--trace-fd %s: the trace never goes to stdin, stdout or stderr", arg);
		o->trace_fd = (int)v;
		return CW_CLI_CONTINUE;
	case OPT_QUIET:
		o->verbosity = -1;
		return CW_CLI_CONTINUE;
	case OPT_VERBOSE:
		if (o->verbosity < 0)
			o->verbosity = 0;
		o->verbosity++;
		return CW_CLI_CONTINUE;
	}
	return NOT_MINE;
}

static int opt_limits(int c, const char *arg, struct cw_options *o, FILE *err)
{
	long v;
	switch (c) {
	case OPT_TIMEOUT:
		if (parse_duration(arg, &o->timeout) < 0)
			return usage_error(err, "--timeout: invalid duration \"%s\"", arg);
		return CW_CLI_CONTINUE;
	case OPT_MAX_PROCS:
		if (!parse_long(arg, 1, 4194304, &v))
			return usage_error(err, "--max-procs: not a positive number: \"%s\"", arg);
		o->max_procs = v;
		return CW_CLI_CONTINUE;
	case OPT_BACKEND:
		if (strcmp(arg, "auto") == 0)
			o->backend = CW_BACKEND_AUTO;
		else if (strcmp(arg, "kernel") == 0)
			o->backend = CW_BACKEND_KERNEL;
		else if (strcmp(arg, "portable") == 0)
			o->backend = CW_BACKEND_PORTABLE;
		else
			return usage_error(err, "--backend: not auto, kernel or portable: \"%s\"", arg);
		return CW_CLI_CONTINUE;
	case OPT_NO_LANDLOCK:
		o->no_landlock = true;
		return CW_CLI_CONTINUE;
	case OPT_KEEP_FD:
		if (!parse_long(arg, 3, INT_MAX, &v))
			return usage_error(err, "--keep-fd: not a descriptor above 2: \"%s\"", arg);
		if (o->nkeep_fds >= CW_MAX_KEEP_FDS)
			return usage_error(err, "--keep-fd %s: at most 32 descriptors", arg);
		o->keep_fds[o->nkeep_fds++] = (int)v;
		return CW_CLI_CONTINUE;
	}
	return NOT_MINE;
}

/* --help and --version (exit 0), or an unknown option. */
static int opt_other(int c, char **argv, FILE *out, FILE *err)
{
	switch (c) {
	case OPT_HELP:
		fputs(help_text, out);
		fflush(out);
		return 0;
	case OPT_VERSION:
		fprintf(out, "capwatch %s\n", PACKAGE_VERSION);
		fflush(out);
		return 0;
	}
	if (optopt && optopt < 0x100) {
		char s[2] = { (char)optopt, 0 };
		return usage_error(err, "invalid option -%s", s);
	}
	return usage_error(err, "invalid option or missing argument: \"%s\"", argv[optind - 1]);
}

/* The options that exclude each other, and the command. */
static int check_options(int argc, char **argv, struct cw_options *o, FILE *err)
{
	if (o->report && o->report_fd >= 0)
		return usage_error(err, "--report and --report-fd are exclusive%s", "");
	if (o->trace && o->trace_fd >= 0)
		return usage_error(err, "--trace and --trace-fd are exclusive%s", "");
	if (o->trace_fd >= 0) {
		/* one descriptor, one stream: capwatch takes the trace's for
		 * itself, so nothing else may name it */
		bool clash = o->trace_fd == o->report_fd || o->trace_fd == o->approval_fd;
		for (size_t k = 0; k < o->nkeep_fds; k++)
			clash |= o->trace_fd == o->keep_fds[k];
		if (clash) {
			char n[16];
			snprintf(n, sizeof(n), "%d", o->trace_fd);
			return usage_error(err, "--trace-fd %s: the descriptor is named by another option too", n);
		}
	}
	if (optind >= argc)
		return usage_error(err, "no command given: capwatch [OPTIONS] -- COMMAND [ARG...]%s", "");
	if (!*argv[optind])
		return usage_error(err, "empty command name%s", "");
	o->command = argv + optind;
	return CW_CLI_CONTINUE;
}

int cw_cli_parse(int argc, char **argv, struct cw_options *o, FILE *out, FILE *err)
{
	static int (*const sections[])(int, const char *, struct cw_options *, FILE *) = {
		opt_policy, opt_approvals, opt_environment, opt_output, opt_limits,
	};
	int c, st = CW_CLI_CONTINUE;

	memset(o, 0, sizeof(*o));
	o->profile = "verify";
	o->report_fd = -1;
	o->trace_fd = -1;
	o->approval_fd = -1;
	optind = 0; /* full reset of getopt state, so the parser can run twice */
	opterr = 0;
	/* "+": stop at the first non-option, which is the command. */
	int longindex;
	while ((longindex = -1, c = getopt_long(argc, argv, "+p:w:qvh", long_options, &longindex)) != -1) {
		st = NOT_MINE;
		for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]) && st == NOT_MINE; i++)
			st = sections[i](c, optarg, o, err);
		if (st == NOT_MINE)
			st = opt_other(c, argv, out, err);
		if (st != CW_CLI_CONTINUE)
			break;
	}
	if (st == CW_CLI_CONTINUE)
		st = check_options(argc, argv, o, err);
	if (st == EMPTY) {
		/* Name the option as it was given: --NAME, or -X. */
		char name[64];
		if (longindex >= 0)
			snprintf(name, sizeof(name), "--%s", long_options[longindex].name);
		else
			snprintf(name, sizeof(name), "-%c", c);
		st = usage_error(err, "option %s needs a non-empty argument", name);
	} else if (st == OOM) {
		fputs("capwatch: out of memory\n", err);
		st = CW_EXIT_FAILURE;
	}
	if (st != CW_CLI_CONTINUE)
		cw_options_free(o);
	return st;
}
