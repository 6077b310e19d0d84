/* capwatch: a runtime capability supervisor. main() only dispatches:
 * subcommands to tools/, `exec --request` to exec_request.c with the run
 * form's main, the run form to cli.c + run.c. The only caller of run.c. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "supervisor/cli.h"
#include "supervisor/exec_request.h"
#include "supervisor/fds.h"
#include "supervisor/run.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "exec") == 0)
		return cw_exec_request(argc - 1, argv + 1, cw_run_main);
	int status = cw_cli_dispatch_subcommand(argc, argv);
	if (status != CW_CLI_CONTINUE)
		return status;

	struct cw_options opts;
	status = cw_cli_parse(argc, argv, &opts, stdout, stderr);
	if (status != CW_CLI_CONTINUE)
		return status;
	/* The descriptors capwatch was started with, before it opens any
	 * of its own (fds.h); the report's, the trace's and the approval
	 * channel's are capwatch's, not the command's. */
	int own[] = { opts.report_fd, opts.trace_fd, opts.approval_fd };
	if (cw_fds_snapshot(own, 3, &opts.inherited, &opts.ninherited) < 0) {
		fprintf(stderr, "capwatch: out of memory\n");
		cw_options_free(&opts);
		return CW_EXIT_FAILURE;
	}
	status = cw_run_main(&opts);
	cw_fds_free(opts.inherited, opts.ninherited);
	cw_options_free(&opts);
	return status;
}
