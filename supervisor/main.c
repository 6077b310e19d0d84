/* capwatch: a runtime capability supervisor. main() only dispatches:
 * subcommands to tools/, the run form to cli.c + run.c. */
#include "config.h"
#include <stdio.h>
#include "supervisor/cli.h"
#include "supervisor/run.h"

int main(int argc, char **argv)
{
	int status = cw_cli_dispatch_subcommand(argc, argv);
	if (status != CW_CLI_CONTINUE)
		return status;

	struct cw_options opts;
	status = cw_cli_parse(argc, argv, &opts, stdout, stderr);
	if (status != CW_CLI_CONTINUE)
		return status;
	status = cw_run_main(&opts);
	cw_options_free(&opts);
	return status;
}
