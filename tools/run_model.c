/* The trace tools' model of a run (run_model.h), from a trace or a report.
 * Fields are type-checked where they are used: the input is untrusted. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "policy/report.h"
#include "policy/trace.h"
#include "tools/common.h"

void cw_tool_run_init(struct cw_tool_run *r, const char *file)
{
	memset(r, 0, sizeof(*r));
	r->file = file;
}

static void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void free_records(struct cw_tdenial *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct cw_tdenial *d = &v[i];

		free(d->syscall);
		free(d->cap);
		free(d->scope);
		free(d->rule);
		free(d->host);
		free(d->site);
		free(d->decision);
		free(d->reason);
		free(d->scope_bytes);
		free(d->program);
		free(d->next_action);
		free(d->source);
	}
	free(v);
}

void cw_tool_run_free(struct cw_tool_run *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->nprocs; i++) {
		struct cw_tproc *p = &r->procs[i];

		free(p->exe);
		free_strv(p->argv);
		free(p->signal);
		free(p->kids);
		if (p->scopes) {
			for (k = 0; k < CW_CAP__COUNT; k++)
				cw_sset_free(&p->scopes[k], NULL);
			free(p->scopes);
		}
	}
	free(r->procs);
	free_records(r->denials, r->ndenials);
	free_records(r->flagged, r->nflagged);
	cw_sset_free(&r->pidmap, NULL);
	cw_sset_free(&r->programs, NULL);
	for (k = 0; k < CW_CAP__COUNT; k++)
		cw_sset_free(&r->scopes[k], free);
	cw_sset_free(&r->notes, NULL);
	cJSON_Delete(r->header);
	cJSON_Delete(r->report);
	cJSON_Delete(r->summary);
	memset(r, 0, sizeof(*r));
}

static struct cw_tproc *new_proc(struct cw_tool_run *r, int pid)
{
	struct cw_sset_ent *e;
	char key[24];
	struct cw_tproc *p;

	if (r->nprocs == r->proccap) {
		size_t nc = r->proccap ? r->proccap * 2 : 16;
		struct cw_tproc *np = realloc(r->procs, nc * sizeof(*np));

		if (!np)
			return NULL;
		r->procs = np;
		r->proccap = nc;
	}
	snprintf(key, sizeof(key), "%d", pid);
	e = cw_sset_get(&r->pidmap, key, true);
	if (!e)
		return NULL;
	e->aux = r->nprocs;
	p = &r->procs[r->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = -1;
	p->parent = SIZE_MAX;
	return p;
}

struct cw_tproc *cw_tool_run_find(struct cw_tool_run *r, int pid)
{
	struct cw_sset_ent *e;
	char key[24];

	snprintf(key, sizeof(key), "%d", pid);
	e = cw_sset_get(&r->pidmap, key, false);
	return e ? &r->procs[e->aux] : NULL;
}

struct cw_tproc *cw_tool_run_proc(struct cw_tool_run *r, int pid)
{
	struct cw_sset_ent *e;
	char key[24];

	snprintf(key, sizeof(key), "%d", pid);
	e = cw_sset_get(&r->pidmap, key, false);
	if (e)
		return &r->procs[e->aux];
	return new_proc(r, pid);
}

static char **json_strv(const cJSON *arr)
{
	const cJSON *it;
	size_t n, i = 0;
	char **v;

	if (!cJSON_IsArray(arr))
		return NULL;
	n = (size_t)cJSON_GetArraySize(arr);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	cJSON_ArrayForEach(it, arr) {
		if (i >= n)
			break;
		v[i] = strdup(cJSON_IsString(it) ? it->valuestring : "?");
		if (!v[i]) {
			free_strv(v);
			return NULL;
		}
		i++;
	}
	return v;
}

static void note_time(struct cw_tool_run *r, double t)
{
	if (t != t) /* NaN: no time recorded */
		return;
	if (!r->has_time || t < r->tmin)
		r->tmin = t;
	if (!r->has_time || t > r->tmax)
		r->tmax = t;
	r->has_time = true;
}

double cw_tool_run_rel(const struct cw_tool_run *r, double t)
{
	return r->has_time ? t - r->tmin : t;
}

static int int_field(const cJSON *ev, const char *key, int def)
{
	double v = cw_j_num(ev, key, (double)def);

	if (!(v >= (double)INT_MIN && v <= (double)INT_MAX))
		return def;
	return (int)v;
}

/* A site field, if the supervisor recorded one: a string or an object. */
static char *site_text(const cJSON *ev)
{
	static const char *const keys[] = { "site", "call_site", "callsite", "caller", NULL };
	size_t i;

	for (i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, keys[i]);

		if (cJSON_IsString(v))
			return strdup(v->valuestring);
		if (cJSON_IsObject(v) || cJSON_IsArray(v))
			return cJSON_PrintUnformatted(v);
	}
	return NULL;
}

static char *dupn(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_record(struct cw_tdenial **v, size_t *n, size_t *cap, const cJSON *ev, int pid)
{
	struct cw_tdenial *d;

	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct cw_tdenial *nd = realloc(*v, nc * sizeof(*nd));

		if (!nd)
			return -ENOMEM;
		*v = nd;
		*cap = nc;
	}
	d = &(*v)[(*n)++];
	memset(d, 0, sizeof(*d));
	d->seq = cw_j_u64(ev, "seq", 0);
	d->time = cw_j_num(ev, "time", 0);
	d->pid = pid;
	d->syscall = dupn(cw_j_str(ev, "syscall"));
	d->cap = dupn(cw_j_str(ev, "capability"));
	d->scope = dupn(cw_j_str(ev, "scope"));
	d->rule = dupn(cw_j_str(ev, "rule"));
	d->host = dupn(cw_j_str(ev, "host"));
	d->reason = dupn(cw_j_str(ev, "reason"));
	d->decision = dupn(cw_j_str(ev, "decision"));
	d->site = site_text(ev);
	d->scope_bytes = cw_j_bytes(ev, "scope");
	d->program = cw_j_bytes(ev, "program");
	/* the trace says next_action and source_of_decision ("source" is the
	 * interception layer there); a report record says "source" */
	d->next_action = dupn(cw_j_str(ev, "next_action") ? cw_j_str(ev, "next_action")
							  : cw_j_str(ev, "nextAction"));
	d->source = dupn(cw_j_str(ev, "source_of_decision"));
	d->enforced = cw_j_bool(ev, "enforced", true);
	d->tolerated = cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(ev, "tolerated"))
		       ? cw_j_bool(ev, "tolerated", false) : -1;
	d->proc = SIZE_MAX;
	return 0;
}

static int add_denial(struct cw_tool_run *r, const cJSON *ev, int pid)
{
	struct cw_tproc *p = cw_tool_run_find(r, pid);
	int e = add_record(&r->denials, &r->ndenials, &r->dencap, ev, pid);

	/* the record of the process as it is now: a later spawn of the same
	 * pid is another record (add_spawn) */
	if (e == 0 && p)
		r->denials[r->ndenials - 1].proc = (size_t)(p - r->procs);
	return e;
}

bool cw_tool_denial_tolerated(const struct cw_tool_run *r, const struct cw_tdenial *d)
{
	const struct cw_tproc *p = d->proc < r->nprocs ? &r->procs[d->proc] : NULL;

	if (d->tolerated >= 0)
		return d->tolerated;
	return p && p->pid != 0 && p->has_end && p->exited && p->code == 0 && !p->signal;
}

long cw_tool_run_headline(const struct cw_tool_run *r, size_t *tolerated)
{
	long best = -1;
	size_t i, tol = 0;

	for (i = 0; i < r->ndenials; i++) {
		const struct cw_tdenial *d = &r->denials[i];
		const struct cw_tdenial *b = best >= 0 ? &r->denials[best] : NULL;
		bool asks = d->next_action && !strcmp(d->next_action, "request_approval");

		if (!d->enforced)
			continue;
		if (cw_tool_denial_tolerated(r, d)) {
			tol++;
			continue;
		}
		/* the supervisor's order (policy/report.h) */
		if (!b || cw_headline_over(asks, d->time, b->next_action && !strcmp(b->next_action, "request_approval"),
					   b->time))
			best = (long)i;
	}
	if (tolerated)
		*tolerated = tol;
	return best;
}

static int add_op(struct cw_tool_run *r, const cJSON *ev)
{
	int pid = int_field(ev, "pid", -1), ppid = int_field(ev, "ppid", -1), k = -1;
	const char *cap = cw_j_str(ev, "capability"), *scope = cw_j_str(ev, "scope");
	const char *dec = cw_j_str(ev, "decision");
	struct cw_tproc *p = cw_tool_run_proc(r, pid);
	bool denied = dec && strcmp(dec, "allow");

	if (!p)
		return -ENOMEM;
	if (p->ppid < 0 && ppid >= 0)
		p->ppid = ppid;
	p->nops++;
	r->nops++;
	if (cap)
		k = cw_cap_from_name(cap);
	if (k >= 0 && k < CW_CAP__COUNT) {
		struct cw_sset_ent *e;

		r->uses[k]++;
		p->uses[k]++;
		e = cw_sset_bump(&r->scopes[k], scope ? scope : "");
		if (!e)
			return -ENOMEM;
		if (!e->data && cw_j_str(ev, "host"))
			e->data = strdup(cw_j_str(ev, "host"));
		if (denied)
			e->aux++;
		if (!p->scopes) {
			p->scopes = calloc(CW_CAP__COUNT, sizeof(*p->scopes));
			if (!p->scopes)
				return -ENOMEM;
		}
		if (!cw_sset_bump(&p->scopes[k], scope ? scope : ""))
			return -ENOMEM;
		if (denied)
			r->kind_denials[k]++;
	}
	if (denied) {
		p->ndenied++;
		return add_denial(r, ev, pid);
	}
	if (cw_j_bool(ev, "flagged", false))
		return add_record(&r->flagged, &r->nflagged, &r->flagcap, ev, pid);
	return 0;
}

/* A spawn of a pid whose record has exited is pid reuse: a new record. */
static int add_spawn(struct cw_tool_run *r, const cJSON *ev, int pid, double t)
{
	struct cw_sset_ent *e;
	struct cw_tproc *p;
	char key[24];

	snprintf(key, sizeof(key), "%d", pid);
	e = cw_sset_get(&r->pidmap, key, false);
	p = e && r->procs[e->aux].has_end ? new_proc(r, pid) : cw_tool_run_proc(r, pid);
	if (!p)
		return -ENOMEM;
	p->ppid = int_field(ev, "ppid", p->ppid);
	if (t == t && !p->has_start) {
		p->start = t;
		p->has_start = true;
	}
	/* A fork runs its parent's program until it execs: name it so
	 * (explain and the HTML export showed "?" for such children). */
	if (!p->exe && p->ppid > 0) {
		snprintf(key, sizeof(key), "%d", p->ppid);
		e = cw_sset_get(&r->pidmap, key, false);
		if (e && r->procs[e->aux].exe) {
			p->exe = strdup(r->procs[e->aux].exe);
			if (!p->exe)
				return -ENOMEM;
		}
	}
	return 0;
}

static int add_exec(struct cw_tool_run *r, const cJSON *ev, int pid, double t)
{
	char *exe = cw_j_bytes(ev, "exe");
	char **argv = json_strv(cJSON_GetObjectItemCaseSensitive(ev, "argv"));
	struct cw_tproc *p;

	/* the writer caps argv per line; show that it was cut */
	if (argv && cw_j_bool(ev, "argv_truncated", false)) {
		size_t n = 0;
		char **nv;

		while (argv[n])
			n++;
		nv = realloc(argv, (n + 2) * sizeof(*nv));
		if (nv) {
			argv = nv;
			argv[n] = strdup("...(argv truncated)");
			argv[n + 1] = NULL;
		}
	}

	p = cw_tool_run_proc(r, pid);
	if (!p) {
		free(exe);
		free_strv(argv);
		return -ENOMEM;
	}
	if (p->ppid < 0)
		p->ppid = int_field(ev, "ppid", -1);
	if (t == t && !p->has_start) {
		p->start = t;
		p->has_start = true;
	}
	free(p->exe);
	p->exe = exe;
	if (argv) {
		free_strv(p->argv);
		p->argv = argv;
	}
	p->nexec++;
	r->nexec++;
	if (exe && !cw_sset_bump(&r->programs, exe))
		return -ENOMEM;
	return 0;
}

static int add_exit(struct cw_tool_run *r, const cJSON *ev, int pid, double t)
{
	const char *sig = cw_j_str(ev, "signal");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(ev, "code");
	struct cw_tproc *p = cw_tool_run_proc(r, pid);

	if (!p)
		return -ENOMEM;
	if (t == t) {
		p->end = t;
		p->has_end = true;
	}
	free(p->signal);
	p->signal = sig ? strdup(sig) : NULL;
	p->exited = cJSON_IsNumber(code);
	p->code = p->exited ? cw_num_int(code->valuedouble, 0) : 0;
	if (!p->has_end)
		p->has_end = true;
	return 0;
}

int cw_tool_run_add(struct cw_tool_run *r, const cJSON *ev)
{
	const char *type = cw_j_str(ev, "type");
	double t = cw_j_num(ev, "time", 0.0 / 0.0);
	int pid = int_field(ev, "pid", -1);

	if (!type || !strcmp(type, "header"))
		return 0;
	r->nevents++;
	note_time(r, t);
	if (!strcmp(type, "op"))
		return add_op(r, ev);
	if (!strcmp(type, "spawn"))
		return add_spawn(r, ev, pid, t);
	if (!strcmp(type, "exec"))
		return add_exec(r, ev, pid, t);
	if (!strcmp(type, "exit"))
		return add_exit(r, ev, pid, t);
	if (!strcmp(type, "note")) {
		const char *m = cw_j_str(ev, "message");

		r->nnotes++;
		if (m && r->notes.n < 1000 && !cw_sset_bump(&r->notes, m))
			return -ENOMEM;
		return 0;
	}
	if (!strcmp(type, "summary")) {
		cJSON_Delete(r->summary);
		r->summary = cJSON_Duplicate(ev, 1);
		return 0;
	}
	return 0;
}

static int run_on_header(void *opaque, const cJSON *ev, unsigned long lineno)
{
	struct cw_tool_run *r = opaque;

	(void)lineno;
	cJSON_Delete(r->header);
	r->header = cJSON_Duplicate(ev, 1);
	return r->header ? 0 : -ENOMEM;
}

static int run_on_event(void *opaque, const cJSON *ev, unsigned long lineno)
{
	(void)lineno;
	return cw_tool_run_add(opaque, ev);
}

/* A report (contract section 4) read into the same model, so explain shows
 * both the same way. Fields are taken where present; unknown shapes of a
 * field are skipped rather than trusted. */
static int run_from_report(struct cw_tool_run *r, cJSON *doc)
{
	const cJSON *it, *arr;

	r->from_report = true;
	r->report = doc;
	arr = cJSON_GetObjectItemCaseSensitive(doc, "processes");
	cJSON_ArrayForEach(it, arr) {
		int pid = int_field(it, "pid", -1);
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(it, "exit");
		struct cw_tproc *p = new_proc(r, pid);
		double t;

		if (!p)
			return -ENOMEM;
		p->ppid = int_field(it, "ppid", -1);
		p->exe = cw_j_bytes(it, "exe");
		p->argv = json_strv(cJSON_GetObjectItemCaseSensitive(it, "argv"));
		t = cw_j_num(it, "start", 0.0 / 0.0);
		if (t == t) {
			p->start = t;
			p->has_start = true;
			note_time(r, t);
		}
		t = cw_j_num(it, "end", 0.0 / 0.0);
		if (t == t && t >= 0) {
			p->end = t;
			p->has_end = true;
			note_time(r, t);
		}
		if (cJSON_IsObject(ex)) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(ex, "code");
			const char *s = cw_j_str(ex, "signal");

			p->exited = cJSON_IsNumber(c);
			p->code = p->exited ? cw_num_int(c->valuedouble, 0) : 0;
			p->signal = s ? strdup(s) : NULL;
			p->has_end = true;
		} else if (cJSON_IsNumber(ex)) {
			p->exited = p->has_end = true;
			p->code = cw_num_int(ex->valuedouble, 0);
		}
		if (p->exe && !cw_sset_bump(&r->programs, p->exe))
			return -ENOMEM;
	}
	arr = cJSON_GetObjectItemCaseSensitive(doc, "capabilitiesUsed");
	cJSON_ArrayForEach(it, arr) {
		const char *kind = cw_j_str(it, "kind"), *scope = cw_j_str(it, "scope");
		int k = kind ? cw_cap_from_name(kind) : -1;
		unsigned long n = (unsigned long)cw_j_u64(it, "count", 1);
		struct cw_sset_ent *e;

		if (k < 0 || k >= CW_CAP__COUNT)
			continue;
		e = cw_sset_get(&r->scopes[k], scope ? scope : "", true);
		if (!e)
			return -ENOMEM;
		e->count += n;
		r->uses[k] += n;
	}
	arr = cJSON_GetObjectItemCaseSensitive(doc, "denials");
	cJSON_ArrayForEach(it, arr) {
		const cJSON *cap = cJSON_GetObjectItemCaseSensitive(it, "capability");
		struct cw_tdenial *d;
		int pid = int_field(it, "pid", -1), k;
		struct cw_tproc *p;

		if (add_denial(r, it, pid) < 0)
			return -ENOMEM;
		d = &r->denials[r->ndenials - 1];
		/* "capability" may be {"kind","scope"} as in outcome.denial */
		if (cJSON_IsObject(cap)) {
			free(d->cap);
			d->cap = dupn(cw_j_str(cap, "kind"));
			if (!d->scope)
				d->scope = dupn(cw_j_str(cap, "scope"));
			if (!d->scope_bytes)
				d->scope_bytes = cw_j_bytes(cap, "scope");
		}
		if (!d->source)
			d->source = dupn(cw_j_str(it, "source"));
		k = d->cap ? cw_cap_from_name(d->cap) : -1;
		if (k >= 0 && k < CW_CAP__COUNT)
			r->kind_denials[k]++;
		if (!d->decision)
			d->decision = strdup("deny");
		p = cw_tool_run_proc(r, pid);
		if (p)
			p->ndenied++;
	}
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n + 65536 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 131072;
			char *nb = realloc(buf, nc);

			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = nc;
		}
		got = fread(buf + n, 1, 65536, f);
		n += got;
		if (got < 65536)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Is PATH a report? Reports are one (pretty-printed) JSON document; a trace's
 * first line is a complete object followed by more lines. Only the first
 * bytes are looked at, to stay cheap on a large trace. */
static bool looks_like_report(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, "\"capwatch.report/") != NULL && !strstr(buf, "\"type\"");
}

int cw_tool_run_load(struct cw_tool_run *r, bool allow_report)
{
	int ret;

	if (allow_report && strcmp(r->file, "-") && looks_like_report(r->file)) {
		size_t len = 0;
		char *text = slurp(r->file, &len);
		const char *end = NULL, *schema;
		cJSON *doc;

		if (!text) {
			ret = -errno;
			cw_tool_msg("%s: %s", r->file, strerror(-ret));
			return ret;
		}
		doc = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1); /* the NUL too: cJSON requires it in the length */
		if (!doc || !cJSON_IsObject(doc)) {
			size_t line = 1;
			const char *p, *at = cJSON_GetErrorPtr();

			for (p = text; at && p < at && p < text + len; p++)
				line += *p == '\n';
			cw_tool_msg("%s:%zu: not a valid capwatch report (JSON syntax error)", r->file, line);
			cJSON_Delete(doc);
			free(text);
			return -EINVAL;
		}
		free(text);
		schema = cw_j_str(doc, "schema");
		if (!schema || strcmp(schema, "capwatch.report/v1")) {
			cw_tool_msg("%s: %s report schema \"%s\" (this capwatch reads capwatch.report/v1)", r->file,
				    schema && !strncmp(schema, "capwatch.report/v", 17) ? "newer" : "unknown",
				    schema ? schema : "");
			cJSON_Delete(doc);
			return -EPROTONOSUPPORT;
		}
		ret = run_from_report(r, doc);
		if (ret < 0)
			cw_tool_msg("%s: %s", r->file, strerror(-ret));
		r->st.file = r->file;
		r->st.summary = true;
		return ret;
	}
	ret = cw_tr_read(r->file, run_on_header, run_on_event, r, &r->st);
	if (ret > 0)
		ret = -EINVAL;
	if (ret == -ENOMEM)
		cw_tool_msg("%s: out of memory", r->file);
	return ret;
}

void cw_tool_run_link(struct cw_tool_run *r)
{
	unsigned char *state;
	size_t i;

	/* 1. the parent is the latest record of ppid; pid reuse is rare enough
	 *    that "latest record" is good enough */
	for (i = 0; i < r->nprocs; i++) {
		struct cw_tproc *p = &r->procs[i];
		struct cw_sset_ent *e;
		char key[24];

		p->parent = SIZE_MAX;
		p->nkids = 0;
		if (p->ppid < 0 || p->ppid == p->pid)
			continue;
		snprintf(key, sizeof(key), "%d", p->ppid);
		e = cw_sset_get(&r->pidmap, key, false);
		if (e && e->aux != i)
			p->parent = e->aux;
	}
	/* 2. break cycles (a hostile trace can claim anything) in linear time:
	 *    walk up from each record, marking the walk; meeting the walk
	 *    itself is a cycle, cut at the node where it closes */
	state = calloc(r->nprocs + 1, 1); /* 0 new, 1 on this walk, 2 done */
	if (!state) {
		for (i = 0; i < r->nprocs; i++)
			r->procs[i].parent = SIZE_MAX; /* a flat list beats a loop */
		return;
	}
	for (i = 0; i < r->nprocs; i++) {
		size_t a = i, prev = SIZE_MAX;

		while (a != SIZE_MAX && state[a] == 0) {
			state[a] = 1;
			prev = a;
			a = r->procs[a].parent;
		}
		if (a != SIZE_MAX && state[a] == 1)
			r->procs[prev].parent = SIZE_MAX;
		for (a = i; a != SIZE_MAX && state[a] == 1; a = r->procs[a].parent)
			state[a] = 2;
	}
	free(state);
	/* 3. children lists, in the order the records were made */
	for (i = 0; i < r->nprocs; i++) {
		size_t pi = r->procs[i].parent;

		if (pi == SIZE_MAX)
			continue;
		if (r->procs[pi].nkids == r->procs[pi].kidscap) {
			size_t nc = r->procs[pi].kidscap ? r->procs[pi].kidscap * 2 : 4;
			size_t *nk = realloc(r->procs[pi].kids, nc * sizeof(*nk));

			if (!nk) {
				r->procs[i].parent = SIZE_MAX;
				continue;
			}
			r->procs[pi].kids = nk;
			r->procs[pi].kidscap = nc;
		}
		r->procs[pi].kids[r->procs[pi].nkids++] = i;
	}
}

const char *cw_tproc_name(const struct cw_tproc *p)
{
	const char *s = p->exe ? p->exe : p->argv && p->argv[0] ? p->argv[0] : NULL, *b;

	if (!s)
		return "?";
	b = strrchr(s, '/');
	return b && b[1] ? b + 1 : s;
}
