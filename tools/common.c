/* Shared plumbing of the trace tools: see common.h for the bad-input policy.
 *
 * Everything read here is untrusted (a trace may be edited, truncated by a
 * crash, or hostile), so fields are type-checked where they are used and
 * every string that reaches a terminal goes through cw_tool_put. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "policy/trace.h"
#include "supervisor/profile_load.h"
#include "tools/common.h"

/* ---- messages ---- */

void cw_tool_msg(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	memcpy(buf, "capwatch: ", 10);
	va_start(ap, fmt);
	n = vsnprintf(buf + 10, sizeof(buf) - 11, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 10;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	buf[n] = '\0';
	fflush(stdout);
	fputs(buf, stderr);
}

static bool is_ctl(const unsigned char *s, size_t *skip)
{
	*skip = 1;
	if (s[0] < 0x20 || s[0] == 0x7f)
		return true;
	/* C1 controls encoded in UTF-8: U+0080..U+009F */
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		*skip = 2;
		return true;
	}
	return false;
}

void cw_tool_put_max(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t done = 0, skip, i;

	if (!s) {
		fputc('-', f);
		return;
	}
	while (*p) {
		if (done >= max) {
			fputs("...", f);
			return;
		}
		if (is_ctl(p, &skip)) {
			for (i = 0; i < skip; i++)
				fprintf(f, "\\x%02x", p[i]);
		} else
			fputc(*p, f);
		p += skip;
		done += skip;
	}
}

void cw_tool_put(FILE *f, const char *s)
{
	cw_tool_put_max(f, s, SIZE_MAX);
}

void cw_style_init(struct cw_style *st, FILE *f)
{
	const char *nc = getenv("NO_COLOR");
	bool on = isatty(fileno(f)) && !(nc && *nc);

	st->bold = on ? "\033[1m" : "";
	st->dim = on ? "\033[2m" : "";
	st->red = on ? "\033[31m" : "";
	st->yellow = on ? "\033[33m" : "";
	st->green = on ? "\033[32m" : "";
	st->cyan = on ? "\033[36m" : "";
	st->reset = on ? "\033[0m" : "";
}

/* ---- string set ---- */

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static int sset_reindex(struct cw_sset *s, size_t newcap)
{
	size_t *idx = calloc(newcap, sizeof(*idx)), i;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		size_t h = hash_str(s->ents[i].key) & (newcap - 1);

		while (idx[h])
			h = (h + 1) & (newcap - 1);
		idx[h] = i + 1;
	}
	free(s->idx);
	s->idx = idx;
	s->idxcap = newcap;
	return 0;
}

struct cw_sset_ent *cw_sset_get(struct cw_sset *s, const char *key, bool create)
{
	size_t h;

	if (!key)
		key = "";
	if (s->idxcap) {
		h = hash_str(key) & (s->idxcap - 1);
		while (s->idx[h]) {
			struct cw_sset_ent *e = &s->ents[s->idx[h] - 1];

			if (!strcmp(e->key, key))
				return e;
			h = (h + 1) & (s->idxcap - 1);
		}
	}
	if (!create)
		return NULL;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct cw_sset_ent *ne = realloc(s->ents, nc * sizeof(*ne));

		if (!ne)
			return NULL;
		s->ents = ne;
		s->cap = nc;
	}
	if ((s->n + 1) * 2 > s->idxcap && sset_reindex(s, s->idxcap ? s->idxcap * 2 : 32) < 0)
		return NULL;
	memset(&s->ents[s->n], 0, sizeof(s->ents[s->n]));
	s->ents[s->n].key = strdup(key);
	if (!s->ents[s->n].key)
		return NULL;
	h = hash_str(key) & (s->idxcap - 1);
	while (s->idx[h])
		h = (h + 1) & (s->idxcap - 1);
	s->idx[h] = ++s->n;
	return &s->ents[s->n - 1];
}

struct cw_sset_ent *cw_sset_bump(struct cw_sset *s, const char *key)
{
	struct cw_sset_ent *e = cw_sset_get(s, key, true);

	if (e)
		e->count++;
	return e;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cw_sset_ent *)a)->key, ((const struct cw_sset_ent *)b)->key);
}

void cw_sset_sort(struct cw_sset *s)
{
	if (s->n < 2)
		return;
	qsort(s->ents, s->n, sizeof(*s->ents), ent_cmp);
	/* on ENOMEM the old index would point at the wrong entries: drop it and
	 * fall back to no lookups rather than wrong ones */
	if (sset_reindex(s, s->idxcap) < 0) {
		free(s->idx);
		s->idx = NULL;
		s->idxcap = 0;
	}
}

void cw_sset_free(struct cw_sset *s, void (*freedata)(void *))
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->ents[i].key);
		if (freedata)
			freedata(s->ents[i].data);
	}
	free(s->ents);
	free(s->idx);
	memset(s, 0, sizeof(*s));
}

/* ---- JSON helpers ---- */

const char *cw_j_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double cw_j_num(const cJSON *o, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

bool cw_j_bool(const cJSON *o, const char *key, bool def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}

int cw_num_int(double v, int def)
{
	return v >= (double)INT_MIN && v <= (double)INT_MAX ? (int)v : def;
}

int cw_j_int(const cJSON *o, const char *key, int def)
{
	return cw_num_int(cw_j_num(o, key, (double)def), def);
}

uint64_t cw_j_u64(const cJSON *o, const char *key, uint64_t def)
{
	double v = cw_j_num(o, key, -1);

	return v >= 0 && v < 18446744073709551616.0 ? (uint64_t)v : def;
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *cw_j_bytes(const cJSON *o, const char *key)
{
	char hk[80];
	const char *h, *s;

	snprintf(hk, sizeof(hk), "%s_hex", key);
	h = cw_j_str(o, hk);
	if (h && strlen(h) % 2 == 0) {
		size_t n = strlen(h) / 2, i;
		char *out = malloc(n + 1);

		if (!out)
			return NULL;
		for (i = 0; i < n; i++) {
			int hi = hexv(h[2 * i]), lo = hexv(h[2 * i + 1]);

			if (hi < 0 || lo < 0)
				break;
			out[i] = (char)(hi << 4 | lo);
		}
		out[i] = '\0';
		if (i == n)
			return out;
		free(out);
	}
	s = cw_j_str(o, key);
	return s ? strdup(s) : NULL;
}

/* ---- reader ---- */

#define CW_TR_MAX_BAD_MSGS 20

int cw_tr_read_stream(FILE *f, const char *name, cw_tr_fn on_header, cw_tr_fn on_event,
		      void *opaque, struct cw_tr_status *st, bool quiet)
{
	char *line = NULL, err[512];
	size_t cap = 0;
	ssize_t n;
	bool have_header = false;
	int r = 0;

	memset(st, 0, sizeof(*st));
	st->file = name;
	while ((n = getline(&line, &cap, f)) >= 0) {
		bool last_unterminated = n == 0 || line[n - 1] != '\n';
		cJSON *ev;
		const char *type;

		st->lines++;
		ev = cw_trace_parse_line(line, (size_t)n, st->lines, err, sizeof(err));
		if (!ev) {
			if (!have_header) {
				/* without a header nothing after it can be trusted */
				const char *m = strncmp(err, "line ", 5) ? err : strchr(err, ':') ? strchr(err, ':') + 2 : err;

				r = strstr(err, "is newer than") ? -EPROTONOSUPPORT : -EINVAL;
				if (r == -EPROTONOSUPPORT)
					cw_tool_msg("%s:%lu: %s (it reads %s); use a newer capwatch", name, st->lines, m,
						    CW_TRACE_SCHEMA);
				else
					cw_tool_msg("%s:%lu: not a capwatch trace: %s", name, st->lines, m);
				goto out;
			}
			if (last_unterminated) {
				int c = fgetc(f);

				if (c == EOF) {
					st->truncated = true;
					cw_tool_msg("%s:%lu: warning: the last line is cut short (was the run killed?); "
						    "results cover the %lu lines before it", name, st->lines,
						    st->lines - 1);
					break;
				}
				ungetc(c, f);
			}
			st->bad++;
			if (st->bad <= CW_TR_MAX_BAD_MSGS)
				cw_tool_msg("%s:%lu: %s; line skipped", name, st->lines,
					    strncmp(err, "line ", 5) ? err : strchr(err, ':') ? strchr(err, ':') + 2 : err);
			continue;
		}
		type = cw_j_str(ev, "type");
		if (!have_header) {
			if (!type || strcmp(type, "header")) {
				cw_tool_msg("%s:%lu: not a capwatch trace: the first line is not a header", name, st->lines);
				cJSON_Delete(ev);
				r = -EINVAL;
				goto out;
			}
			have_header = true;
			r = on_header ? on_header(opaque, ev, st->lines) : 0;
			cJSON_Delete(ev);
			if (r)
				goto out;
			continue;
		}
		if (type && !strcmp(type, "header")) {
			st->bad++;
			if (st->bad <= CW_TR_MAX_BAD_MSGS)
				cw_tool_msg("%s:%lu: a second header (two traces concatenated?); line skipped",
					    name, st->lines);
			cJSON_Delete(ev);
			continue;
		}
		if (type && !strcmp(type, "summary"))
			st->summary = true;
		st->events++;
		r = on_event ? on_event(opaque, ev, st->lines) : 0;
		cJSON_Delete(ev);
		if (r)
			goto out;
	}
	if (ferror(f)) {
		cw_tool_msg("%s: read error", name);
		r = -EIO;
		goto out;
	}
	if (!have_header) {
		cw_tool_msg("%s: not a capwatch trace: the file is empty", name);
		r = -EINVAL;
		goto out;
	}
	if (st->bad > CW_TR_MAX_BAD_MSGS)
		cw_tool_msg("%s: %lu corrupt lines skipped in all", name, st->bad);
	if (!st->summary && !st->truncated && !quiet)
		cw_tool_msg("%s: warning: no summary line: the run did not finish cleanly; results are partial",
			    name);
out:
	st->partial = st->bad || st->truncated || !st->summary;
	free(line);
	return r;
}

int cw_tr_read(const char *path, cw_tr_fn on_header, cw_tr_fn on_event, void *opaque,
	       struct cw_tr_status *st)
{
	FILE *f;
	int r;

	if (!strcmp(path, "-"))
		return cw_tr_read_stream(stdin, "<stdin>", on_header, on_event, opaque, st, false);
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		memset(st, 0, sizeof(*st));
		st->file = path;
		cw_tool_msg("%s: %s", path, strerror(-r));
		return r;
	}
	r = cw_tr_read_stream(f, path, on_header, on_event, opaque, st, false);
	fclose(f);
	return r;
}

/* ---- run model ---- */

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
	d->next_action = dupn(cw_j_str(ev, "next_action"));
	d->source = dupn(cw_j_str(ev, "source_of_decision"));
	d->enforced = cw_j_bool(ev, "enforced", true);
	return 0;
}

static int add_denial(struct cw_tool_run *r, const cJSON *ev, int pid)
{
	return add_record(&r->denials, &r->ndenials, &r->dencap, ev, pid);
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

int cw_tool_run_add(struct cw_tool_run *r, const cJSON *ev)
{
	const char *type = cw_j_str(ev, "type");
	double t = cw_j_num(ev, "time", 0.0 / 0.0);
	int pid = int_field(ev, "pid", -1);
	struct cw_tproc *p;

	if (!type || !strcmp(type, "header"))
		return 0;
	r->nevents++;
	note_time(r, t);
	if (!strcmp(type, "op"))
		return add_op(r, ev);
	if (!strcmp(type, "spawn")) {
		struct cw_sset_ent *e;
		char key[24];

		/* a spawn of a pid whose record has exited is pid reuse: new record */
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
	if (!strcmp(type, "exec")) {
		char *exe = cw_j_bytes(ev, "exe");
		char **argv = json_strv(cJSON_GetObjectItemCaseSensitive(ev, "argv"));

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
	if (!strcmp(type, "exit")) {
		const char *sig = cw_j_str(ev, "signal");
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(ev, "code");

		p = cw_tool_run_proc(r, pid);
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

/* ---- profiles ----
 * One loader for --profile everywhere: the supervisor's (built-in names,
 * files, "extends" chains of files relative to the including file). */

int cw_tool_profile_load(const char *name, cw_profile **out)
{
	struct cw_profile_files files = { 0 };
	int r;

	*out = NULL;
	r = cw_profile_load(name, out, &files); /* prints its own one-line error */
	cw_profile_files_free(&files);
	if (r < 0)
		*out = NULL;
	return r;
}

/* "extends" of a generated profile: a built-in name or a file relative to
 * the current directory, loaded like --profile. */
static int text_resolver(void *opaque, const char *ref, int depth, cw_profile **out,
			 char *err, size_t errsz)
{
	(void)opaque;
	(void)depth;
	if (cw_tool_profile_load(ref, out) < 0) {
		snprintf(err, errsz, "cannot load \"%s\"", ref);
		return -EINVAL;
	}
	return 0;
}

int cw_tool_profile_parse_text(const char *text, size_t len, const char *origin, cw_profile **out,
			       char *err, size_t errsz)
{
	err[0] = '\0';
	return cw_profile_parse(text, len, origin, text_resolver, NULL, 0, out, err, errsz);
}

/* ---- misc ---- */

/* Length of the valid UTF-8 sequence at S (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *cw_tool_utf8_fix(const char *s, char repl)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = utf8_len(p);

		if (!n) {
			*o++ = repl;
			p++;
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return out;
}

char *cw_tool_argv_join(char *const *argv, size_t max)
{
	size_t cap = 256, n = 0, i;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[0] = '\0';
	for (i = 0; argv && argv[i]; i++) {
		const unsigned char *s = (const unsigned char *)argv[i];
		bool q = !*s || strpbrk(argv[i], " \t\n'\"\\$`*?;&|<>()") != NULL;

		for (;;) {
			/* worst case: every byte as \xNN, quotes, space */
			size_t need = n + strlen(argv[i]) * 4 + 8;

			if (need <= cap)
				break;
			cap *= 2;
			{
				char *no = realloc(out, cap);

				if (!no) {
					free(out);
					return NULL;
				}
				out = no;
			}
		}
		if (i)
			out[n++] = ' ';
		if (q)
			out[n++] = '\'';
		for (; *s; s++) {
			if (*s < 0x20 || *s == 0x7f)
				n += (size_t)sprintf(out + n, "\\x%02x", *s);
			else if (*s == '\'' && q) {
				memcpy(out + n, "'\\''", 4);
				n += 4;
			} else
				out[n++] = (char)*s;
		}
		if (q)
			out[n++] = '\'';
		out[n] = '\0';
		if (max && n > max) {
			strcpy(out + max, "...");
			break;
		}
	}
	return out;
}

char *cw_tool_dirname(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

bool cw_tool_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}
