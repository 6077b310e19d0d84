/* Subcommands that are specified (contract section 1) but not built yet.
 * Each says so plainly and exits 125; replace one by its own file when it
 * is implemented. */
#include <stdio.h>
#include "tools/tools.h"

static int pending(const char *name, const char *issue)
{
	fprintf(stderr, "capwatch: %s is not implemented yet (see issue %s)\n", name, issue);
	return 125;
}

int cw_tool_learn(int argc, char **argv) { (void)argc; (void)argv; return pending("learn", "6"); }
int cw_tool_diff(int argc, char **argv) { (void)argc; (void)argv; return pending("diff", "6"); }
int cw_tool_export(int argc, char **argv) { (void)argc; (void)argv; return pending("export", "6"); }
int cw_tool_profiles(int argc, char **argv) { (void)argc; (void)argv; return pending("profiles", "2"); }
