/* capwatch explain: a terminal summary of a trace or a report.
 *
 * The first block is a summary that fits in about 20 lines whatever the size
 * of the run (lists are aggregated and capped with "... and N more"); the
 * process tree, capabilities per process and the denials follow, each
 * capped too unless --all is given. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "tools/common.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch explain [--all] TRACE.jsonl|REPORT.json\n"
	"\n"
	"Summarise a recorded run for a person: a short summary first (command,\n"
	"outcome, programs, capabilities used, denials), then the process tree\n"
	"(indented by parent: program, argv, exit), the capabilities each process used\n"
	"(kind, number of distinct scopes) and every denial with its rule and, where\n"
	"known, the host and the call site. Long lists end in \"... and N more\".\n"
	"Colour is used only when stdout is a terminal and NO_COLOR is not set.\n"
	"\n"
	"Options:\n"
	"  --all       do not cap the lists (every process and every denial)\n"
	"  -h, --help  show this help\n"
	"\n"
	"A report has no per-process capabilities; explain a trace for those.\n"
	"Bad input: a corrupt line is reported as FILE:LINE and skipped; a cut-short\n"
	"last line (killed run) gives a warning and a partial summary.\n"
	"\n"
	"Exit status: 0 success; 2 bad input (missing file, not a trace or report,\n"
	"newer schema); 125 usage error.\n";

#define CAP_PROGRAMS 5
#define CAP_TREE 60
#define CAP_PERPROC 25
#define CAP_DENIALS 25
#define CAP_NOTES 3

struct ex {
	struct cw_tool_run *r;
	struct cw_style s;
	bool all;
	FILE *o;
};

static int cmp_count_desc(const void *a, const void *b)
{
	const struct cw_sset_ent *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void put_cmd(struct ex *x)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(x->r->header ? x->r->header : x->r->report, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(cmd, "args"), *it;
	size_t n = 0;
	char **v = calloc((size_t)cJSON_GetArraySize(args) + 2, sizeof(*v));
	char *s;

	if (!v)
		return;
	v[n++] = (char *)(cw_j_str(cmd, "name") ? cw_j_str(cmd, "name") : "?");
	cJSON_ArrayForEach(it, args)
		if (cJSON_IsString(it))
			v[n++] = it->valuestring;
	s = cw_tool_argv_join(v, 160);
	cw_tool_put(x->o, s);
	free(s);
	free(v);
}

/* The first lines: what was run, under which profile, how big the run was. */
static void sum_head(struct ex *x, const cJSON *enf)
{
	struct cw_tool_run *r = x->r;
	const cJSON *doc = r->header ? r->header : r->report;
	FILE *o = x->o;

	fprintf(o, "%s", x->s.bold);
	cw_tool_put(o, r->file);
	fprintf(o, "%s: %s of `", x->s.reset, r->from_report ? "report" : "trace");
	put_cmd(x);
	fprintf(o, "` under profile \"");
	cw_tool_put(o, cw_j_str(doc, "profile"));
	fprintf(o, "\"");
	if (cw_j_str(enf, "level")) {
		fprintf(o, " (");
		cw_tool_put(o, cw_j_str(enf, "level"));
		fprintf(o, ")");
	}
	fputc('\n', o);

	fprintf(o, "run: %zu processes", r->nprocs);
	if (!r->from_report)
		fprintf(o, ", %lu events, %lu operations", r->nevents, r->nops);
	if (r->has_time)
		fprintf(o, ", %.3f s", r->tmax - r->tmin);
	fputc('\n', o);
}

static void sum_outcome(struct ex *x, const cJSON *oc)
{
	struct cw_tool_run *r = x->r;
	FILE *o = x->o;

	if (oc) {
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(oc, "exit");

		fprintf(o, "outcome: ");
		cw_tool_put(o, cw_j_str(oc, "state"));
		fprintf(o, " / ");
		cw_tool_put(o, cw_j_str(oc, "kind"));
		if (cJSON_IsObject(ex)) {
			if (cw_j_str(ex, "signal")) {
				fprintf(o, " (killed by ");
				cw_tool_put(o, cw_j_str(ex, "signal"));
				fprintf(o, ")");
			} else
				fprintf(o, " (exit %d)", cw_j_int(ex, "code", 0));
		} else if (r->nprocs && r->procs[0].has_end) {
			if (r->procs[0].signal) {
				fprintf(o, " (killed by ");
				cw_tool_put(o, r->procs[0].signal);
				fprintf(o, ")");
			} else
				fprintf(o, " (exit %d)", r->procs[0].code);
		}
		fputc('\n', o);
	} else
		fprintf(o, "outcome: %sunknown: the trace has no summary line (the run did not finish)%s\n",
			x->s.yellow, x->s.reset);
}

/* programs, most used first */
static void sum_programs(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	struct cw_sset_ent *progs;
	FILE *o = x->o;
	size_t i;

	progs = malloc((r->programs.n + 1) * sizeof(*progs));
	if (!progs)
		return;
	memcpy(progs, r->programs.ents, r->programs.n * sizeof(*progs));
	qsort(progs, r->programs.n, sizeof(*progs), cmp_count_desc);
	fprintf(o, "programs (%zu): ", r->programs.n);
	for (i = 0; i < r->programs.n && i < CAP_PROGRAMS; i++) {
		if (i)
			fputs(", ", o);
		cw_tool_put_max(o, progs[i].key, 80);
		if (progs[i].count > 1)
			fprintf(o, " x%lu", progs[i].count);
	}
	if (r->programs.n > CAP_PROGRAMS)
		fprintf(o, ", ... and %zu more", r->programs.n - CAP_PROGRAMS);
	if (!r->programs.n)
		fputs("none recorded", o);
	fputc('\n', o);
	free(progs);
}

static void sum_capabilities(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	unsigned long kinds = 0;
	FILE *o = x->o;
	int k;

	fprintf(o, "%scapabilities used:%s\n", x->s.bold, x->s.reset);
	for (k = 0; k < CW_CAP__COUNT; k++) {
		if (!r->uses[k] && !r->scopes[k].n)
			continue;
		kinds++;
		fprintf(o, "  %-21s %8lu uses, %6zu scope%s", cw_cap_name(k), r->uses[k], r->scopes[k].n,
			r->scopes[k].n == 1 ? "" : "s");
		if (r->kind_denials[k])
			fprintf(o, ", %s%lu denied%s", x->s.red, r->kind_denials[k], x->s.reset);
		fputc('\n', o);
	}
	if (!kinds)
		fprintf(o, "  none\n");
}

/* How many denials, how many were tolerated, and the one that explains
 * the outcome in full (cw_tool_run_headline). */
static void sum_denials(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	FILE *o = x->o;
	size_t i, tol = 0;
	long h = cw_tool_run_headline(r, &tol);

	fprintf(o, "%sdenials: %zu%s", r->ndenials ? x->s.red : "", r->ndenials, x->s.reset);
	if (r->ndenials) {
		size_t unenforced = 0;

		for (i = 0; i < r->ndenials; i++)
			unenforced += !r->denials[i].enforced;
		if (unenforced)
			fprintf(o, " (%zu recorded but not enforced: observe mode)", unenforced);
	}
	if (tol)
		fprintf(o, " (%zu tolerated: the process went on and exited 0)", tol);
	fputc('\n', o);
	if (r->ndenials && h < 0 && tol)
		fprintf(o, "  none explains the outcome: every enforced one was tolerated\n");
	if (h >= 0) {
		const struct cw_tdenial *d = &r->denials[h];
		struct cw_tproc *p = d->proc < r->nprocs ? &r->procs[d->proc] : cw_tool_run_find(r, d->pid);

		fprintf(o, "  explains the outcome: pid %d ", d->pid);
		cw_tool_put(o, p ? cw_tproc_name(p) : "?");
		fputc(' ', o);
		cw_tool_put(o, d->syscall);
		fputc(' ', o);
		cw_tool_put(o, d->cap);
		fputc(' ', o);
		cw_tool_put_max(o, d->scope, 120);
		if (d->host) {
			fputs(" (", o);
			cw_tool_put(o, d->host);
			fputc(')', o);
		}
		fputs(" by rule ", o);
		cw_tool_put(o, d->rule);
		fputc('\n', o);
	}
}

/* What deserves a second look: flagged uses, notes, a partial trace. */
static void sum_warnings(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	FILE *o = x->o;
	size_t i;

	if (r->nflagged) {
		size_t sec = 0;

		for (i = 0; i < r->nflagged; i++)
			sec += r->flagged[i].cap && !strcmp(r->flagged[i].cap, "filesystem_read");
		fprintf(o, "%sflagged: %zu allowed but worth a look (%zu secret reads, %zu protected writes)%s\n",
			x->s.yellow, r->nflagged, sec, r->nflagged - sec, x->s.reset);
	}
	if (r->nnotes) {
		fprintf(o, "%snotes: %lu%s", x->s.yellow, r->nnotes, x->s.reset);
		for (i = 0; i < r->notes.n && i < CAP_NOTES; i++) {
			fputs(i ? "; " : ": ", o);
			cw_tool_put_max(o, r->notes.ents[i].key, 100);
		}
		if (r->notes.n > CAP_NOTES)
			fprintf(o, "; ... and %zu more", r->notes.n - CAP_NOTES);
		fputc('\n', o);
	}
	if (r->st.partial && !r->from_report)
		fprintf(o, "%spartial: %s%s\n", x->s.yellow,
			r->st.truncated ? "the last line was cut short (killed run?)" :
			r->st.bad ? "corrupt lines were skipped" : "no summary line (the run did not finish)",
			x->s.reset);
}

static void summary(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	const cJSON *oc = r->summary ? cJSON_GetObjectItemCaseSensitive(r->summary, "outcome")
				     : cJSON_GetObjectItemCaseSensitive(r->report, "outcome");
	const cJSON *enf = cJSON_GetObjectItemCaseSensitive(r->header ? r->header : oc, "enforcement");

	sum_head(x, enf);
	sum_outcome(x, oc);
	sum_programs(x);
	sum_capabilities(x);
	sum_denials(x);
	sum_warnings(x);
}

static void put_exit(struct ex *x, const struct cw_tproc *p)
{
	FILE *o = x->o;

	if (!p->has_end) {
		fprintf(o, " %s[no exit recorded]%s", x->s.dim, x->s.reset);
		return;
	}
	if (p->signal) {
		fprintf(o, " %s[killed by ", x->s.red);
		cw_tool_put(o, p->signal);
		fprintf(o, "]%s", x->s.reset);
	} else if (p->exited)
		fprintf(o, " %s[exit %d]%s", p->code ? x->s.yellow : x->s.dim, p->code, x->s.reset);
	else
		fprintf(o, " %s[ended]%s", x->s.dim, x->s.reset);
}

static void tree(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	size_t *stack, *depth, sp = 0, shown = 0, i, limit = x->all ? SIZE_MAX : CAP_TREE;
	FILE *o = x->o;

	fprintf(o, "\n%sprocess tree%s\n", x->s.bold, x->s.reset);
	if (!r->nprocs) {
		fprintf(o, "  no processes recorded\n");
		return;
	}
	stack = malloc(r->nprocs * sizeof(*stack));
	depth = malloc(r->nprocs * sizeof(*depth));
	if (!stack || !depth)
		goto out;
	/* roots in reverse so that the first one is shown first */
	for (i = r->nprocs; i-- > 0;)
		if (r->procs[i].parent == SIZE_MAX) {
			stack[sp] = i;
			depth[sp++] = 0;
		}
	while (sp) {
		size_t cur = stack[--sp], d = depth[sp], j;
		struct cw_tproc *p = &r->procs[cur];
		char *args;

		if (shown++ >= limit)
			continue;
		fprintf(o, "  %*s%d ", (int)(d > 16 ? 32 : 2 * d), "", p->pid);
		if (d > 16)
			fprintf(o, "(depth %zu) ", d);
		fprintf(o, "%s", x->s.cyan);
		cw_tool_put_max(o, p->exe ? p->exe : cw_tproc_name(p), 100);
		fprintf(o, "%s", x->s.reset);
		if (p->argv && p->argv[0]) {
			args = cw_tool_argv_join(p->argv, 120);
			fputs(": ", o);
			cw_tool_put(o, args);
			free(args);
		}
		put_exit(x, p);
		if (p->nexec > 1)
			fprintf(o, " %s(%lu execs)%s", x->s.dim, p->nexec, x->s.reset);
		if (p->ndenied)
			fprintf(o, " %s%lu denied%s", x->s.red, p->ndenied, x->s.reset);
		fputc('\n', o);
		for (j = p->nkids; j-- > 0 && sp < r->nprocs;) {
			stack[sp] = p->kids[j];
			depth[sp++] = d + 1;
		}
	}
	if (shown > limit)
		fprintf(o, "  ... and %zu more processes (--all shows them)\n", shown - limit);
out:
	free(stack);
	free(depth);
}

static void perproc(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	size_t i, shown = 0, limit = x->all ? SIZE_MAX : CAP_PERPROC;
	FILE *o = x->o;
	int k;

	fprintf(o, "\n%scapabilities by process%s\n", x->s.bold, x->s.reset);
	if (r->from_report) {
		fprintf(o, "  not in a report (explain the trace for these)\n");
		return;
	}
	for (i = 0; i < r->nprocs; i++) {
		struct cw_tproc *p = &r->procs[i];
		bool any = false;

		if (!p->scopes)
			continue;
		if (shown++ >= limit)
			continue;
		fprintf(o, "  %d ", p->pid);
		cw_tool_put_max(o, cw_tproc_name(p), 60);
		fputc(':', o);
		for (k = 0; k < CW_CAP__COUNT; k++) {
			if (!p->uses[k])
				continue;
			fprintf(o, "%s %s %zu scope%s (%lu use%s)", any ? "," : "", cw_cap_name(k), p->scopes[k].n,
				p->scopes[k].n == 1 ? "" : "s", p->uses[k], p->uses[k] == 1 ? "" : "s");
			any = true;
		}
		fputc('\n', o);
	}
	if (!shown)
		fprintf(o, "  none\n");
	if (shown > limit)
		fprintf(o, "  ... and %zu more processes (--all shows them)\n", shown - limit);
}

/* The first line of a denial or flagged event: when, who, what. */
static void event_head(struct ex *x, const struct cw_tdenial *d, const char *colour)
{
	struct cw_tool_run *r = x->r;
	struct cw_tproc *p = cw_tool_run_find(r, d->pid);
	FILE *o = x->o;

	fprintf(o, "  %s", colour);
	if (d->seq)
		fprintf(o, "seq %llu ", (unsigned long long)d->seq);
	fprintf(o, "+%.3fs pid %d ", cw_tool_run_rel(r, d->time), d->pid);
	cw_tool_put_max(o, p ? cw_tproc_name(p) : "?", 60);
	fputc(' ', o);
	cw_tool_put(o, d->syscall);
	fputc(' ', o);
	cw_tool_put(o, d->cap);
	fputc(' ', o);
	cw_tool_put_max(o, d->scope, 200);
}

static void denials(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	size_t i, limit = x->all ? SIZE_MAX : CAP_DENIALS;
	FILE *o = x->o;

	fprintf(o, "\n%sdenials%s\n", x->s.bold, x->s.reset);
	if (!r->ndenials) {
		fprintf(o, "  none\n");
		return;
	}
	for (i = 0; i < r->ndenials && i < limit; i++) {
		const struct cw_tdenial *d = &r->denials[i];

		event_head(x, d, x->s.red);
		fprintf(o, "%s: ", x->s.reset);
		cw_tool_put(o, d->decision ? d->decision : "deny");
		if (!d->enforced)
			fputs(" (not enforced)", o);
		else if (cw_tool_denial_tolerated(r, d))
			fputs(" (tolerated: the process went on and exited 0)", o);
		fputc('\n', o);
		fputs("      rule ", o);
		cw_tool_put(o, d->rule);
		if (d->host) {
			fputs("; host ", o);
			cw_tool_put(o, d->host);
		}
		if (d->site) {
			fputs("; at ", o);
			cw_tool_put_max(o, d->site, 200);
		}
		if (d->reason) {
			fputs("; ", o);
			cw_tool_put_max(o, d->reason, 200);
		}
		fputc('\n', o);
	}
	if (r->ndenials > limit)
		fprintf(o, "  ... and %zu more denials (--all shows them)\n", r->ndenials - limit);
}

static void flagged(struct ex *x)
{
	struct cw_tool_run *r = x->r;
	size_t i, limit = x->all ? SIZE_MAX : CAP_DENIALS;
	FILE *o = x->o;

	if (!r->nflagged)
		return;
	fprintf(o, "\n%sflagged (allowed, worth a look)%s\n", x->s.bold, x->s.reset);
	for (i = 0; i < r->nflagged && i < limit; i++) {
		const struct cw_tdenial *d = &r->flagged[i];

		event_head(x, d, x->s.yellow);
		fprintf(o, "%s (rule ", x->s.reset);
		cw_tool_put(o, d->rule);
		fputs(")\n", o);
	}
	if (r->nflagged > limit)
		fprintf(o, "  ... and %zu more (--all shows them)\n", r->nflagged - limit);
}

int cw_tool_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cw_tool_run run;
	struct ex x = { .o = stdout };
	int c, r;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ha", opts, NULL)) != -1) {
		switch (c) {
		case 'a': x.all = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			cw_tool_msg("explain: unknown option \"%s\" (see capwatch explain --help)", argv[optind - 1]);
			return CW_TOOL_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		cw_tool_msg("explain: expected one TRACE.jsonl or REPORT.json (see capwatch explain --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	cw_tool_run_init(&run, argv[optind]);
	r = cw_tool_run_load(&run, true);
	if (r < 0) {
		cw_tool_run_free(&run);
		return CW_TOOL_EXIT_BADINPUT;
	}
	cw_tool_run_link(&run);
	cw_style_init(&x.s, stdout);
	x.r = &run;
	summary(&x);
	tree(&x);
	perproc(&x);
	denials(&x);
	flagged(&x);
	cw_tool_run_free(&run);
	return 0;
}
