/* The HTML export's timeline at scale (issue 18, item 3).
 *
 * The page draws one lane per group of processes (per program, or per
 * parent process), expandable into one lane per process, on a canvas: a
 * 10,000-process run is a handful of lanes and a few hundred kilobytes, not
 * 10,000 SVG elements. The script (tools/timeline.js, embedded at build
 * time) gets one compact data block:
 *
 *   P  every process (up to TL_MAX_PROCS), 10 numbers each: pid, index of
 *      the parent record (-1), program, argv, start and end in microseconds
 *      from the start of the run (end -1: still running when the trace
 *      ends), exit text, operations, denials, and argv without argv[0]
 *      (the lane's label: "cc1 -quiet f1.c", not the program's path again);
 *   E  a bounded sample of the operations (TL_MAX_EVENTS), 8 numbers each:
 *      time, process index, syscall, capability, scope, decision, flags
 *      (1 denied, 2 flagged, 4 not enforced), rule;
 *   S  the strings the numbers above index, each once.
 *
 * The sample takes every denial first, then flagged allows, then shares
 * what is left between the other operations and the reads, each class
 * evenly spread over the run.
 * While reading, a class keeps at most 2 * TL_MAX_EVENTS operations: when
 * it fills, every other one is dropped and the class keeps one in two from
 * then on, so memory stays bounded whatever the trace's size.
 *
 * Every string is written as JSON with '<' as \u003c: nothing from the
 * trace can end the script element or open a comment in it. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/jbuf.h"
#include "tools/common.h"
#include "tools/export_timeline.h"
#include "tools/timeline_js.h" /* generated from tools/timeline.js */

#define TL_MAX_EVENTS 20000
#define TL_MAX_PROCS 50000
#define TL_MAX_PROGRAM_ROWS 100
#define TL_ARGV_MAX 300

enum { TL_DENIED = 1, TL_FLAGGED = 2, TL_UNENFORCED = 4 };
enum { TL_CLS_DENIED, TL_CLS_FLAGGED, TL_CLS_OTHER, TL_CLS_READ, TL_NCLS };

struct tl_ev {
	double t;
	uint32_t proc;  /* index into run->procs */
	uint32_t scope; /* index into run->scopes[cap], or into misc when cap is TL_NOCAP */
	uint32_t sys, rule, dec; /* indices into names */
	uint8_t cap, flags;
};
#define TL_NOCAP 0xff

struct tl_class {
	struct tl_ev *v;
	size_t n, cap;
	unsigned long seen, stride;
};

struct cw_tl {
	struct cw_tool_run *run;
	struct tl_class cls[TL_NCLS];
	struct cw_sset names; /* syscalls, rules, decisions */
	struct cw_sset misc;  /* scopes of operations without a capability kind */
};

void cw_tl_free(struct cw_tl *tl)
{
	int c;

	if (!tl)
		return;
	for (c = 0; c < TL_NCLS; c++)
		free(tl->cls[c].v);
	cw_sset_free(&tl->names, NULL);
	cw_sset_free(&tl->misc, NULL);
	free(tl);
}

static int name_index(struct cw_sset *s, const char *v, uint32_t *out)
{
	struct cw_sset_ent *e = cw_sset_get(s, v ? v : "", true);

	if (!e)
		return -ENOMEM;
	*out = (uint32_t)(e - s->ents); /* insertion ordered: a stable index */
	return 0;
}

static int class_add(struct tl_class *c, const struct tl_ev *ev)
{
	if (c->stride == 0)
		c->stride = 1;
	if (c->seen++ % c->stride)
		return 0;
	if (c->n == 2 * TL_MAX_EVENTS) {
		/* keep one in two: indices 0, 2s, 4s ... of the class so far */
		size_t i;

		for (i = 0; 2 * i < c->n; i++)
			c->v[i] = c->v[2 * i];
		c->n = i;
		c->stride *= 2;
		if ((c->seen - 1) % c->stride)
			return 0;
	}
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 256;
		struct tl_ev *nv;

		if (nc > 2 * TL_MAX_EVENTS)
			nc = 2 * TL_MAX_EVENTS;
		nv = realloc(c->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = nc;
	}
	c->v[c->n++] = *ev;
	return 0;
}

static int tl_op(struct cw_tl *tl, const cJSON *ev)
{
	struct cw_tool_run *run = tl->run;
	const char *cap = cw_j_str(ev, "capability"), *scope = cw_j_str(ev, "scope");
	const char *dec = cw_j_str(ev, "decision");
	struct cw_tproc *p = cw_tool_run_find(run, cw_j_int(ev, "pid", -1));
	struct tl_ev e = { 0 };
	int k = cap ? cw_cap_from_name(cap) : -1, cls;

	if (!p) /* cw_tool_run_add made the record: only ENOMEM leaves none */
		return -ENOMEM;
	e.t = cw_j_num(ev, "time", 0);
	e.proc = (uint32_t)(p - run->procs);
	if (dec && strcmp(dec, "allow"))
		e.flags |= TL_DENIED;
	else if (cw_j_bool(ev, "flagged", false))
		e.flags |= TL_FLAGGED;
	if (!cw_j_bool(ev, "enforced", true))
		e.flags |= TL_UNENFORCED;
	if (k >= 0 && k < CW_CAP__COUNT) {
		/* cw_tool_run_add counted the scope under this key just now */
		struct cw_sset_ent *s = cw_sset_get(&run->scopes[k], scope ? scope : "", false);

		if (!s)
			return -ENOMEM;
		e.cap = (uint8_t)k;
		e.scope = (uint32_t)(s - run->scopes[k].ents);
	} else {
		e.cap = TL_NOCAP;
		if (name_index(&tl->misc, scope, &e.scope) < 0)
			return -ENOMEM;
	}
	if (name_index(&tl->names, cw_j_str(ev, "syscall"), &e.sys) < 0 ||
	    name_index(&tl->names, cw_j_str(ev, "rule"), &e.rule) < 0 ||
	    name_index(&tl->names, dec, &e.dec) < 0)
		return -ENOMEM;
	cls = e.flags & TL_DENIED ? TL_CLS_DENIED : e.flags & TL_FLAGGED ? TL_CLS_FLAGGED :
	      k == CW_CAP_FILESYSTEM_READ || k < 0 ? TL_CLS_READ : TL_CLS_OTHER;
	return class_add(&tl->cls[cls], &e);
}

static int tl_on_header(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct cw_tl *tl = opaque;

	(void)lineno;
	cJSON_Delete(tl->run->header);
	tl->run->header = cJSON_Duplicate(ev, 1);
	return tl->run->header ? 0 : -ENOMEM;
}

static int tl_on_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct cw_tl *tl = opaque;
	const char *type = cw_j_str(ev, "type");
	int r;

	(void)lineno;
	r = cw_tool_run_add(tl->run, ev);
	if (r < 0 || !type || strcmp(type, "op"))
		return r;
	return tl_op(tl, ev);
}

int cw_tl_load(const char *file, struct cw_tool_run *run, struct cw_tl **out)
{
	struct cw_tl *tl = calloc(1, sizeof(*tl));
	int r;

	*out = NULL;
	if (!tl) {
		cw_tool_msg("%s: out of memory", file);
		return -ENOMEM;
	}
	tl->run = run;
	r = cw_tr_read(file, tl_on_header, tl_on_event, tl, &run->st);
	if (r > 0)
		r = -EINVAL;
	if (r == -ENOMEM)
		cw_tool_msg("%s: out of memory", file);
	if (r < 0) {
		cw_tl_free(tl);
		return r;
	}
	*out = tl;
	return 0;
}

/* ---- writing ---- */

struct tl_out {
	FILE *o;
	struct cw_jbuf j;
	struct cw_sset strs; /* the page's string table, in index order */
	bool oom;
};

/* The JSON text in out->j, with '<' as \u003c (valid only outside of
 * nothing: '<' appears in JSON text inside strings alone). */
static void put_json(struct tl_out *t)
{
	const char *p = t->j.buf, *lt;
	size_t n = t->j.len;

	if (t->j.oom) {
		t->oom = true;
		fputs("\"\"", t->o);
		return;
	}
	while ((lt = memchr(p, '<', n))) {
		fwrite(p, 1, (size_t)(lt - p), t->o);
		fputs("\\u003c", t->o);
		n -= (size_t)(lt - p) + 1;
		p = lt + 1;
	}
	fwrite(p, 1, n, t->o);
}

static long long str_ix(struct tl_out *t, const char *s)
{
	struct cw_sset_ent *e = cw_sset_get(&t->strs, s ? s : "", true);

	if (!e) {
		t->oom = true;
		return 0;
	}
	return (long long)(e - t->strs.ents);
}

static long long us(const struct cw_tool_run *run, double t)
{
	double v = (t - run->tmin) * 1e6;

	if (!(v >= 0)) /* NaN, or before the start (a hostile trace) */
		return 0;
	return v < 9e15 ? (long long)(v + 0.5) : 9000000000000000LL; /* no libm: v >= 0 */
}

static const char *scope_text(const struct cw_tl *tl, const struct tl_ev *e, char **tmp)
{
	const struct cw_tool_run *run = tl->run;
	const struct cw_sset_ent *s;

	*tmp = NULL;
	if (e->cap == TL_NOCAP)
		return tl->misc.ents[e->scope].key;
	s = &run->scopes[e->cap].ents[e->scope];
	if (s->data && *(const char *)s->data) {
		/* a network scope with the host name the preload saw */
		size_t n = strlen(s->key) + strlen(s->data) + 4;

		*tmp = malloc(n);
		if (*tmp) {
			snprintf(*tmp, n, "%s (%s)", s->key, (const char *)s->data);
			return *tmp;
		}
	}
	return s->key;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct tl_ev *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t ? 1 : x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* The sample: every denial, then the flagged allows, as much of them as
 * the budget holds; what is left is shared by the other operations and
 * the reads (half each, and what one class does not need goes to the
 * other). Each class is taken evenly spread over what it kept. */
static struct tl_ev *tl_select(const struct cw_tl *tl, size_t nprocs, size_t *n)
{
	size_t left = TL_MAX_EVENTS, take[TL_NCLS], k = 0, i, no, nr, half;
	struct tl_ev *sel = malloc(TL_MAX_EVENTS * sizeof(*sel));
	int c;

	*n = 0;
	if (!sel)
		return NULL;
	for (c = TL_CLS_DENIED; c <= TL_CLS_FLAGGED; c++) {
		take[c] = tl->cls[c].n < left ? tl->cls[c].n : left;
		left -= take[c];
	}
	no = tl->cls[TL_CLS_OTHER].n;
	nr = tl->cls[TL_CLS_READ].n;
	half = left / 2;
	if (no + nr <= left)
		take[TL_CLS_OTHER] = no;
	else if (no <= half)
		take[TL_CLS_OTHER] = no;
	else if (nr <= left - half)
		take[TL_CLS_OTHER] = left - nr;
	else
		take[TL_CLS_OTHER] = half;
	take[TL_CLS_READ] = nr < left - take[TL_CLS_OTHER] ? nr : left - take[TL_CLS_OTHER];
	for (c = 0; c < TL_NCLS; c++) {
		const struct tl_class *cl = &tl->cls[c];

		for (i = 0; i < take[c]; i++) {
			const struct tl_ev *e = &cl->v[take[c] == cl->n ? i : (size_t)((double)i * cl->n / take[c])];

			if (e->proc < nprocs)
				sel[k++] = *e;
		}
	}
	qsort(sel, k, sizeof(*sel), ev_cmp);
	*n = k;
	return sel;
}

static void exit_text(const struct cw_tproc *p, char *buf, size_t n)
{
	if (p->signal)
		snprintf(buf, n, "killed by %.40s", p->signal);
	else if (p->exited)
		snprintf(buf, n, "exit %d", p->code);
	else if (p->has_end)
		snprintf(buf, n, "ended");
	else
		snprintf(buf, n, "still running when the trace ends");
}

int cw_tl_write_script(FILE *o, const struct cw_tool_run *run, struct cw_tl *tl)
{
	struct tl_out t = { .o = o };
	size_t nprocs = run->nprocs < TL_MAX_PROCS ? run->nprocs : TL_MAX_PROCS, nsel = 0, i;
	struct tl_ev *sel = tl_select(tl, nprocs, &nsel);
	unsigned long seen[TL_NCLS];
	double span = run->has_time && run->tmax > run->tmin ? run->tmax - run->tmin : 0;
	int c;

	if (!sel)
		return -ENOMEM;
	cw_jbuf_init(&t.j);
	for (c = 0; c < TL_NCLS; c++)
		seen[c] = tl->cls[c].seen;
	str_ix(&t, ""); /* index 0: the empty string */
	fprintf(o, "var CWD={\"v\":1,\"span\":%lld,\"procs\":%zu,\"ops\":%lu,\"denials\":%zu,"
		"\"seen\":[%lu,%lu,%lu,%lu],\n\"P\":[", span > 0 ? us(run, run->tmin + span) : 0, run->nprocs,
		run->nops, run->ndenials, seen[0], seen[1], seen[2], seen[3]);
	for (i = 0; i < nprocs; i++) {
		const struct cw_tproc *p = &run->procs[i];
		char *argv = p->argv ? cw_tool_argv_join(p->argv, TL_ARGV_MAX) : NULL;
		char *args = p->argv && p->argv[0] ? cw_tool_argv_join(p->argv + 1, TL_ARGV_MAX) : NULL;
		char ex[80];
		long long parent = p->parent < nprocs ? (long long)p->parent : -1;

		exit_text(p, ex, sizeof(ex));
		fprintf(o, "%s%d,%lld,%lld,%lld,%lld,%lld,%lld,%lu,%lu,%lld", i ? (i % 8 ? "," : ",\n") : "",
			p->pid, parent, str_ix(&t, p->exe ? p->exe : cw_tproc_name(p)), str_ix(&t, argv),
			p->has_start ? us(run, p->start) : 0, p->has_end ? us(run, p->end) : -1,
			str_ix(&t, ex), p->nops, p->ndenied, str_ix(&t, args));
		free(argv);
		free(args);
	}
	fputs("],\n\"E\":[", o);
	for (i = 0; i < nsel; i++) {
		const struct tl_ev *e = &sel[i];
		char *tmp;
		const char *scope = scope_text(tl, e, &tmp);

		fprintf(o, "%s%lld,%u,%lld,%lld,%lld,%lld,%u,%lld", i ? (i % 8 ? "," : ",\n") : "", us(run, e->t),
			e->proc, str_ix(&t, tl->names.ents[e->sys].key),
			str_ix(&t, e->cap == TL_NOCAP ? "" : cw_cap_name(e->cap)), str_ix(&t, scope),
			str_ix(&t, tl->names.ents[e->dec].key), (unsigned)e->flags,
			str_ix(&t, tl->names.ents[e->rule].key));
		free(tmp);
	}
	fputs("],\n\"S\":[", o);
	for (i = 0; i < t.strs.n; i++) {
		if (i)
			fputs(i % 16 ? "," : ",\n", o);
		cw_jbuf_reset(&t.j);
		cw_jbuf_str(&t.j, t.strs.ents[i].key);
		put_json(&t);
	}
	fputs("]};\n", o);
	fputs(timeline_js, o);
	free(sel);
	cw_jbuf_free(&t.j);
	cw_sset_free(&t.strs, NULL);
	return t.oom ? -ENOMEM : 0;
}

void cw_tl_write_section(FILE *o, const struct cw_tool_run *run, const struct cw_tl *tl)
{
	unsigned long seen = 0;
	int c;

	for (c = 0; c < TL_NCLS; c++)
		seen += tl->cls[c].seen;
	fputs("<div class=\"tlbar\" id=\"tlbar\">"
	      "<button type=\"button\" id=\"tlzi\" title=\"zoom in (+)\">+</button>"
	      "<button type=\"button\" id=\"tlzo\" title=\"zoom out (-)\">&minus;</button>"
	      "<button type=\"button\" id=\"tlfit\" title=\"the whole run (0)\">fit</button>"
	      "<button type=\"button\" id=\"tlexp\">expand all</button>"
	      "<button type=\"button\" id=\"tlcol\">collapse all</button>"
	      "<label>lanes by <select id=\"tlby\"><option value=\"program\">program</option>"
	      "<option value=\"parent\">parent process</option></select></label>"
	      "<span id=\"tlinfo\" class=\"dim\"></span></div>\n"
	      "<div id=\"tlwrap\"><div id=\"tlview\"><canvas id=\"tl\" tabindex=\"0\" role=\"img\" "
	      "aria-label=\"timeline of the run, one lane per group of processes\"><ol id=\"tllanes\"></ol>"
	      "</canvas><div id=\"tlsp\"></div></div><div id=\"tltip\" hidden></div></div>\n", o);
	fputs("<p class=\"dim tlhelp\">A lane per program: its height is how many of its processes ran "
	      "at once; the grey strip under it, its operations; <span class=\"deny\">red</span>: a denial, "
	      "<span class=\"flag\">orange</span>: a flagged allow. Click a lane to list its processes; "
	      "wheel over the time axis (or Ctrl+wheel) to zoom, drag to pan, drag along the axis to zoom "
	      "to a range, double-click to see the whole run; hover for the operation.</p>\n", o);
	if (seen > TL_MAX_EVENTS)
		fprintf(o, "<p class=\"dim\">The timeline draws %d of the %lu operations: every denial first, "
			"then an even sample of the rest.</p>\n", TL_MAX_EVENTS, seen);
	if (run->nprocs > TL_MAX_PROCS)
		fprintf(o, "<p class=\"deny\">The timeline draws the first %d of the %zu processes.</p>\n",
			TL_MAX_PROCS, run->nprocs);
	fputs("<noscript><p>The timeline is drawn by the page's script; the tables below hold the same "
	      "run.</p></noscript>\n", o);
}

struct prog_agg {
	unsigned long procs, ops, denied;
	double t0, t1;
};

static int agg_cmp(const void *a, const void *b)
{
	const struct prog_agg *x = ((const struct cw_sset_ent *)a)->data;
	const struct prog_agg *y = ((const struct cw_sset_ent *)b)->data;

	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return strcmp(((const struct cw_sset_ent *)a)->key, ((const struct cw_sset_ent *)b)->key);
}

void cw_tl_write_programs(FILE *o, const struct cw_tool_run *run)
{
	struct cw_sset progs = { 0 };
	size_t i;

	for (i = 0; i < run->nprocs; i++) {
		const struct cw_tproc *p = &run->procs[i];
		struct cw_sset_ent *e = cw_sset_get(&progs, p->exe ? p->exe : cw_tproc_name(p), true);
		struct prog_agg *a;
		double s = p->has_start ? p->start : run->tmin, end = p->has_end ? p->end : run->tmax;

		if (!e)
			goto out;
		if (!e->data) {
			e->data = calloc(1, sizeof(*a));
			if (!e->data)
				goto out;
			a = e->data;
			a->t0 = s;
			a->t1 = end;
		}
		a = e->data;
		a->procs++;
		a->ops += p->nops;
		a->denied += p->ndenied;
		if (s < a->t0)
			a->t0 = s;
		if (end > a->t1)
			a->t1 = end;
	}
	/* the table is printed once: sorting the entries in place is fine */
	qsort(progs.ents, progs.n, sizeof(*progs.ents), agg_cmp);
	fprintf(o, "<h2>Programs (%zu)</h2>\n<table id=\"programs\">\n<tr><th>program</th><th>processes</th>"
		"<th>operations</th><th>denials</th><th>first start</th><th>last end</th></tr>\n", progs.n);
	for (i = 0; i < progs.n && i < TL_MAX_PROGRAM_ROWS; i++) {
		const struct prog_agg *a = progs.ents[i].data;

		fputs("<tr><td class=\"m\">", o);
		cw_export_h(o, progs.ents[i].key);
		fprintf(o, "</td><td>%lu</td><td>%lu</td><td%s>%lu</td><td>+%.3f s</td><td>+%.3f s</td></tr>\n",
			a->procs, a->ops, a->denied ? " class=\"deny\"" : "", a->denied,
			cw_tool_run_rel(run, a->t0), cw_tool_run_rel(run, a->t1));
	}
	fputs("</table>\n", o);
	if (progs.n > TL_MAX_PROGRAM_ROWS)
		fprintf(o, "<p class=\"dim\">... and %zu more programs</p>\n", progs.n - TL_MAX_PROGRAM_ROWS);
out:
	cw_sset_free(&progs, free);
}
