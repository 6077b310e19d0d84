/* capwatch profiles: the built-in profiles and what each grants, as the table
 * of contract section 3, built from the profiles themselves (not a copy of
 * the table), so the two cannot drift apart. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/profile.h"
#include "tools/common.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch profiles [NAME|FILE]\n"
	"\n"
	"Without an argument, list the built-in profiles and what each grants: one row\n"
	"per capability, one column per profile (allow, deny or ask; \"allow, flagged\"\n"
	"where the observe profile allows but flags secret reads and protected writes).\n"
	"With NAME (a built-in profile) or FILE (a profile file), print that profile\n"
	"fully expanded (extends resolved) as JSON in the profile file format.\n"
	"\n"
	"Options:\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 success; 125 unknown profile, invalid profile file or usage error.\n";

static const char *cell(const cw_profile *p, int slot)
{
	cw_verdict v = cw_profile_default(p, slot);

	if (v == CW_ALLOW && cw_profile_flags_sensitive(p) &&
	    (slot == CW_SLOT_SECRET_READ || slot == CW_CAP_PROTECTED_METADATA))
		return "allow, flagged";
	return cw_verdict_name(v);
}

static int table(void)
{
	cw_profile *ps[16] = { 0 };
	size_t n, i;
	int slot, ret = 0;
	const int colw = 16;

	for (n = 0; cw_builtin_profile_names[n] && n < 16; n++) {
		if (cw_profile_builtin(cw_builtin_profile_names[n], &ps[n]) < 0) {
			cw_tool_msg("profiles: cannot load built-in profile \"%s\"", cw_builtin_profile_names[n]);
			ret = CW_TOOL_EXIT_USAGE;
			goto out;
		}
	}
	printf("%-30s", "capability");
	for (i = 0; i < n; i++)
		printf(" %-*s", colw, cw_builtin_profile_names[i]);
	printf("\n");
	/* the order of the contract's table: the secret part of filesystem_read
	 * right after filesystem_read */
	for (int row = 0; row < CW_SLOT__COUNT; row++) {
		char label[64];

		slot = row == 0 ? CW_CAP_FILESYSTEM_READ : row == 1 ? CW_SLOT_SECRET_READ : row - 1;
		if (slot == CW_CAP_FILESYSTEM_READ)
			snprintf(label, sizeof(label), "filesystem_read (not secret)");
		else if (slot == CW_SLOT_SECRET_READ)
			snprintf(label, sizeof(label), "filesystem_read (secret)");
		else
			snprintf(label, sizeof(label), "%s", cw_slot_name(slot));
		printf("%-30s", label);
		for (i = 0; i < n; i++)
			printf(" %-*s", colw, cell(ps[i], slot));
		printf("\n");
	}
	printf("\n");
	for (i = 0; i < n; i++) {
		char *js = cw_profile_to_json(ps[i]);
		cJSON *doc = js ? cJSON_Parse(js) : NULL;
		const char *notes = cw_j_str(doc, "notes");

		printf("%-9s ", cw_builtin_profile_names[i]);
		cw_tool_put(stdout, notes ? notes : "");
		if (!cw_profile_allows_start(ps[i]) && !notes)
			printf(" (the command never starts)");
		printf("\n");
		cJSON_Delete(doc);
		free(js);
	}
	printf("\ncapabilities:\n");
	for (slot = 0; slot < CW_CAP__COUNT; slot++)
		printf("  %-22s %s\n", cw_cap_name(slot), cw_cap_description(slot));
	printf("\n\"ask\" prompts on the controlling terminal when there is one, otherwise denies\n"
	       "with nextAction request_approval; --approve-risk turns ask into allow.\n"
	       "`capwatch profiles NAME` prints one profile in full, with its scope lists.\n");
out:
	for (i = 0; i < 16; i++)
		if (ps[i])
			cw_profile_free(ps[i]);
	return ret;
}

int cw_tool_profiles(int argc, char **argv)
{
	cw_profile *p = NULL;
	char *text;
	int i, nargs = 0;
	const char *name = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			cw_tool_msg("profiles: unknown option \"%s\" (see capwatch profiles --help)", argv[i]);
			return CW_TOOL_EXIT_USAGE;
		}
		name = argv[i];
		nargs++;
	}
	if (nargs > 1) {
		cw_tool_msg("profiles: expected at most one profile name (see capwatch profiles --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	if (!name)
		return table();
	if (cw_tool_profile_load(name, &p) < 0)
		return CW_TOOL_EXIT_USAGE;
	text = cw_profile_to_json(p);
	cw_profile_free(p);
	if (!text) {
		cw_tool_msg("profiles: out of memory");
		return CW_TOOL_EXIT_USAGE;
	}
	fputs(text, stdout);
	if (!*text || text[strlen(text) - 1] != '\n')
		fputc('\n', stdout);
	free(text);
	return 0;
}
