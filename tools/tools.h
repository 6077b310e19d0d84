#ifndef CAPWATCH_TOOLS_H
#define CAPWATCH_TOOLS_H
/* Subcommands of the capwatch binary that work on recorded traces and
 * reports, not on a live command. Each takes the arguments after its own
 * name (argv[0] is the subcommand name) and returns the process exit status. */

int cw_tool_replay(int argc, char **argv);
int cw_tool_explain(int argc, char **argv);
int cw_tool_learn(int argc, char **argv);
int cw_tool_diff(int argc, char **argv);
int cw_tool_export(int argc, char **argv);
int cw_tool_profiles(int argc, char **argv);

#endif
