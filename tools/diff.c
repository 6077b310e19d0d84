/* capwatch diff: behaviour in NEW that BASE did not have.
 *
 * Four kinds of behaviour are compared as sets: programs executed, network
 * destinations, directories written to, and capability kinds used. Attempts
 * count as behaviour: an operation that was denied in NEW is still something
 * the command tried to do. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/policy.h"
#include "tools/common.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch diff [--all] BASE.jsonl NEW.jsonl\n"
	"\n"
	"Print the behaviour in NEW that BASE did not have:\n"
	"  - new programs (paths executed),\n"
	"  - new network destinations (capability and ADDR:PORT, with the host name when known),\n"
	"  - new write locations (directories written to),\n"
	"  - new capability kinds (filesystem_read_secret for secret-looking reads).\n"
	"Operations that were denied count too: they are what the command tried to do.\n"
	"Paths under a workspace root or the home directory are compared relative to it\n"
	"(shown as <workspace>/... and ~/...), so runs in different checkouts compare.\n"
	"Each list shows at most 50 entries unless --all is given.\n"
	"\n"
	"Options:\n"
	"  --all       do not cap the lists\n"
	"  -h, --help  show this help\n"
	"\n"
	"Exit status: 0 nothing new; 1 something new appeared; 2 bad input (missing\n"
	"file, not a trace, newer schema); 125 usage error. A corrupt line is\n"
	"reported as TRACE:LINE and skipped.\n";

#define LIST_CAP 50

enum { B_PROG, B_NET, B_WRITE, B_KIND, B__COUNT };

struct side {
	struct cw_tool_run run;
	struct cw_sset sets[B__COUNT]; /* data: host (net) */
};

/* Paths under a workspace root or the home directory are compared relative
 * to it, so that two runs of the same command in different checkouts (or as
 * different users) are not all "new": "/a/ws/out" -> "<workspace>/out". */
static char *relabel(const struct side *s, const char *path)
{
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(s->run.header, "roots"), *it;
	const char *home = cw_j_str(s->run.header, "home");
	int i = 0, n = cJSON_GetArraySize(roots);
	char *out;

	cJSON_ArrayForEach(it, roots) {
		const char *r = cJSON_IsString(it) ? it->valuestring : NULL;
		size_t rl = r ? strlen(r) : 0;

		i++;
		if (!r || rl < 2 || strncmp(path, r, rl) || (path[rl] != '/' && path[rl] != '\0'))
			continue;
		if ((n > 1 ? asprintf(&out, "<workspace%d>%s", i, path + rl)
			   : asprintf(&out, "<workspace>%s", path + rl)) < 0)
			return NULL;
		return out;
	}
	if (home && strlen(home) > 1 && !strncmp(path, home, strlen(home)) &&
	    (path[strlen(home)] == '/' || path[strlen(home)] == '\0'))
		return asprintf(&out, "~%s", path + strlen(home)) < 0 ? NULL : out;
	return strdup(path);
}

static int side_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct side *s = opaque;
	const char *type = cw_j_str(ev, "type"), *cap, *scope;
	int r = cw_tool_run_add(&s->run, ev), k;

	(void)lineno;
	if (r < 0)
		return r;
	if (!type)
		return 0;
	if (!strcmp(type, "exec")) {
		char *raw = cw_j_bytes(ev, "exe"), *exe = raw ? relabel(s, raw) : NULL;
		struct cw_sset_ent *e = exe ? cw_sset_get(&s->sets[B_PROG], exe, true) : NULL;

		free(raw);

		/* counted by its exec operation when there is one */
		if (exe && !e)
			r = -ENOMEM;
		else if (e && !e->count)
			e->count = 1;
		free(exe);
		return r;
	}
	if (strcmp(type, "op"))
		return 0;
	cap = cw_j_str(ev, "capability");
	scope = cw_j_str(ev, "scope");
	if (!cap || !strcmp(cap, "none"))
		return 0;
	k = cw_cap_from_name(cap);
	if (k < 0)
		return 0;
	if (!cw_sset_bump(&s->sets[B_KIND], k == CW_CAP_FILESYSTEM_READ && cw_j_bool(ev, "secret", false)
				? "filesystem_read_secret" : cap))
		return -ENOMEM;
	if (!scope)
		return 0;
	switch (k) {
	case CW_CAP_PROCESS_SPAWN: {
		char *p = relabel(s, scope);

		if (!p || !cw_sset_bump(&s->sets[B_PROG], p))
			r = -ENOMEM;
		free(p);
		break;
	}
	case CW_CAP_ISOLATED_LOOPBACK:
	case CW_CAP_HOST_VISIBLE_BINDING:
	case CW_CAP_EXTERNAL_NETWORK:
	case CW_CAP_PROCESS_CONTROL: {
		char key[CW_SCOPE_MAX + 64];
		struct cw_sset_ent *e;

		if (k == CW_CAP_PROCESS_CONTROL && strncmp(scope, "unix:", 5))
			break; /* a pid: not a destination */
		snprintf(key, sizeof(key), "%s %s", cap, scope);
		e = cw_sset_bump(&s->sets[B_NET], key);
		if (!e)
			return -ENOMEM;
		if (!e->data && cw_j_str(ev, "host"))
			e->data = strdup(cw_j_str(ev, "host"));
		break;
	}
	case CW_CAP_WORKSPACE_WRITE:
	case CW_CAP_PROTECTED_METADATA:
	case CW_CAP_UNRESTRICTED:
		if (scope[0] == '/') {
			char *p = relabel(s, scope), *d = p ? cw_tool_dirname(p) : NULL;

			free(p);

			if (!d || !cw_sset_bump(&s->sets[B_WRITE], d))
				r = -ENOMEM;
			free(d);
		}
		break;
	default:
		break;
	}
	return r;
}

static int side_header(void *opaque, const cJSON *hdr, unsigned long lineno)
{
	struct side *s = opaque;

	(void)lineno;
	s->run.header = cJSON_Duplicate(hdr, 1);
	return s->run.header ? 0 : -ENOMEM;
}

static void side_free(struct side *s)
{
	int i;

	for (i = 0; i < B__COUNT; i++)
		cw_sset_free(&s->sets[i], free);
	cw_tool_run_free(&s->run);
}

int cw_tool_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const titles[B__COUNT] = {
		"new programs", "new network destinations", "new write locations", "new capability kinds",
	};
	struct side a, b;
	struct cw_tr_status st;
	struct cw_style sty;
	size_t total = 0, limit = LIST_CAP;
	int c, r, i, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ha", opts, NULL)) != -1) {
		switch (c) {
		case 'a': limit = SIZE_MAX; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			cw_tool_msg("diff: unknown option \"%s\" (see capwatch diff --help)", argv[optind - 1]);
			return CW_TOOL_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		cw_tool_msg("diff: expected BASE.jsonl NEW.jsonl (see capwatch diff --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	cw_tool_run_init(&a.run, argv[optind]);
	cw_tool_run_init(&b.run, argv[optind + 1]);
	r = cw_tr_read(argv[optind], side_header, side_event, &a, &st);
	if (!r)
		r = cw_tr_read(argv[optind + 1], side_header, side_event, &b, &st);
	if (r) {
		if (r == -ENOMEM)
			cw_tool_msg("diff: out of memory");
		ret = CW_TOOL_EXIT_BADINPUT;
		goto out;
	}
	cw_style_init(&sty, stdout);
	for (i = 0; i < B__COUNT; i++) {
		size_t n = 0, j, shown = 0;

		cw_sset_sort(&b.sets[i]);
		for (j = 0; j < b.sets[i].n; j++)
			n += !cw_sset_get(&a.sets[i], b.sets[i].ents[j].key, false);
		if (!n)
			continue;
		total += n;
		printf("%s%s (%zu):%s\n", sty.bold, titles[i], n, sty.reset);
		for (j = 0; j < b.sets[i].n; j++) {
			const struct cw_sset_ent *e = &b.sets[i].ents[j];

			if (cw_sset_get(&a.sets[i], e->key, false))
				continue;
			if (shown++ >= limit)
				continue;
			printf("  %s", sty.yellow);
			cw_tool_put(stdout, e->key);
			printf("%s", sty.reset);
			if (e->data) {
				printf(" (");
				cw_tool_put(stdout, e->data);
				printf(")");
			}
			printf(" %s[%lu time%s]%s\n", sty.dim, e->count, e->count == 1 ? "" : "s", sty.reset);
		}
		if (shown > limit)
			printf("  ... and %zu more (--all shows them)\n", shown - limit);
	}
	if (!total)
		printf("nothing new: %s did nothing that %s did not do\n", argv[optind + 1], argv[optind]);
	ret = total ? CW_TOOL_EXIT_CHANGED : CW_TOOL_EXIT_OK;
out:
	side_free(&a);
	side_free(&b);
	return ret;
}
