/* Subcommands of the capwatch binary that are not the run form: dispatched
 * to tools/ (kept out of cli.c so that the run-form parser links alone in
 * its unit test). "exec" is main.c's: it needs the run form's main. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "supervisor/cli.h"
#include "tools/tools.h"

int cw_cli_dispatch_subcommand(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{ "replay", cw_tool_replay },
		{ "explain", cw_tool_explain },
		{ "learn", cw_tool_learn },
		{ "diff", cw_tool_diff },
		{ "export", cw_tool_export },
		{ "profiles", cw_tool_profiles },
	};
	if (argc < 2)
		return CW_CLI_CONTINUE;
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].fn(argc - 1, argv + 1);
	return CW_CLI_CONTINUE;
}
