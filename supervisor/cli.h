#ifndef CAPWATCH_CLI_H
#define CAPWATCH_CLI_H
/* The run form's command line: capwatch [OPTIONS] -- COMMAND [ARG...].
 * Parsing is separate from the run so that it can be tested on its own. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "policy.h"

#define CW_EXIT_TIMEOUT 124
#define CW_EXIT_FAILURE 125
#define CW_EXIT_CANNOT_EXEC 126
#define CW_EXIT_NOT_FOUND 127

#define CW_MAX_KEEP_FDS 32
struct cw_inherited_fd;

struct cw_options {
	const char *profile;          /* name or file; default "verify" */
	const char **workspaces;      /* as given (realpath'd by the run) */
	size_t nworkspaces;
	const char *report;           /* --report FILE */
	int report_fd;                /* --report-fd N, -1 when absent */
	const char *trace;            /* --trace FILE */
	int trace_fd;                 /* --trace-fd N, -1 when absent */
	double timeout;               /* seconds, 0 = none */
	const char *approve_risk;     /* --approve-risk REASON, or NULL */
	struct cw_grant *grants;      /* --approve CAP[:SCOPE] */
	size_t ngrants;
	bool observe;
	const char *approval_socket;  /* --approval-socket PATH, or NULL */
	int approval_fd;              /* --approval-fd N, -1 when absent */
	double approval_timeout;      /* --approval-timeout SECONDS, 0 = default (60) */
	const char **env_pass;
	size_t nenv_pass;
	bool inherit_env;
	bool keep_scratch;
	bool no_landlock;             /* --no-landlock: no kernel backstop (debugging) */
	long max_procs;               /* --max-procs N, 0 = default (4096) */
	enum cw_backend_choice { CW_BACKEND_AUTO = 0, CW_BACKEND_KERNEL, CW_BACKEND_PORTABLE } backend;
	int verbosity;                /* -1 quiet, 0 default, 1.. verbose */
	char **command;               /* argv of the command, NULL-terminated */
	bool from_request;            /* run for exec --request: its outcome
					 says what was denied (no stderr summary) */
	int keep_fds[CW_MAX_KEEP_FDS];/* --keep-fd N (N > 2) */
	size_t nkeep_fds;
	/* Descriptors above 2 capwatch was started with (fds.h), taken by
	 * main() before capwatch opens anything. */
	struct cw_inherited_fd *inherited;
	size_t ninherited;
};

/* Parse ARGV. Returns 0 with OPTS filled (arrays are malloc'd; free with
 * cw_options_free), or a process exit status when capwatch must stop here:
 * 0 after --help/--version (printed on OUT), 125 after a usage error (one
 * "capwatch: ..." line on ERR). */
#define CW_CLI_CONTINUE (-1)
int cw_cli_parse(int argc, char **argv, struct cw_options *opts, FILE *out, FILE *err);
void cw_options_free(struct cw_options *opts);

/* Subcommands that are not the run form: "replay" etc. Returns the exit
 * status, or CW_CLI_CONTINUE when ARGV is the run form. */
int cw_cli_dispatch_subcommand(int argc, char **argv);

#endif
