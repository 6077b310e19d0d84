/* capwatch export: the run as a picture.
 *
 * chrome: Chrome trace-event JSON (chrome://tracing, Perfetto). One track per
 * process ("pid"), named by process_name metadata; every operation is an
 * instant event, every process lifetime a complete event; denials are named
 * "DENIED ..." with category "denial". Written while the trace is read, so a
 * large trace costs little memory.
 *
 * html: one self-contained page (inline CSS and one inline script, no
 * external fetches): a summary, the timeline (tools/export_timeline.c: lanes
 * per program on a canvas, zoom, hover; bounded for 10,000 processes), the
 * denials, the programs, the capabilities and the process tree.
 * Every string from the trace is HTML-escaped: a path may hold "<script>". */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "policy/jbuf.h"
#include "tools/common.h"
#include "tools/export_sarif.h"
#include "tools/export_timeline.h"
#include "tools/tools.h"

static const char usage_text[] =
	"Usage: capwatch export --format chrome|html [-o FILE] TRACE.jsonl\n"
	"       capwatch export --format sarif [--flagged] [-o FILE] TRACE.jsonl|REPORT.json\n"
	"\n"
	"Write the recorded run as a picture, to stdout or FILE:\n"
	"  chrome  Chrome trace-event JSON for chrome://tracing or ui.perfetto.dev:\n"
	"          one track per process (pid, named after its program), operations\n"
	"          as instant events, process lifetimes as complete events, denials\n"
	"          named \"DENIED ...\" in category \"denial\";\n"
	"  html    one self-contained HTML page (no external resources): summary,\n"
	"          a timeline with a lane per program (zoom, hover for the operation,\n"
	"          denials in red; stays small for 10,000 processes), the denials,\n"
	"          the programs, the capabilities and the process tree;\n"
	"  sarif   a SARIF 2.1.0 log for code scanning (e.g. GitHub upload-sarif):\n"
	"          one result per denial (level error; warning when observe mode\n"
	"          did not enforce it), the deciding rule as ruleId, the scope as the\n"
	"          location when it is a path, nextAction in result.properties.\n"
	"          Reads a trace or a report.\n"
	"\n"
	"Options:\n"
	"  --format chrome|html|sarif  output format (required)\n"
	"  --flagged             sarif: flagged allows as results too (level note;\n"
	"                        only a trace records them)\n"
	"  -o, --output FILE     write to FILE instead of stdout\n"
	"  -h, --help            show this help\n"
	"\n"
	"Bad input: a corrupt line is reported as TRACE:LINE and skipped; a cut-short\n"
	"last line (killed run) gives a warning and a partial picture.\n"
	"Exit status: 0 success; 2 bad input (missing file, not a trace, newer\n"
	"schema); 125 usage error or the output cannot be written.\n";

#define HTML_MAX_ROWS 400
#define HTML_MAX_DENIALS 2000
/* the process tree is open on the page up to this many processes */
#define HTML_TREE_OPEN 60

/* ---- chrome ---- */

struct chrome {
	FILE *o;
	struct cw_tool_run run;
	struct cw_jbuf j;
	bool first, have_origin;
	double origin;
};

static void emit(struct chrome *c)
{
	if (c->j.oom)
		return;
	if (!c->first)
		fputs(",\n", c->o);
	c->first = false;
	fwrite(c->j.buf, 1, c->j.len, c->o);
}

static double ts_us(struct chrome *c, double t)
{
	if (!c->have_origin) {
		c->origin = t;
		c->have_origin = true;
	}
	return (t - c->origin) * 1e6;
}

static void kv_num(struct cw_jbuf *j, const char *k, double v)
{
	cw_jbuf_key(j, k);
	cw_jbuf_double(j, v);
}

/* copy a JSON value from the trace into the jbuf (strings re-escaped) */
static void kv_copy(struct cw_jbuf *j, const char *k, const cJSON *v)
{
	if (!v)
		return;
	cw_jbuf_key(j, k);
	if (cJSON_IsString(v))
		cw_jbuf_str(j, v->valuestring);
	else if (cJSON_IsNumber(v) && v->valuedouble > -9e15 && v->valuedouble < 9e15 &&
		 v->valuedouble == (double)(long long)v->valuedouble) /* range first: no UB cast */
		cw_jbuf_int(j, (long long)v->valuedouble);
	else if (cJSON_IsNumber(v))
		cw_jbuf_double(j, v->valuedouble);
	else if (cJSON_IsBool(v))
		cw_jbuf_bool(j, cJSON_IsTrue(v));
	else if (cJSON_IsArray(v)) {
		const cJSON *it;

		cw_jbuf_arr_begin(j);
		cJSON_ArrayForEach(it, v)
			if (cJSON_IsString(it))
				cw_jbuf_str(j, it->valuestring);
		cw_jbuf_arr_end(j);
	} else
		cw_jbuf_null(j);
}

static int chrome_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct chrome *c = opaque;
	const char *type = cw_j_str(ev, "type");
	double t = cw_j_num(ev, "time", 0);
	int pid = cw_j_int(ev, "pid", 0);
	char name[320];
	int r;

	(void)lineno;
	r = cw_tool_run_add(&c->run, ev);
	if (r < 0)
		return r;
	if (!type)
		return 0;
	cw_jbuf_reset(&c->j);
	if (!strcmp(type, "op")) {
		const char *dec = cw_j_str(ev, "decision"), *cap = cw_j_str(ev, "capability");
		const char *scope = cw_j_str(ev, "scope"), *sc = cw_j_str(ev, "syscall");
		bool denied = dec && strcmp(dec, "allow");

		snprintf(name, sizeof(name), "%s%s %.200s", denied ? "DENIED " : "", sc ? sc : "?",
			 scope ? scope : "");
		cw_jbuf_obj_begin(&c->j);
		cw_jbuf_kv_str(&c->j, "name", name);
		cw_jbuf_kv_str(&c->j, "cat", denied ? "denial" : cw_j_bool(ev, "flagged", false) ? "flagged" :
			       cap ? cap : "none");
		cw_jbuf_kv_str(&c->j, "ph", "i");
		cw_jbuf_kv_str(&c->j, "s", "t");
		kv_num(&c->j, "ts", ts_us(c, t));
		cw_jbuf_kv_int(&c->j, "pid", pid);
		cw_jbuf_kv_int(&c->j, "tid", cw_j_int(ev, "tid", pid));
		if (denied)
			cw_jbuf_kv_str(&c->j, "cname", "terrible");
		cw_jbuf_key(&c->j, "args");
		cw_jbuf_obj_begin(&c->j);
		kv_copy(&c->j, "seq", cJSON_GetObjectItemCaseSensitive(ev, "seq"));
		kv_copy(&c->j, "syscall", cJSON_GetObjectItemCaseSensitive(ev, "syscall"));
		kv_copy(&c->j, "op", cJSON_GetObjectItemCaseSensitive(ev, "op"));
		kv_copy(&c->j, "capability", cJSON_GetObjectItemCaseSensitive(ev, "capability"));
		kv_copy(&c->j, "scope", cJSON_GetObjectItemCaseSensitive(ev, "scope"));
		kv_copy(&c->j, "host", cJSON_GetObjectItemCaseSensitive(ev, "host"));
		kv_copy(&c->j, "decision", cJSON_GetObjectItemCaseSensitive(ev, "decision"));
		kv_copy(&c->j, "rule", cJSON_GetObjectItemCaseSensitive(ev, "rule"));
		kv_copy(&c->j, "enforced", cJSON_GetObjectItemCaseSensitive(ev, "enforced"));
		kv_copy(&c->j, "errno", cJSON_GetObjectItemCaseSensitive(ev, "errno"));
		kv_copy(&c->j, "source", cJSON_GetObjectItemCaseSensitive(ev, "source"));
		cw_jbuf_obj_end(&c->j);
		cw_jbuf_obj_end(&c->j);
		emit(c);
	} else if (!strcmp(type, "exec") || !strcmp(type, "note") || !strcmp(type, "spawn")) {
		bool note = !strcmp(type, "note"), spawn = !strcmp(type, "spawn");
		const char *what = note ? cw_j_str(ev, "message") : cw_j_str(ev, "exe");

		if (spawn)
			snprintf(name, sizeof(name), "spawn pid %d", pid);
		else
			snprintf(name, sizeof(name), "%s %.200s", type, what ? what : "");
		cw_jbuf_obj_begin(&c->j);
		cw_jbuf_kv_str(&c->j, "name", name);
		cw_jbuf_kv_str(&c->j, "cat", note ? "note" : "process");
		cw_jbuf_kv_str(&c->j, "ph", "i");
		cw_jbuf_kv_str(&c->j, "s", note ? "g" : "t");
		kv_num(&c->j, "ts", ts_us(c, t));
		cw_jbuf_kv_int(&c->j, "pid", pid);
		cw_jbuf_kv_int(&c->j, "tid", cw_j_int(ev, "tid", pid));
		cw_jbuf_key(&c->j, "args");
		cw_jbuf_obj_begin(&c->j);
		kv_copy(&c->j, "seq", cJSON_GetObjectItemCaseSensitive(ev, "seq"));
		kv_copy(&c->j, "ppid", cJSON_GetObjectItemCaseSensitive(ev, "ppid"));
		kv_copy(&c->j, "exe", cJSON_GetObjectItemCaseSensitive(ev, "exe"));
		kv_copy(&c->j, "argv", cJSON_GetObjectItemCaseSensitive(ev, "argv"));
		kv_copy(&c->j, "message", cJSON_GetObjectItemCaseSensitive(ev, "message"));
		cw_jbuf_obj_end(&c->j);
		cw_jbuf_obj_end(&c->j);
		emit(c);
	}
	return 0;
}

static int export_chrome(const char *file, FILE *o)
{
	struct chrome c = { .o = o, .first = true };
	struct cw_tr_status st;
	size_t i;
	int r;

	cw_tool_run_init(&c.run, file);
	cw_jbuf_init(&c.j);
	fputs("{\"traceEvents\":[\n", o);
	r = cw_tr_read(file, NULL, chrome_event, &c, &st);
	if (r) {
		cw_jbuf_free(&c.j);
		cw_tool_run_free(&c.run);
		return r < 0 ? r : -EINVAL;
	}
	for (i = 0; i < c.run.nprocs; i++) {
		const struct cw_tproc *p = &c.run.procs[i];
		char name[200];
		double start = p->has_start ? p->start : c.run.tmin;
		double end = p->has_end ? p->end : c.run.tmax;

		snprintf(name, sizeof(name), "%.150s (pid %d)", cw_tproc_name(p), p->pid);
		cw_jbuf_reset(&c.j);
		cw_jbuf_obj_begin(&c.j);
		cw_jbuf_kv_str(&c.j, "name", "process_name");
		cw_jbuf_kv_str(&c.j, "ph", "M");
		cw_jbuf_kv_int(&c.j, "pid", p->pid);
		cw_jbuf_kv_int(&c.j, "tid", p->pid);
		cw_jbuf_key(&c.j, "args");
		cw_jbuf_obj_begin(&c.j);
		cw_jbuf_kv_str(&c.j, "name", name);
		cw_jbuf_obj_end(&c.j);
		cw_jbuf_obj_end(&c.j);
		emit(&c);

		cw_jbuf_reset(&c.j);
		cw_jbuf_obj_begin(&c.j);
		cw_jbuf_kv_str(&c.j, "name", cw_tproc_name(p));
		cw_jbuf_kv_str(&c.j, "cat", "process");
		cw_jbuf_kv_str(&c.j, "ph", "X");
		kv_num(&c.j, "ts", ts_us(&c, start));
		kv_num(&c.j, "dur", end > start ? (end - start) * 1e6 : 0);
		cw_jbuf_kv_int(&c.j, "pid", p->pid);
		cw_jbuf_kv_int(&c.j, "tid", p->pid);
		cw_jbuf_key(&c.j, "args");
		cw_jbuf_obj_begin(&c.j);
		cw_jbuf_kv_int(&c.j, "ppid", p->ppid);
		cw_jbuf_kv_str(&c.j, "exe", p->exe);
		cw_jbuf_key(&c.j, "argv");
		cw_jbuf_arr_begin(&c.j);
		for (size_t a = 0; p->argv && p->argv[a]; a++)
			cw_jbuf_str(&c.j, p->argv[a]);
		cw_jbuf_arr_end(&c.j);
		if (p->signal)
			cw_jbuf_kv_str(&c.j, "signal", p->signal);
		else if (p->exited)
			cw_jbuf_kv_int(&c.j, "exit", p->code);
		cw_jbuf_kv_int(&c.j, "operations", (long long)p->nops);
		cw_jbuf_kv_int(&c.j, "denied", (long long)p->ndenied);
		cw_jbuf_obj_end(&c.j);
		cw_jbuf_obj_end(&c.j);
		emit(&c);
	}
	fputs("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":", o);
	cw_jbuf_reset(&c.j);
	cw_jbuf_obj_begin(&c.j);
	cw_jbuf_kv_str(&c.j, "generator", "capwatch export");
	cw_jbuf_kv_str(&c.j, "trace", file);
	cw_jbuf_kv_str(&c.j, "profile", cw_j_str(c.run.header, "profile"));
	cw_jbuf_kv_bool(&c.j, "partial", st.partial);
	cw_jbuf_obj_end(&c.j);
	fwrite(c.j.buf, 1, c.j.len, o);
	fputs("}\n", o);
	r = c.j.oom ? -ENOMEM : 0;
	cw_jbuf_free(&c.j);
	cw_tool_run_free(&c.run);
	return r;
}

/* ---- html ---- */

/* Escape for HTML text and attribute values; bytes that are not UTF-8 and
 * control characters are shown as \xNN. */
static void h(FILE *o, const char *s)
{
	char *fx;
	const unsigned char *p;

	if (!s) {
		fputs("-", o);
		return;
	}
	fx = cw_tool_utf8_fix(s, '\x01');
	if (!fx)
		return;
	for (p = (const unsigned char *)fx; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		case '\x01': fputs("\\x??", o); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(o, "\\x%02x", *p);
			else
				fputc(*p, o);
		}
	}
	free(fx);
}

void cw_export_h(FILE *o, const char *s)
{
	h(o, s);
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	"script-src 'unsafe-inline'; img-src data:\">\n"
	"<title>capwatch: ";
static const char html_style[] =
	"</title>\n<style>\n"
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	"h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
	"code,td.m,.tree{font-family:ui-monospace,monospace;font-size:12px}\n"
	"table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}\n"
	/* short cells stay on one line; long paths, rules and sites wrap
	 * anywhere so the denials table fits the window instead of scrolling */
	"td{white-space:nowrap}td.m{white-space:normal;overflow-wrap:anywhere}\n"
	"th{background:#f3f3f3}.deny{color:#b00020;font-weight:600}.dim{color:#777}\n"
	".tree div{white-space:pre;overflow:hidden;text-overflow:ellipsis}\n"
	".flag{color:#e8710a;font-weight:600}\n"
	/* the timeline: a canvas that stays in view while its lanes scroll
	 * under it (only the lanes in view are drawn) */
	".tlbar{margin:.4em 0;display:flex;gap:.4em;align-items:center;flex-wrap:wrap}"
	".tlbar button{min-width:2.2em}\n"
	"#tlwrap{position:relative;max-width:1400px}"
	"#tlview{position:relative;overflow-y:auto;overflow-x:hidden;border:1px solid #ccc}\n"
	"#tl{position:sticky;top:0;display:block;cursor:grab}#tl:focus{outline:2px solid #8ab4f8}\n"
	"#tltip{position:absolute;z-index:2;pointer-events:none;background:#fff;border:1px solid #999;"
	"box-shadow:0 2px 6px rgba(0,0,0,.2);padding:4px 8px;font:12px/1.35 ui-monospace,monospace;"
	"white-space:pre;max-width:60em;overflow:hidden;text-overflow:ellipsis}\n"
	"#tltip div{overflow:hidden;text-overflow:ellipsis}.tlhelp{margin:.3em 0 0;font-size:12px}\n"
	"details>summary{cursor:pointer;color:#444}\n"
	"#q{margin:.5em 0;padding:3px;width:30em}\n"
	"</style>\n</head>\n<body>\n";

static const char html_filter_script[] =
	"(function(){var q=document.getElementById('q');if(!q)return;\n"
	"q.addEventListener('input',function(){var v=q.value.toLowerCase();\n"
	"var rows=document.querySelectorAll('#denials tbody tr');\n"
	"for(var i=0;i<rows.length;i++){rows[i].style.display="
	"rows[i].textContent.toLowerCase().indexOf(v)<0?'none':'';}});})();\n";

static void html_tree(FILE *o, struct cw_tool_run *r)
{
	size_t *stack = malloc((r->nprocs + 1) * sizeof(*stack));
	size_t *dstack = malloc((r->nprocs + 1) * sizeof(*dstack));
	size_t sp = 0, i, n = 0;

	if (!stack || !dstack)
		goto out;
	for (i = r->nprocs; i-- > 0;)
		if (r->procs[i].parent == SIZE_MAX) {
			stack[sp] = i;
			dstack[sp++] = 0;
		}
	fputs("<div class=\"tree\">\n", o);
	while (sp) {
		size_t cur = stack[--sp], d = dstack[sp], j;
		struct cw_tproc *p = &r->procs[cur];
		char *args = p->argv ? cw_tool_argv_join(p->argv, 300) : NULL;

		if (n < HTML_MAX_ROWS) {
			fprintf(o, "<div style=\"padding-left:%zuem\">%d <b>", d > 30 ? 30 : d, p->pid);
			h(o, p->exe ? p->exe : cw_tproc_name(p));
			fputs("</b> ", o);
			h(o, args);
			if (p->signal) {
				fputs(" <span class=\"deny\">[killed by ", o);
				h(o, p->signal);
				fputs("]</span>", o);
			} else if (p->exited)
				fprintf(o, " <span class=\"dim\">[exit %d]</span>", p->code);
			if (p->ndenied)
				fprintf(o, " <span class=\"deny\">%lu denied</span>", p->ndenied);
			fputs("</div>\n", o);
		}
		n++;
		free(args);
		for (j = p->nkids; j-- > 0 && sp < r->nprocs;) {
			stack[sp] = p->kids[j];
			dstack[sp++] = d + 1;
		}
	}
	if (n > HTML_MAX_ROWS)
		fprintf(o, "<div class=\"dim\">... and %zu more processes</div>\n", n - HTML_MAX_ROWS);
	fputs("</div>\n", o);
out:
	free(stack);
	free(dstack);
}

/* The title (the command) and the facts in one row, so that the timeline
 * is in the first screen. */
static void html_summary(FILE *o, const char *file, const struct cw_tool_run *run)
{
	const cJSON *oc;

	fputs("<h1>capwatch run: <code>", o);
	{
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(run->header, "command");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(cmd, "args"), *it;

		h(o, cw_j_str(cmd, "name"));
		cJSON_ArrayForEach(it, args) {
			fputc(' ', o);
			h(o, cJSON_IsString(it) ? it->valuestring : "?");
		}
	}
	fputs("</code></h1>\n<table class=\"sum\">\n<tr><th>profile</th><th>outcome</th><th>processes</th>"
	      "<th>operations</th><th>denials</th><th>duration</th><th>started</th><th>trace</th></tr>\n<tr><td>", o);
	h(o, cw_j_str(run->header, "profile"));
	fputs("</td><td>", o);
	oc = cJSON_GetObjectItemCaseSensitive(run->summary, "outcome");
	if (oc) {
		h(o, cw_j_str(oc, "state"));
		fputs(" / ", o);
		h(o, cw_j_str(oc, "kind"));
	} else
		fputs("unknown (no summary line: the run did not finish)", o);
	fprintf(o, "</td><td>%zu</td><td>%lu</td><td%s>%zu</td><td>", run->nprocs, run->nops,
		run->ndenials ? " class=\"deny\"" : "", run->ndenials);
	if (run->has_time)
		fprintf(o, "%.3f s", run->tmax - run->tmin);
	fputs("</td><td>", o);
	h(o, cw_j_str(run->header, "start"));
	fputs("</td><td class=\"m\">", o);
	h(o, file);
	fputs("</td></tr>\n</table>\n", o);
	if (run->st.partial)
		fputs("<p class=\"deny\">The trace is incomplete; this picture is partial.</p>\n", o);
}

/* The denials, filterable (html_filter_script). */
static void html_denials(FILE *o, struct cw_tool_run *run)
{
	size_t i;

	fprintf(o, "<h2>Denials (%zu)</h2>\n", run->ndenials);
	if (!run->ndenials) {
		fputs("<p>none</p>\n", o);
		return;
	}
	fputs("<input id=\"q\" type=\"search\" placeholder=\"filter denials\" aria-label=\"filter denials\">\n"
	      "<table id=\"denials\">\n<thead><tr><th>seq</th><th>time</th><th>pid</th><th>program</th>"
	      "<th>syscall</th><th>capability</th><th>scope</th><th>decision</th><th>rule</th>"
	      "<th>host</th><th>site</th></tr></thead>\n<tbody>\n", o);
	for (i = 0; i < run->ndenials && i < HTML_MAX_DENIALS; i++) {
		const struct cw_tdenial *d = &run->denials[i];
		struct cw_tproc *p = cw_tool_run_find(run, d->pid);

		fprintf(o, "<tr><td>%llu</td><td>+%.3f s</td><td>%d</td><td>", (unsigned long long)d->seq,
			cw_tool_run_rel(run, d->time), d->pid);
		h(o, p ? cw_tproc_name(p) : "?");
		fputs("</td><td>", o);
		h(o, d->syscall);
		fputs("</td><td>", o);
		h(o, d->cap);
		fputs("</td><td class=\"m\">", o);
		h(o, d->scope);
		fputs("</td><td class=\"deny\">", o);
		h(o, d->decision);
		if (!d->enforced)
			fputs(" (not enforced)", o);
		fputs("</td><td class=\"m\">", o);
		h(o, d->rule);
		fputs("</td><td>", o);
		h(o, d->host ? d->host : "");
		fputs("</td><td class=\"m\">", o);
		h(o, d->site ? d->site : "");
		fputs("</td></tr>\n", o);
	}
	fputs("</tbody>\n</table>\n", o);
	if (run->ndenials > HTML_MAX_DENIALS)
		fprintf(o, "<p class=\"dim\">... and %zu more denials (see capwatch explain --all)</p>\n",
			run->ndenials - HTML_MAX_DENIALS);
}

/* Allowed but flagged (observe: secret reads, protected writes). */
static void html_flagged(FILE *o, struct cw_tool_run *run)
{
	size_t i;

	if (!run->nflagged)
		return;
	fprintf(o, "<h2>Flagged (%zu): allowed, worth a look</h2>\n<table>\n<tr><th>seq</th><th>pid</th>"
		"<th>program</th><th>syscall</th><th>capability</th><th>scope</th><th>rule</th></tr>\n",
		run->nflagged);
	for (i = 0; i < run->nflagged && i < HTML_MAX_DENIALS; i++) {
		const struct cw_tdenial *d = &run->flagged[i];
		struct cw_tproc *p = cw_tool_run_find(run, d->pid);

		fprintf(o, "<tr><td>%llu</td><td>%d</td><td>", (unsigned long long)d->seq, d->pid);
		h(o, p ? cw_tproc_name(p) : "?");
		fputs("</td><td>", o);
		h(o, d->syscall);
		fputs("</td><td>", o);
		h(o, d->cap);
		fputs("</td><td class=\"m\">", o);
		h(o, d->scope);
		fputs("</td><td class=\"m\">", o);
		h(o, d->rule);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void html_capabilities(FILE *o, const struct cw_tool_run *run)
{
	int k;

	fputs("<h2>Capabilities used</h2>\n<table>\n"
	      "<tr><th>capability</th><th>uses</th><th>scopes</th><th>denied</th></tr>\n", o);
	for (k = 0; k < CW_CAP__COUNT; k++) {
		if (!run->uses[k])
			continue;
		fprintf(o, "<tr><td>%s</td><td>%lu</td><td>%zu</td><td%s>%lu</td></tr>\n", cw_cap_name(k),
			run->uses[k], run->scopes[k].n, run->kind_denials[k] ? " class=\"deny\"" : "",
			run->kind_denials[k]);
	}
	fputs("</table>\n", o);
}

static int export_html(const char *file, FILE *o)
{
	struct cw_tool_run run;
	struct cw_tl *tl = NULL;
	int r;

	cw_tool_run_init(&run, file);
	r = cw_tl_load(file, &run, &tl);
	if (r < 0) {
		cw_tool_run_free(&run);
		return r;
	}
	cw_tool_run_link(&run);
	fputs(html_head, o);
	h(o, file);
	fputs(html_style, o);
	html_summary(o, file, &run);
	fputs("<h2>Timeline</h2>\n", o);
	cw_tl_write_section(o, &run, tl);
	html_denials(o, &run);
	html_flagged(o, &run);
	cw_tl_write_programs(o, &run);
	html_capabilities(o, &run);
	fprintf(o, "<h2>Process tree</h2>\n<details%s><summary>%zu processes%s</summary>\n",
		run.nprocs <= HTML_TREE_OPEN ? " open" : "", run.nprocs,
		run.nprocs > HTML_MAX_ROWS ? " (the first 400 in tree order)" : "");
	html_tree(o, &run);
	fputs("</details>\n<script>\n", o);
	r = cw_tl_write_script(o, &run, tl);
	fputs(html_filter_script, o);
	fputs("</script>\n</body>\n</html>\n", o);
	cw_tl_free(tl);
	cw_tool_run_free(&run);
	return r;
}

int cw_tool_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "flagged", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL, *file;
	FILE *o = stdout;
	bool created = false, flagged = false;
	int c, r, ret = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hf:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'F': flagged = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			cw_tool_msg("export: unknown or incomplete option \"%s\" (see capwatch export --help)",
				    argv[optind - 1]);
			return CW_TOOL_EXIT_USAGE;
		}
	}
	if (!format || (strcmp(format, "chrome") && strcmp(format, "html") && strcmp(format, "sarif"))) {
		cw_tool_msg("export: --format chrome, html or sarif is required (see capwatch export --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	if (argc - optind != 1) {
		cw_tool_msg("export: expected one TRACE.jsonl (see capwatch export --help)");
		return CW_TOOL_EXIT_USAGE;
	}
	if (flagged && strcmp(format, "sarif")) {
		cw_tool_msg("export: --flagged applies to --format sarif only");
		return CW_TOOL_EXIT_USAGE;
	}
	file = argv[optind];
	if (out && strcmp(out, "-")) {
		struct stat sb;

		/* only a file this run creates is removed again on failure
		 * (never an existing file, let alone a device such as /dev/full) */
		created = stat(out, &sb) != 0 && errno == ENOENT;
		o = fopen(out, "we");
		if (!o) {
			cw_tool_msg("%s: %s", out, strerror(errno));
			return CW_TOOL_EXIT_USAGE;
		}
	}
	if (!strcmp(format, "chrome"))
		r = export_chrome(file, o);
	else if (!strcmp(format, "html"))
		r = export_html(file, o);
	else
		r = cw_export_sarif(file, o, flagged);
	if (r < 0)
		ret = r == -ENOMEM ? CW_TOOL_EXIT_USAGE : CW_TOOL_EXIT_BADINPUT;
	if (fflush(o) != 0 || ferror(o)) {
		cw_tool_msg("%s: write error", out ? out : "<stdout>");
		ret = CW_TOOL_EXIT_USAGE;
	}
	if (o != stdout)
		fclose(o);
	if (ret && created)
		remove(out); /* no half-written picture left behind */
	return ret;
}
