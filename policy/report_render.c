/* The run report (report.h), rendered with cJSON, once at the end of the
 * run (the model is in report.c).
 *
 * cJSON does not validate UTF-8: it copies bytes as they are. Every string
 * that may come from the target is therefore sanitised first (each byte of
 * an invalid sequence -> U+FFFD) and, when that lost information, the exact
 * bytes are added in a "<key>_hex" sibling, as the trace does. After
 * printing, the characters a terminal would act on (DEL, C1 controls,
 * U+2028/2029, bidi controls) are rewritten as \u escapes, matching jbuf. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "report.h"
#include "report_impl.h"
#include "hmap.h"
#include "jbuf.h"
#include "trace.h"

/* ---- rendering ---- */

struct rctx {
	bool ok;
	/* the minimal document (cw_report_write_minimal), or NULL */
	const struct cw_report_minimal *min;
};

static cJSON *chk(struct rctx *c, cJSON *v)
{
	if (!v)
		c->ok = false;
	return v;
}

static const char hexdig[] = "0123456789abcdef";

static char *hex_of(const char *s, size_t n)
{
	char *h = malloc(2 * n + 1);
	size_t i;

	if (!h)
		return NULL;
	for (i = 0; i < n; i++) {
		h[2 * i] = hexdig[(unsigned char)s[i] >> 4];
		h[2 * i + 1] = hexdig[(unsigned char)s[i] & 15];
	}
	h[2 * n] = '\0';
	return h;
}

/* A string value that is always valid UTF-8; NULL sanitised/HEX receive
 * what the caller must free. Returns the cJSON string node. */
static cJSON *bytes_node(struct rctx *c, const char *s, char **hexout)
{
	size_t n = strlen(s);
	char *clean;
	cJSON *node;

	*hexout = NULL;
	if (cw_utf8_valid(s, n))
		return chk(c, cJSON_CreateString(s));
	clean = cw_utf8_sanitize(s, n);
	if (!clean) {
		c->ok = false;
		return NULL;
	}
	node = chk(c, cJSON_CreateString(clean));
	free(clean);
	*hexout = hex_of(s, n);
	if (!*hexout)
		c->ok = false;
	return node;
}

/* OBJ.KEY = S (null when S is NULL), plus KEY_hex when S is not UTF-8. */
static void add_bytes(struct rctx *c, cJSON *obj, const char *key, const char *s)
{
	char hk[64], *hex;
	cJSON *node;

	if (!obj)
		return;
	if (!s) {
		chk(c, cJSON_AddNullToObject(obj, key));
		return;
	}
	node = bytes_node(c, s, &hex);
	if (!node) {
		free(hex);
		return;
	}
	if (!cJSON_AddItemToObject(obj, key, node)) {
		cJSON_Delete(node);
		c->ok = false;
	}
	if (hex) {
		snprintf(hk, sizeof(hk), "%s_hex", key);
		chk(c, cJSON_AddStringToObject(obj, hk, hex));
		free(hex);
	}
}

/* OBJ.KEY = [strings], plus KEY_hex = [hex|null] when any is not UTF-8. */
static void add_bytes_arr(struct rctx *c, cJSON *obj, const char *key, const struct strvec *sv)
{
	cJSON *arr, *harr = NULL, *node;
	char hk[64], *hex;
	size_t i;

	if (!obj)
		return;
	arr = chk(c, cJSON_AddArrayToObject(obj, key));
	if (!arr)
		return;
	for (i = 0; i < sv->n; i++) {
		node = bytes_node(c, sv->v[i], &hex);
		if (node && !cJSON_AddItemToArray(arr, node)) {
			cJSON_Delete(node);
			c->ok = false;
		}
		if (hex && !harr) {
			size_t k;

			snprintf(hk, sizeof(hk), "%s_hex", key);
			harr = chk(c, cJSON_AddArrayToObject(obj, hk));
			for (k = 0; harr && k < i; k++) {
				cJSON *nul = chk(c, cJSON_CreateNull());

				if (nul && !cJSON_AddItemToArray(harr, nul)) {
					cJSON_Delete(nul);
					c->ok = false;
				}
			}
		}
		if (harr) {
			node = chk(c, hex ? cJSON_CreateString(hex) : cJSON_CreateNull());
			if (node && !cJSON_AddItemToArray(harr, node)) {
				cJSON_Delete(node);
				c->ok = false;
			}
		}
		free(hex);
	}
}

/* Times in microseconds: enough for ordering, and short in the output. */
static double usec(double t)
{
	if (t >= 0 && t < 9.0e12)
		return (double)(long long)(t * 1e6 + 0.5) / 1e6;
	return t;
}

static void add_num(struct rctx *c, cJSON *obj, const char *key, double v)
{
	if (obj)
		chk(c, cJSON_AddNumberToObject(obj, key, v));
}

static void add_str(struct rctx *c, cJSON *obj, const char *key, const char *s)
{
	add_bytes(c, obj, key, s);
}

static void add_exit(struct rctx *c, cJSON *obj, const char *key, bool exited, int code, int sig)
{
	cJSON *e = chk(c, cJSON_AddObjectToObject(obj, key));
	const char *sn;

	if (!e)
		return;
	if (sig) {
		chk(c, cJSON_AddNullToObject(e, "code"));
		if ((sn = cw_signal_name(sig)))
			add_str(c, e, "signal", sn);
		else
			add_num(c, e, "signal", sig);
	} else {
		if (exited)
			add_num(c, e, "code", code);
		else
			chk(c, cJSON_AddNullToObject(e, "code"));
		chk(c, cJSON_AddNullToObject(e, "signal"));
	}
}

static void add_capability(struct rctx *c, cJSON *obj, cw_cap_kind cap, const char *scope)
{
	cJSON *o = chk(c, cJSON_AddObjectToObject(obj, "capability"));

	add_str(c, o, "kind", cw_cap_name(cap));
	add_bytes(c, o, "scope", scope);
}

static void render_outcome(struct rctx *c, const cw_report *r, cJSON *root)
{
	cJSON *o = chk(c, cJSON_AddObjectToObject(root, "outcome")), *e, *arr, *ch;
	struct strvec none = { NULL, 0 };
	size_t i;

	if (!o)
		return;
	/* a report rendered without an outcome: capwatch failed before it
	 * could tell what happened to the command */
	if (c->min && c->min->state) {
		/* an outcome given by the caller: nothing else of R's is read
		 * but what was set before the command started */
		add_str(c, o, "state", c->min->state);
		add_str(c, o, "kind", c->min->kind);
	} else {
		add_str(c, o, "state", r->has_outcome ? r->state : "failed");
		add_str(c, o, "kind", r->has_outcome ? r->kind : "sandbox_setup_failure");
		if (r->has_outcome && r->has_exit)
			add_exit(c, o, "exit", !r->signal, r->code, r->signal);
	}
	if (r->has_outcome && r->has_denial && !(c->min && c->min->state)) {
		const struct cw_decision *d = &r->denial;
		char scope[CW_SCOPE_MAX + 1], rule[CW_RULE_MAX + 1], reason[CW_REASON_MAX + 1];
		cJSON *dn = chk(c, cJSON_AddObjectToObject(o, "denial"));

		/* the decision is a caller's struct: bound its strings */
		memcpy(scope, d->scope, sizeof(d->scope));
		scope[sizeof(d->scope)] = '\0';
		memcpy(rule, d->rule, sizeof(d->rule));
		rule[sizeof(d->rule)] = '\0';
		memcpy(reason, d->reason, sizeof(d->reason));
		reason[sizeof(d->reason)] = '\0';
		if (dn) {
			add_capability(c, dn, d->cap, scope);
			add_str(c, dn, "source", cw_source_name(d->source));
			add_bytes(c, dn, "reason", reason);
			chk(c, cJSON_AddBoolToObject(dn, "recoverable",
						     d->next_action == CW_NEXT_REQUEST_APPROVAL ||
						     d->profile_verdict == CW_ASK));
			add_str(c, dn, "nextAction", cw_next_action_name(d->next_action));
			add_bytes(c, dn, "rule", rule);
			/* where it happened: the headline's own denial
			 * (cw_report_headline), when this is it; else (the
			 * command's own exec, policy_denied) the first
			 * denial kept in memory that is the same */
			const struct head_cand *h = r->head;
			const struct denial_rec *match = NULL;

			if (h && (h->cap != d->cap || strcmp(h->scope, scope) || strcmp(h->rule, rule)))
				h = NULL;
			for (i = 0; !h && !match && i < r->ndens; i++)
				if (r->dens[i].cap == d->cap && !strcmp(r->dens[i].scope, scope) &&
				    !strcmp(r->dens[i].rule, rule))
					match = &r->dens[i];
			if (h) {
				if (h->syscall)
					add_str(c, dn, "syscall", h->syscall);
				add_num(c, dn, "pid", h->pid);
				add_bytes(c, dn, "program", h->program);
			} else if (match) {
				if (match->syscall)
					add_str(c, dn, "syscall", match->syscall);
				add_num(c, dn, "pid", match->pid);
				add_bytes(c, dn, "program", match->program);
			}
		}
	}
	e = chk(c, cJSON_AddObjectToObject(o, "enforcement"));
	if (e) {
		add_str(c, e, "backend", r->has_enf && r->backend ? r->backend : "none");
		add_str(c, e, "level", r->has_enf && r->level ? r->level : "enforce");
		chk(c, cJSON_AddBoolToObject(e, "degraded", r->has_enf && r->degraded));
		if (c->min && c->min->reason) {
			/* why this is the minimal report: after the reason the
			 * enforcement had, if any */
			const char *was = r->has_enf && r->downgrade ? r->downgrade : "";
			size_t n = strlen(was) + strlen(c->min->reason) + 3;
			char *t = malloc(n);

			if (t)
				snprintf(t, n, "%s%s%s", was, *was ? "; " : "", c->min->reason);
			add_bytes(c, e, "downgradeReason", t ? t : c->min->reason);
			free(t);
		} else {
			add_str(c, e, "downgradeReason", r->has_enf && r->downgrade ? r->downgrade : "");
		}
		add_bytes_arr(c, e, "layers", r->has_enf ? &r->layers : &none);
		if (r->has_enf && r->backend_reason)
			add_str(c, e, "backendReason", r->backend_reason);
	}
	arr = chk(c, cJSON_AddArrayToObject(o, "changes"));
	for (i = 0; arr && !c->min && i < r->nchgs; i++) {
		ch = chk(c, cJSON_CreateObject());
		if (!ch)
			break;
		cJSON_AddItemToArray(arr, ch);
		add_str(c, ch, "kind", r->chgs[i].kind);
		add_bytes(c, ch, "path", r->chgs[i].path);
		if (r->chgs[i].path2)
			add_bytes(c, ch, "to", r->chgs[i].path2);
	}
	if (!c->min && r->chgs_omitted) {
		chk(c, cJSON_AddBoolToObject(o, "changes_truncated", 1));
		add_num(c, o, "changesOmitted", (double)r->chgs_omitted);
	}
}

/* One element of "denials", as its own object (the caller deletes it). */
static cJSON *denial_obj(struct rctx *c, const struct denial_rec *d)
{
	cJSON *o = chk(c, cJSON_CreateObject());

	if (!o)
		return NULL;
	add_num(c, o, "pid", d->pid);
	add_bytes(c, o, "program", d->program);
	add_str(c, o, "syscall", d->syscall);
	add_capability(c, o, d->cap, d->scope);
	add_str(c, o, "decision", cw_verdict_name(d->verdict));
	add_bytes(c, o, "rule", d->rule);
	add_bytes(c, o, "reason", d->reason);
	add_str(c, o, "source", cw_source_name(d->source));
	/* each denial's own next step (issue 17 item 11), not only the
	 * headline's; "tolerated" is put first by put_denial_open */
	add_str(c, o, "nextAction", cw_next_action_name(d->next_action));
	add_num(c, o, "time", usec(d->time));
	chk(c, cJSON_AddBoolToObject(o, "enforced", d->enforced));
	if (d->host)
		add_bytes(c, o, "host", d->host);
	if (d->site)
		add_bytes(c, o, "site", d->site);
	if (d->backtrace.n)
		add_bytes_arr(c, o, "backtrace", &d->backtrace);
	if (d->annotation_source && (d->host || d->site || d->backtrace.n))
		add_str(c, o, "annotation_source", d->annotation_source);
	return o;
}

static void render_approvals(struct rctx *c, const cw_report *r, cJSON *root)
{
	cJSON *arr = chk(c, cJSON_AddArrayToObject(root, "approvals")), *o;
	size_t i;

	for (i = 0; arr && i < r->napps; i++) {
		const struct approval_rec *a = &r->apps[i];

		o = chk(c, cJSON_CreateObject());
		if (!o)
			return;
		cJSON_AddItemToArray(arr, o);
		add_capability(c, o, a->cap, a->scope);
		add_bytes(c, o, "rule", a->rule);
		add_bytes(c, o, "reason", a->reason);
		add_str(c, o, "source", "approval");
		add_str(c, o, "how", a->how);
		add_str(c, o, "for", a->once ? "once" : "run");
		add_num(c, o, "pid", a->pid);
		add_num(c, o, "time", usec(a->time));
		add_num(c, o, "count", (double)a->count);
	}
}

static void render_inherited_fds(struct rctx *c, const cw_report *r, cJSON *root)
{
	if (!r->nfds)
		return; /* only when capwatch was started with descriptors above 2 */
	cJSON *arr = chk(c, cJSON_AddArrayToObject(root, "inheritedFds"));
	for (size_t i = 0; arr && i < r->nfds; i++) {
		const struct fd_rec *f = &r->fds[i];
		cJSON *o = chk(c, cJSON_CreateObject());
		if (!o)
			return;
		cJSON_AddItemToArray(arr, o);
		add_num(c, o, "fd", f->fd);
		add_str(c, o, "kind", f->kind);
		add_bytes(c, o, "path", f->path);
		add_str(c, o, "mode", f->mode);
		add_str(c, o, "action", f->passed ? "passed" : "closed");
	}
}

static void render_host_matches(struct rctx *c, const cw_report *r, cJSON *root)
{
	cJSON *arr, *o;
	size_t i;

	if (!r->nhosts)
		return; /* only for profiles with host-name scopes */
	arr = chk(c, cJSON_AddArrayToObject(root, "hostMatches"));
	for (i = 0; arr && i < r->nhosts; i++) {
		const struct host_rec *h = &r->hosts[i];

		o = chk(c, cJSON_CreateObject());
		if (!o)
			return;
		cJSON_AddItemToArray(arr, o);
		add_capability(c, o, h->cap, h->scope);
		add_bytes(c, o, "host", h->host);
		add_bytes(c, o, "rule", h->rule);
		add_str(c, o, "decision", cw_verdict_name(h->verdict));
		add_num(c, o, "count", (double)h->count);
	}
}

/* One element of "processes" (the caller deletes it). */
static cJSON *proc_obj(struct rctx *c, const struct proc_rec *p)
{
	cJSON *o = chk(c, cJSON_CreateObject());

	if (!o)
		return NULL;
	add_num(c, o, "pid", p->pid);
	add_num(c, o, "ppid", p->ppid);
	add_bytes_arr(c, o, "argv", &p->argv);
	if (p->argv_truncated)
		chk(c, cJSON_AddBoolToObject(o, "argv_truncated", 1));
	add_bytes(c, o, "exe", p->exe);
	if (p->exited || p->signal)
		add_exit(c, o, "exit", p->exited, p->code, p->signal);
	else
		chk(c, cJSON_AddNullToObject(o, "exit"));
	add_num(c, o, "start", usec(p->start));
	if (p->end < 0)
		chk(c, cJSON_AddNullToObject(o, "end"));
	else
		add_num(c, o, "end", usec(p->end));
	add_str(c, o, "preload", p->preload);
	return o;
}

static int cap_ent_cmp(const void *a, const void *b)
{
	const struct cap_ent *x = *(const struct cap_ent *const *)a;
	const struct cap_ent *y = *(const struct cap_ent *const *)b;
	size_t n = x->scopelen < y->scopelen ? x->scopelen : y->scopelen;
	int k;

	if (x->cap != y->cap)
		return x->cap < y->cap ? -1 : 1;
	k = memcmp(x->scope, y->scope, n);
	if (k)
		return k;
	if (x->scopelen != y->scopelen)
		return x->scopelen < y->scopelen ? -1 : 1;
	return x->verdict < y->verdict ? -1 : x->verdict > y->verdict;
}

/* One element of "capabilitiesUsed" (the caller deletes it). */
static cJSON *cap_obj(struct rctx *c, const struct cap_ent *e)
{
	cJSON *o = chk(c, cJSON_CreateObject());

	if (!o)
		return NULL;
	add_str(c, o, "kind", cw_cap_name(e->cap));
	add_bytes(c, o, "scope", e->scope);
	add_num(c, o, "count", (double)e->count);
	add_str(c, o, "decision", cw_verdict_name(e->verdict));
	return o;
}

/* Length of a character the output must not carry raw (see the file
 * comment) at P, or 0. Input is valid UTF-8. */
static size_t needs_escape(const unsigned char *p, size_t left, unsigned *cp)
{
	if (p[0] == 0x7f) {
		*cp = 0x7f;
		return 1;
	}
	if (p[0] == 0xc2 && left >= 2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		*cp = p[1];
		return 2;
	}
	if (left >= 3 && p[0] == 0xe2 && (p[1] == 0x80 || p[1] == 0x81)) {
		unsigned v = 0x2000 | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);

		if (v == 0x200e || v == 0x200f || (v >= 0x2028 && v <= 0x202e) ||
		    (v >= 0x2066 && v <= 0x2069)) {
			*cp = v;
			return 3;
		}
	}
	return 0;
}

/* Copy TEXT, with a trailing newline when NL, escaping as above. Such
 * characters can only occur inside strings (the structure is ASCII), so an
 * escape there is the same JSON value. */
static char *finish(const char *text, bool nl)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text), extra = 0, i, l, o = 0;
	unsigned cp;
	char *out;

	for (i = 0; i < n; i += l ? l : 1) {
		l = needs_escape(p + i, n - i, &cp);
		if (l)
			extra += 6 - l;
	}
	out = malloc(n + extra + 2);
	if (!out)
		return NULL;
	for (i = 0; i < n;) {
		l = needs_escape(p + i, n - i, &cp);
		if (!l) {
			out[o++] = text[i++];
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'u';
		out[o++] = hexdig[(cp >> 12) & 15];
		out[o++] = hexdig[(cp >> 8) & 15];
		out[o++] = hexdig[(cp >> 4) & 15];
		out[o++] = hexdig[cp & 15];
		i += l;
	}
	if (nl)
		out[o++] = '\n';
	out[o] = '\0';
	return out;
}

/* OBJ printed on its own and escaped, or NULL. Consumes OBJ. */
static char *print_item(struct rctx *c, cJSON *obj)
{
	char *text, *out = NULL;

	if (!obj)
		return NULL;
	if (c->ok && (text = cJSON_Print(obj))) {
		out = finish(text, false);
		cJSON_free(text);
	}
	cJSON_Delete(obj);
	if (!out)
		c->ok = false;
	return out;
}

char *cw_report_denial_fragment(const struct denial_rec *d)
{
	struct rctx c = { .ok = true };

	return print_item(&c, denial_obj(&c, d));
}

/* ---- output ---- */

/* Where the rendered document goes: a descriptor (through BUF) or memory. */
struct sink {
	int fd;          /* -1: memory */
	const struct cw_report_io *io; /* with FD */
	char *buf;
	size_t len, cap;
	int err;         /* the first -errno */
};

static void sink_flush(struct sink *s)
{
	size_t done;
	int e;

	if (s->fd < 0 || !s->len || s->err)
		return;
	e = s->io->write(s->fd, s->buf, s->len, &done);
	if (e < 0)
		s->err = e;
	s->len = 0;
}

static void sink_put(struct sink *s, const char *p, size_t n)
{
	if (s->err || !n)
		return;
	/* in memory a byte stays free for the terminating NUL */
	if (s->len + n + (s->fd < 0) > s->cap) {
		if (s->fd >= 0) {
			sink_flush(s);
			if (n > s->cap) {
				size_t done;
				int e = s->io->write(s->fd, p, n, &done);

				if (e < 0)
					s->err = e;
				return;
			}
		} else {
			size_t nc = s->cap ? s->cap : 4096;
			char *nb;

			while (nc < s->len + n + 1)
				nc *= 2;
			nb = realloc(s->buf, nc);
			if (!nb) {
				s->err = -ENOMEM;
				return;
			}
			s->buf = nb;
			s->cap = nc;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* An array element printed on its own gets the indentation it would have
 * two levels down (root -> array): a tab more per level after each line
 * break. Strings hold no raw line break (JSON escapes it). */
static void put_indented(struct sink *s, const char *p, size_t n)
{
	size_t i, from = 0;

	for (i = 0; i < n; i++)
		if (p[i] == '\n') {
			sink_put(s, p + from, i + 1 - from);
			sink_put(s, "\t\t", 2);
			from = i + 1;
		}
	sink_put(s, p + from, n - from);
}

/* One array element: the separator first unless it is the first. */
static void put_item(struct sink *s, struct rctx *c, cJSON *obj, bool *first)
{
	char *t = print_item(c, obj);

	if (!t) {
		if (!s->err)
			s->err = -ENOMEM;
		return;
	}
	if (!*first)
		sink_put(s, ", ", 2);
	*first = false;
	put_indented(s, t, strlen(t));
	free(t);
}

/* The opening of a denial's object with "tolerated" as its first member
 * (report.h, cw_report_headline): the rest of the object follows, from
 * just after its own "{". */
static void put_denial_open(struct sink *s, const cw_report *r, uint64_t proc, bool *first)
{
	static const char yes[] = "{\n\t\"tolerated\":\ttrue,", no[] = "{\n\t\"tolerated\":\tfalse,";
	bool t = cw_report_tolerated(r, proc);

	if (!*first)
		sink_put(s, ", ", 2);
	*first = false;
	put_indented(s, t ? yes : no, t ? sizeof(yes) - 1 : sizeof(no) - 1);
}

/* A denial kept in memory. */
static void put_denial(struct sink *s, struct rctx *c, const cw_report *r, const struct denial_rec *d,
		       bool *first)
{
	char *t = print_item(c, denial_obj(c, d));

	if (!t || t[0] != '{') {
		if (!s->err)
			s->err = -ENOMEM;
		free(t);
		return;
	}
	put_denial_open(s, r, d->proc, first);
	put_indented(s, t + 1, strlen(t + 1));
	free(t);
}

/* Where reading spilled fragments is, across the chunks they are read in:
 * each is SPILL_HDR hex digits of its process number, then its object,
 * then a NUL (which JSON text never holds). */
struct frag_state {
	bool in_obj;   /* past the header: copying the object */
	bool brace;    /* the object's own "{" is next (put_denial_open wrote one) */
	size_t nhdr;
	char hdr[SPILL_HDR + 1];
};

static uint64_t hdr_proc(const char *h)
{
	uint64_t v = 0;

	for (size_t i = 0; i < SPILL_HDR; i++)
		v = v << 4 | (uint64_t)(h[i] <= '9' ? h[i] - '0' : h[i] - 'a' + 10);
	return v;
}

/* Spilled fragments from P[0..N), continuing *FS and *FIRST. */
static void put_fragments(struct sink *s, const cw_report *r, const char *p, size_t n,
			  struct frag_state *fs, bool *first)
{
	size_t i = 0, from;

	while (i < n) {
		if (!fs->in_obj) {
			while (i < n && fs->nhdr < SPILL_HDR)
				fs->hdr[fs->nhdr++] = p[i++];
			if (fs->nhdr < SPILL_HDR)
				return;
			put_denial_open(s, r, hdr_proc(fs->hdr), first);
			fs->nhdr = 0;
			fs->in_obj = fs->brace = true;
		}
		if (fs->brace && i < n) {
			i++; /* the "{" put_denial_open wrote already */
			fs->brace = false;
		}
		from = i;
		while (i < n && p[i] != '\0')
			i++;
		put_indented(s, p + from, i - from);
		if (i < n) {
			i++;
			fs->in_obj = false;
		}
	}
}

static void put_denials(struct sink *s, struct rctx *c, const cw_report *r)
{
	size_t i, split = r->spilling ? r->spill_at : r->ndens;
	struct frag_state fs = { 0 };
	bool first = true;
	char chunk[16384];
	off_t off = 0;

	for (i = 0; i < split && !s->err; i++)
		put_denial(s, c, r, &r->dens[i], &first);
	if (r->spilling && r->spill_fd >= 0) {
		while (off < r->spill_len && !s->err) {
			size_t want = sizeof(chunk);
			ssize_t k;

			if ((off_t)want > r->spill_len - off)
				want = (size_t)(r->spill_len - off);
			k = r->spill_io->pread(r->spill_fd, chunk, want, (uint64_t)off);
			if (k <= 0) {
				s->err = k < 0 ? (int)k : -EIO;
				break;
			}
			put_fragments(s, r, chunk, (size_t)k, &fs, &first);
			off += k;
		}
		put_fragments(s, r, r->sbuf, r->slen, &fs, &first);
	}
	for (i = split; i < r->ndens && !s->err; i++)
		put_denial(s, c, r, &r->dens[i], &first);
}

static void put_processes(struct sink *s, struct rctx *c, const cw_report *r)
{
	bool first = true;
	size_t i;

	for (i = 0; i < r->nprocs && !s->err; i++)
		put_item(s, c, proc_obj(c, &r->procs[i]), &first);
}

static void put_caps(struct sink *s, struct rctx *c, const cw_report *r)
{
	struct cap_ent *ents;
	const struct cap_ent **v;
	bool first = true;
	size_t i, n = 0, pos = 0, kl;
	const void *k;
	void *val;

	if (!cw_hmap_count(&r->caps))
		return;
	ents = malloc(cw_hmap_count(&r->caps) * sizeof(*ents));
	v = malloc(cw_hmap_count(&r->caps) * sizeof(*v));
	if (!ents || !v) {
		free(ents);
		free(v);
		s->err = -ENOMEM;
		return;
	}
	while (cw_hmap_next(&r->caps, &pos, &k, &kl, &val)) {
		const char *key = k;

		ents[n].cap = (cw_cap_kind)(unsigned char)key[0];
		ents[n].verdict = (cw_verdict)(unsigned char)key[1];
		ents[n].scope = key + CAP_KEY_PREFIX;
		ents[n].scopelen = kl - CAP_KEY_PREFIX - 1;
		memcpy(&ents[n].count, val, sizeof(ents[n].count));
		v[n] = &ents[n];
		n++;
	}
	/* sorted by kind (contract order), then scope bytes, then verdict:
	 * the same run always renders the same document */
	qsort(v, n, sizeof(*v), cap_ent_cmp);
	for (i = 0; i < n && !s->err; i++)
		put_item(s, c, cap_obj(c, v[i]), &first);
	free(v);
	free(ents);
}

/* The long arrays are not built as a tree: the document is printed with a
 * raw placeholder element in each (a control byte, which cJSON escapes in
 * every string, so it occurs nowhere else in the text), and each element
 * is printed in its place, one at a time. Peak memory is the document
 * without them plus one element, whatever the number of processes,
 * denials or capability scopes. */
#define MARK_DENIALS "\001D"
#define MARK_PROCESSES "\001P"
#define MARK_CAPS "\001C"

static void add_marked_array(struct rctx *c, cJSON *root, const char *key, const char *mark)
{
	cJSON *arr = chk(c, cJSON_AddArrayToObject(root, key)), *raw;

	if (!arr)
		return;
	raw = chk(c, cJSON_CreateRaw(mark));
	if (raw && !cJSON_AddItemToArray(arr, raw)) {
		cJSON_Delete(raw);
		c->ok = false;
	}
}

static int render_to(const cw_report *r, struct sink *s, const struct cw_report_minimal *min)
{
	struct rctx c = { .ok = true, .min = min };
	cJSON *root = cJSON_CreateObject(), *cmd, *st;
	char *text = NULL, *doc = NULL, *p, *m;

	if (!root)
		return -ENOMEM;
	add_str(&c, root, "schema", CW_REPORT_SCHEMA);
	add_num(&c, root, "policyVersion", CW_POLICY_VERSION);
	add_bytes(&c, root, "profile", r->profile);
	cmd = chk(&c, cJSON_AddObjectToObject(root, "command"));
	add_bytes(&c, cmd, "name", r->command);
	if (cmd)
		add_bytes_arr(&c, cmd, "args", &r->args);
	add_bytes(&c, root, "workingDirectory", r->cwd);
	add_bytes_arr(&c, root, "workspaceRoots", &r->roots);
	render_outcome(&c, r, root);
	if (min) {
		/* the required arrays, empty; the optional ones left out */
		chk(&c, cJSON_AddArrayToObject(root, "denials"));
		chk(&c, cJSON_AddArrayToObject(root, "processes"));
		chk(&c, cJSON_AddArrayToObject(root, "capabilitiesUsed"));
	} else {
		add_marked_array(&c, root, "denials", MARK_DENIALS);
		render_approvals(&c, r, root);
		render_host_matches(&c, r, root);
		render_inherited_fds(&c, r, root);
		add_marked_array(&c, root, "processes", MARK_PROCESSES);
		add_marked_array(&c, root, "capabilitiesUsed", MARK_CAPS);
	}
	st = chk(&c, cJSON_AddObjectToObject(root, "stats"));
	add_num(&c, st, "events", (double)(min ? min->events : r->events));
	add_num(&c, st, "notifications", (double)(min ? min->notifications : r->notifications));
	add_num(&c, st, "elapsed", usec(min ? min->elapsed : r->elapsed));
	if (min) {
		/* nothing more */
	} else if (r->has_annotations) {
		cJSON *an = chk(&c, cJSON_AddObjectToObject(st, "annotations"));
		if (an) {
			add_num(&c, an, "received", (double)r->annotations.received);
			add_num(&c, an, "accepted", (double)r->annotations.accepted);
			add_num(&c, an, "malformed", (double)r->annotations.malformed);
			add_num(&c, an, "flooded", (double)r->annotations.flooded);
			add_num(&c, an, "unattributed", (double)r->annotations.unattributed);
			add_num(&c, an, "attached", (double)r->annotations.attached);
		}
	}
	if (r->has_colocation && !min) {
		cJSON *co = chk(&c, cJSON_AddObjectToObject(st, "colocation"));
		if (co) {
			add_num(&c, co, "addfds", (double)r->colocation.addfds);
			add_num(&c, co, "rejoins", (double)r->colocation.rejoins);
			add_num(&c, co, "rescues", (double)r->colocation.rescues);
			add_num(&c, co, "backoffs", (double)r->colocation.backoffs);
		}
	}
	if (r->has_ingress && !min) {
		cJSON *ig = chk(&c, cJSON_AddObjectToObject(st, "ingress"));
		if (ig) {
			add_num(&c, ig, "dropped", (double)r->ingress.dropped);
			add_num(&c, ig, "marked", (double)r->ingress.marked);
		}
	}
	if (c.ok && (text = cJSON_Print(root)))
		doc = finish(text, true);
	cJSON_free(text);
	cJSON_Delete(root);
	if (!doc)
		return -ENOMEM;
	for (p = doc; (m = strchr(p, '\001')) && !s->err; p = m + 2) {
		sink_put(s, p, (size_t)(m - p));
		switch (m[1]) {
		case 'D':
			put_denials(s, &c, r);
			break;
		case 'P':
			put_processes(s, &c, r);
			break;
		case 'C':
			put_caps(s, &c, r);
			break;
		default: /* cannot happen: only our marks are raw */
			s->err = -EINVAL;
			break;
		}
	}
	if (!s->err)
		sink_put(s, p, strlen(p));
	free(doc);
	if (!c.ok && !s->err)
		s->err = -ENOMEM;
	return s->err;
}

char *cw_report_render(const cw_report *r)
{
	struct sink s = { .fd = -1 };

	if (render_to(r, &s, NULL) < 0 || !s.buf) {
		free(s.buf);
		return NULL;
	}
	s.buf[s.len] = '\0'; /* sink_put keeps a byte free in memory */
	return s.buf;
}

int cw_report_write(const cw_report *r, int fd, const struct cw_report_io *io)
{
	char buf[CW_REPORT_SPILL_BUF];
	struct sink s = { .fd = fd, .io = io, .buf = buf, .cap = sizeof(buf) };

	if (fd < 0)
		return -EBADF;
	if (!io)
		return -EINVAL;
	render_to(r, &s, NULL);
	sink_flush(&s);
	return s.err;
}

int cw_report_write_minimal(const cw_report *r, int fd, const struct cw_report_io *io,
			    const struct cw_report_minimal *min)
{
	char buf[4096];
	struct sink s = { .fd = fd, .io = io, .buf = buf, .cap = sizeof(buf) };

	if (fd < 0)
		return -EBADF;
	if (!io || !min)
		return -EINVAL;
	render_to(r, &s, min);
	sink_flush(&s);
	return s.err;
}

char *cw_report_render_minimal(const cw_report *r, const struct cw_report_minimal *min)
{
	struct sink s = { .fd = -1 };

	if (!min || render_to(r, &s, min) < 0 || !s.buf) {
		free(s.buf);
		return NULL;
	}
	s.buf[s.len] = '\0';
	return s.buf;
}
