/* The trace tools without the supervisor: `cwtool SUBCOMMAND ARGS...` calls
 * the same cw_tool_* function that `capwatch SUBCOMMAND` dispatches to. The
 * tests use the real capwatch binary when it dispatches subcommands and this
 * driver otherwise (tests/tools/lib.sh decides and says which). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tools/tools.h"

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} subs[] = {
		{ "replay", cw_tool_replay }, { "explain", cw_tool_explain }, { "learn", cw_tool_learn },
		{ "diff", cw_tool_diff }, { "export", cw_tool_export }, { "profiles", cw_tool_profiles },
	};
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: cwtool replay|explain|learn|diff|export|profiles ARGS...\n");
		return 125;
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "cwtool: unknown subcommand \"%s\"\n", argv[1]);
	return 125;
}
