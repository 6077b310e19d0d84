/* capwatch replay: re-decide every recorded operation of a trace under
 * another profile, with the same decision function the supervisor uses, and
 * say what would change.
 *
 * What replay cannot know: an operation that was denied in the recorded run
 * never happened, so whatever the command would have done after it is not in
 * the trace. Replay only re-decides what was recorded, and says so. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/policy.h"
#include "policy/report.h"
#include "policy/trace.h"
#include "tools/common.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch replay [--profile NAME|FILE] [--report FILE] TRACE.jsonl\n"
	"\n"
	"Re-decide every operation recorded in TRACE under a profile, with the same\n"
	"policy code the supervisor uses, and print what would change: one line per\n"
	"operation whose decision differs,\n"
	"  seq N pid P SYSCALL CAPABILITY SCOPE: allow -> deny (RULE)\n"
	"(the new decision may read \"ask\": without a terminal that denies too),\n"
	"then the counts.\n"
	"\n"
	"Options:\n"
	"  --profile NAME|FILE  profile to replay under (default: the trace's own profile)\n"
	"  --report FILE        also write a capwatch.report/v1 report of the replayed decisions\n"
	"  --approve-risk       turn every ask into allow, as `capwatch --approve-risk` does\n"
	"  -h, --help           show this help\n"
	"\n"
	"Limits: an operation denied in the recorded run never happened, so what the\n"
	"command would have done after it is unknown; replay re-decides only what was\n"
	"recorded. The run context (workspace roots, scratch dir, home, protected files)\n"
	"is the one recorded in the trace header. Replay has no terminal: an \"ask\" is\n"
	"an unanswered ask, which denies, as in a run without a terminal; approvals given\n"
	"to the recorded run (--approve) are not applied.\n"
	"\n"
	"Bad input: a corrupt line in the middle is reported as TRACE:LINE and skipped;\n"
	"a cut-short last line (killed run) gives a warning and partial results.\n"
	"\n"
	"Exit status: 0 nothing would change; 1 some decision would change;\n"
	"2 bad trace (missing, not a trace, newer schema); 125 usage error or bad profile.\n";

struct replay {
	const char *file, *profarg, *reportfile;
	cw_profile *prof;
	char recorded_profile[256];
	struct cw_context ctx;
	bool have_ctx, approve_risk;
	struct cw_tool_run run;
	cw_report *report;
	unsigned long ops, same, changed, a2d, d2a, bad, recorded_denied, recorded_approved;
	struct cw_decision headline;   /* the denial that explains the outcome */
	int fatal; /* exit status requested by a callback */
};

static int on_header(void *opaque, const cJSON *hdr, unsigned long lineno)
{
	struct replay *rp = opaque;
	const char *pname = cw_j_str(hdr, "profile");
	char err[512];

	(void)lineno;
	snprintf(rp->recorded_profile, sizeof(rp->recorded_profile), "%s", pname ? pname : "?");
	rp->run.header = cJSON_Duplicate(hdr, 1);
	if (cw_trace_header_to_context(rp->run.header, &rp->ctx, err, sizeof(err)) < 0) {
		cw_tool_msg("%s:%lu: %s", rp->file, lineno, err);
		rp->fatal = CW_TOOL_EXIT_BADINPUT;
		return 1;
	}
	rp->have_ctx = true;
	if (rp->approve_risk) {
		rp->ctx.approve_risk = true;
		rp->ctx.approve_reason = "replay --approve-risk";
	}
	if (!rp->profarg) {
		if (!pname) {
			cw_tool_msg("%s:%lu: the header names no profile; give one with --profile", rp->file, lineno);
			rp->fatal = CW_TOOL_EXIT_USAGE;
			return 1;
		}
		if (cw_tool_profile_load(pname, &rp->prof) < 0) {
			cw_tool_msg("%s: cannot load the recorded profile \"%s\"; give one with --profile",
				    rp->file, pname);
			rp->fatal = CW_TOOL_EXIT_USAGE;
			return 1;
		}
	}
	return 0;
}

static void print_change(const struct replay *rp, const cJSON *ev, const char *recorded,
			 const struct cw_decision *d)
{
	FILE *o = stdout;

	(void)rp;
	fprintf(o, "seq %.0f pid %d ", cw_j_num(ev, "seq", 0), cw_j_int(ev, "pid", -1));
	cw_tool_put(o, cw_j_str(ev, "syscall"));
	fputc(' ', o);
	cw_tool_put(o, cw_cap_name(d->cap));
	fputc(' ', o);
	cw_tool_put(o, d->scope[0] ? d->scope : "-");
	fputs(": ", o);
	cw_tool_put(o, recorded);
	fputs(" -> ", o);
	fputs(cw_verdict_name(d->verdict), o);
	fputs(" (", o);
	cw_tool_put(o, d->rule);
	fputs(")", o);
	if (!strcmp(recorded, "allow") || cw_j_bool(ev, "enforced", true) == false)
		fputc('\n', o);
	else
		fputs(" [denied when recorded: what followed is unknown]\n", o);
}

static int on_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct replay *rp = opaque;
	struct cw_op op;
	struct cw_op_storage stg;
	struct cw_decision d;
	const char *type = cw_j_str(ev, "type"), *recorded;
	char err[512];
	int r;

	r = cw_tool_run_add(&rp->run, ev);
	if (r < 0) {
		cw_tool_msg("%s: %s", rp->file, strerror(-r));
		rp->fatal = CW_TOOL_EXIT_BADINPUT;
		return 1;
	}
	if (!type || strcmp(type, "op"))
		return 0;
	recorded = cw_j_str(ev, "decision");
	if (!recorded) {
		rp->bad++;
		cw_tool_msg("%s:%lu: operation without a \"decision\"; line skipped", rp->file, lineno);
		return 0;
	}
	if (cw_trace_event_to_op(ev, &op, &stg, err, sizeof(err)) < 0) {
		rp->bad++;
		cw_tool_msg("%s:%lu: %s; line skipped", rp->file, lineno, err);
		return 0;
	}
	memset(&d, 0, sizeof(d));
	cw_policy_decide(rp->prof, &rp->ctx, &op, &d);
	rp->ops++;
	if (strcmp(recorded, "allow") && cw_j_bool(ev, "enforced", true))
		rp->recorded_denied++;
	{
		const char *rule = cw_j_str(ev, "rule");

		if (rule && !strncmp(rule, "approval:", 9) && !rp->ctx.approve_risk)
			rp->recorded_approved++;
	}
	/* Replay has no terminal, like a run without one: an ask is an
	 * unanswered ask, which is a denial. The supervisor records those as
	 * "deny" (older traces: "ask"); compare what took effect. */
	if (!strcmp(recorded, "allow") == (d.verdict == CW_ALLOW))
		rp->same++;
	else {
		rp->changed++;
		if (!strcmp(recorded, "allow"))
			rp->a2d++;
		else
			rp->d2a++;
		print_change(rp, ev, recorded, &d);
	}
	if (rp->report) {
		if (d.cap != CW_CAP_NONE)
			cw_report_count_capability(rp->report, d.cap, d.scope, d.verdict);
		if (d.verdict != CW_ALLOW) {
			struct cw_denial_record dr = {
				.pid = cw_j_int(ev, "pid", -1),
				.syscall = op.syscall,
				.d = &d,
				.time = cw_tool_run_rel(&rp->run, cw_j_num(ev, "time", 0)),
				.enforced = true,
				.host = op.host,
			};
			struct cw_tproc *p = cw_tool_run_proc(&rp->run, dr.pid);

			dr.program = p ? p->exe : NULL;
			/* the process's number: its record's place (write_report) */
			dr.proc = p ? (uint64_t)(p - rp->run.procs) + 1 : 0;
			cw_report_add_denial(rp->report, &dr);
		}
	}
	cw_op_storage_free(&stg);
	return 0;
}

static int write_report(struct replay *rp)
{
	const cJSON *hdr = rp->run.header, *cmd = cJSON_GetObjectItemCaseSensitive(hdr, "command");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(cmd, "args"), *it;
	const cJSON *enf = cJSON_GetObjectItemCaseSensitive(hdr, "enforcement");
	const char **argv = NULL, *state, *kind;
	struct cw_enforcement e = { 0 };
	struct cw_report_headline hl;
	static const char *const layers[] = { NULL };
	struct cw_tproc *root = NULL;
	size_t n = 0, i;
	char *text;
	FILE *f;
	int r = 0;

	argv = calloc((size_t)cJSON_GetArraySize(args) + 1, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	cJSON_ArrayForEach(it, args)
		if (cJSON_IsString(it))
			argv[n++] = it->valuestring;
	cw_report_set_run(rp->report, cw_profile_name(rp->prof), cw_j_str(cmd, "name"), argv,
			  cw_j_str(hdr, "cwd") ? cw_j_str(hdr, "cwd") : rp->ctx.nroots ? rp->ctx.roots[0] : NULL,
			  rp->ctx.roots, rp->ctx.nroots);
	free(argv);
	e.backend = cw_j_str(enf, "backend") ? cw_j_str(enf, "backend") : "seccomp-unotify+ptrace";
	e.level = "enforce";
	e.downgrade_reason = "";
	e.layers = layers;
	cw_report_set_enforcement(rp->report, &e);
	for (i = 0; i < rp->run.nprocs; i++) {
		struct cw_tproc *p = &rp->run.procs[i];
		struct cw_proc_record pr = {
			.pid = p->pid, .ppid = p->ppid, .exe = p->exe,
			.argv = (const char *const *)p->argv,
			.start = p->has_start ? cw_tool_run_rel(&rp->run, p->start) : 0,
			.end = p->has_end ? cw_tool_run_rel(&rp->run, p->end) : -1,
			.exited = p->exited, .code = p->code,
			.signal = 0, .preload = "unknown", .proc = i + 1,
		};

		if (p->signal) {
			for (int s = 1; s < 65; s++)
				if (cw_signal_name(s) && !strcmp(cw_signal_name(s), p->signal))
					pr.signal = s;
		}
		if (!root)
			root = p;
		cw_report_add_process(rp->report, &pr);
	}
	if (!cw_profile_allows_start(rp->prof)) {
		cw_report_set_outcome(rp->report, "denied", "policy_denied", false, 0, 0, NULL);
	} else if (cw_report_headline(rp->report, &rp->headline, &hl) == 0 && hl.found) {
		/* as the supervisor decides it (supervisor/outcome.c): a denial
		 * whose process went on and succeeded was tolerated */
		cw_report_set_outcome(rp->report, "denied", "enforcement_denied", root && root->has_end,
				      root ? root->code : 0, 0, &rp->headline);
	} else {
		const cJSON *oc = cJSON_GetObjectItemCaseSensitive(rp->run.summary, "outcome");

		state = cw_j_str(oc, "state");
		kind = cw_j_str(oc, "kind");
		/* the recorded outcome, unless it was a denial the replay lifted */
		if (!state || !kind || !strcmp(kind, "enforcement_denied") || !strcmp(kind, "policy_denied")) {
			bool ok = root && root->exited && root->code == 0;

			state = ok ? "completed" : "failed";
			kind = ok ? "success" : "application_failure";
		}
		cw_report_set_outcome(rp->report, state, kind, root && root->has_end, root ? root->code : 0,
				      0, NULL);
	}
	cw_report_set_stats(rp->report, rp->run.nevents, rp->ops,
			    rp->run.has_time ? rp->run.tmax - rp->run.tmin : 0);
	text = cw_report_render(rp->report);
	if (!text)
		return -ENOMEM;
	f = fopen(rp->reportfile, "we");
	if (!f || fputs(text, f) < 0)
		r = -errno;
	if (f && fclose(f) != 0 && !r)
		r = -errno;
	free(text);
	if (r)
		cw_tool_msg("%s: %s", rp->reportfile, strerror(-r));
	return r;
}

int cw_tool_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "report", required_argument, NULL, 'r' },
		{ "approve-risk", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct replay rp;
	struct cw_tr_status st;
	bool approve_risk = false;
	int c, r, ret;

	memset(&rp, 0, sizeof(rp));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hp:r:", opts, NULL)) != -1) {
		switch (c) {
		case 'p': rp.profarg = optarg; break;
		case 'r': rp.reportfile = optarg; break;
		case 'A': approve_risk = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			cw_tool_msg("replay: unknown or incomplete option \"%s\" (see capwatch replay --help)",
				    argv[optind - 1]);
			return CW_TOOL_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		cw_tool_msg("replay: expected one TRACE.jsonl (see capwatch replay --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	rp.file = argv[optind];
	rp.approve_risk = approve_risk;
	cw_tool_run_init(&rp.run, rp.file);
	if (rp.profarg && cw_tool_profile_load(rp.profarg, &rp.prof) < 0)
		return CW_TOOL_EXIT_USAGE;
	if (rp.reportfile && !(rp.report = cw_report_new())) {
		cw_tool_msg("out of memory");
		cw_profile_free(rp.prof);
		return CW_TOOL_EXIT_USAGE;
	}
	r = cw_tr_read(rp.file, on_header, on_event, &rp, &st);
	if (r) {
		ret = rp.fatal ? rp.fatal : CW_TOOL_EXIT_BADINPUT;
		goto out;
	}
	printf("replayed %lu operations of %s (recorded under \"", rp.ops, rp.file);
	cw_tool_put(stdout, rp.recorded_profile);
	printf("\") under \"");
	cw_tool_put(stdout, cw_profile_name(rp.prof));
	printf("\"\n");
	printf("would change: %lu (allow -> deny: %lu, deny -> allow: %lu); unchanged: %lu\n",
	       rp.changed, rp.a2d, rp.d2a, rp.same);
	if (rp.recorded_approved)
		printf("approvals: %lu operation%s allowed by an approval when recorded; replay applies no\n"
		       "approvals (--approve-risk turns every ask into allow, as in the run)\n",
		       rp.recorded_approved, rp.recorded_approved == 1 ? " was" : "s were");
	if (!cw_profile_allows_start(rp.prof)) {
		printf("under \"");
		cw_tool_put(stdout, cw_profile_name(rp.prof));
		printf("\" the command would not start at all (outcome policy_denied): none of the\n"
		       "operations above would happen\n");
	}
	if (rp.bad || st.bad)
		printf("skipped: %lu corrupt lines (see the messages above); results are partial\n",
		       rp.bad + st.bad);
	else if (st.truncated || !st.summary)
		printf("the trace is incomplete (the run was killed or did not finish): results are partial\n");
	if (rp.recorded_denied)
		printf("limits: %lu operation%s denied in the recorded run never happened, so what the\n"
		       "command would have done after them is unknown; replay re-decides only what was recorded.\n",
		       rp.recorded_denied, rp.recorded_denied == 1 ? "" : "s");
	else
		printf("limits: replay re-decides only what was recorded; an operation denied in a run never\n"
		       "happens, so what a command does after a denial is unknown (none was denied here).\n");
	ret = rp.changed ? CW_TOOL_EXIT_CHANGED : CW_TOOL_EXIT_OK;
	if (rp.report) {
		cw_tool_run_link(&rp.run);
		if (write_report(&rp) < 0)
			ret = CW_TOOL_EXIT_USAGE;
	}
out:
	if (rp.have_ctx)
		cw_trace_context_free(&rp.ctx);
	cw_profile_free(rp.prof);
	cw_report_free(rp.report);
	cw_tool_run_free(&rp.run);
	return ret;
}
