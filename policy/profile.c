/* Profile files: parsing, validation with located one-line errors and
 * inheritance. Scopes and their matching are in profile_scope.c, the
 * expansion back to JSON in profile_expand.c.
 *
 * Error messages name a line whenever the offending key or value can be
 * found in the text: cJSON keeps no positions, so a small scanner below
 * walks the original text along the JSON path of the bad node. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "policy.h"
#include "profile.h"
#include "profile_impl.h"

/* ---- small helpers ------------------------------------------------------- */

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void rule_clear(struct cw_slot_rule *r)
{
	for (int l = 0; l < CW_LIST__COUNT; l++) {
		free_list(r->scopes[l], r->nscopes[l]);
		r->scopes[l] = NULL;
		r->nscopes[l] = 0;
	}
	free(r->notes);
	r->notes = NULL;
}

void cw_profile_free(cw_profile *p)
{
	if (!p)
		return;
	for (int s = 0; s < CW_SLOT__COUNT; s++)
		rule_clear(&p->slot[s]);
	free(p->name);
	free(p->notes);
	free(p);
}

static char *xstrdup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

static char **dup_list(char *const *v, size_t n, bool *oom)
{
	if (n == 0)
		return NULL;
	char **d = calloc(n, sizeof *d);
	if (!d) {
		*oom = true;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = xstrdup_or_null(v[i], oom);
	return d;
}

/* Deep copy of everything but the name. */
static cw_profile *profile_copy(const cw_profile *src)
{
	cw_profile *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	bool oom = false;
	p->flag_sensitive = src->flag_sensitive;
	for (int s = 0; s < CW_SLOT__COUNT; s++) {
		const struct cw_slot_rule *r = &src->slot[s];
		p->slot[s].def = r->def;
		p->slot[s].notes = xstrdup_or_null(r->notes, &oom);
		for (int l = 0; l < CW_LIST__COUNT; l++) {
			p->slot[s].scopes[l] = dup_list(r->scopes[l], r->nscopes[l], &oom);
			p->slot[s].nscopes[l] = oom ? 0 : r->nscopes[l];
		}
	}
	if (oom) {
		cw_profile_free(p);
		return NULL;
	}
	return p;
}

const char *cw_profile_name(const cw_profile *p)
{
	return p ? p->name : NULL;
}

cw_verdict cw_profile_default(const cw_profile *p, int slot)
{
	if (!p || slot < 0 || slot >= CW_SLOT__COUNT)
		return CW_DENY;
	return p->slot[slot].def;
}

bool cw_profile_allows_start(const cw_profile *p)
{
	if (!p)
		return false;
	const struct cw_slot_rule *r = &p->slot[CW_CAP_PROCESS_SPAWN];
	return r->def != CW_DENY || r->nscopes[CW_LIST_ALLOW] > 0 || r->nscopes[CW_LIST_ASK] > 0;
}

bool cw_profile_flags_sensitive(const cw_profile *p)
{
	return p && p->flag_sensitive;
}

static int verdict_from_name(const char *s)
{
	for (int v = CW_ALLOW; v <= CW_ASK; v++)
		if (strcmp(s, cw_verdict_name((cw_verdict)v)) == 0)
			return v;
	return -EINVAL;
}

/* ---- locating a JSON node in the text ------------------------------------- */

struct jstep {
	const char *key; /* object member, or NULL for an array index */
	int index;       /* array index; for keys, which occurrence (duplicates) */
};

struct scan {
	const char *s;
	size_t n, i;
};

static void sc_ws(struct scan *sc)
{
	while (sc->i < sc->n && strchr(" \t\r\n", sc->s[sc->i]) && sc->s[sc->i])
		sc->i++;
}

/* At '"': moves past the closing quote. Returns the raw contents' start. */
static bool sc_string(struct scan *sc, size_t *start, size_t *len)
{
	if (sc->i >= sc->n || sc->s[sc->i] != '"')
		return false;
	*start = ++sc->i;
	while (sc->i < sc->n && sc->s[sc->i] != '"') {
		if (sc->s[sc->i] == '\\')
			sc->i++;
		sc->i++;
	}
	if (sc->i >= sc->n)
		return false;
	*len = sc->i - *start;
	sc->i++;
	return true;
}

static bool sc_value(struct scan *sc, int depth)
{
	if (depth > 1000)
		return false;
	sc_ws(sc);
	if (sc->i >= sc->n)
		return false;
	char c = sc->s[sc->i];
	size_t a, b;
	if (c == '"')
		return sc_string(sc, &a, &b);
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		sc->i++;
		sc_ws(sc);
		if (sc->i < sc->n && sc->s[sc->i] == close) {
			sc->i++;
			return true;
		}
		for (;;) {
			if (c == '{') {
				sc_ws(sc);
				if (!sc_string(sc, &a, &b))
					return false;
				sc_ws(sc);
				if (sc->i >= sc->n || sc->s[sc->i] != ':')
					return false;
				sc->i++;
			}
			if (!sc_value(sc, depth + 1))
				return false;
			sc_ws(sc);
			if (sc->i >= sc->n)
				return false;
			if (sc->s[sc->i] == ',') {
				sc->i++;
				continue;
			}
			if (sc->s[sc->i] == close) {
				sc->i++;
				return true;
			}
			return false;
		}
	}
	/* number, true, false, null */
	while (sc->i < sc->n && !strchr(",]} \t\r\n", sc->s[sc->i]) && sc->s[sc->i])
		sc->i++;
	return true;
}

/* Compare a raw JSON string body with a decoded key. Escapes other than
 * the simple ones make the comparison fail (the caller then falls back to
 * a JSON path). */
static bool raw_key_eq(const char *raw, size_t rl, const char *key)
{
	size_t k = 0;
	for (size_t i = 0; i < rl; i++, k++) {
		char c = raw[i];
		if (c == '\\' && i + 1 < rl) {
			char e = raw[++i];
			c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' :
			    e == 'b' ? '\b' : e == 'f' ? '\f' : e;
			if (e == 'u')
				return false;
		}
		if (key[k] != c)
			return false;
	}
	return key[k] == '\0';
}

/* Offset of the node at PATH (for a member: its key), or -1. */
static long locate(const char *text, size_t len, const struct jstep *path, int np)
{
	struct scan sc = { .s = text, .n = len };
	size_t at = 0;
	for (int d = 0; d < np; d++) {
		sc_ws(&sc);
		if (sc.i >= sc.n)
			return -1;
		char open = sc.s[sc.i];
		if (path[d].key ? open != '{' : open != '[')
			return -1;
		sc.i++;
		bool found = false;
		int seen = 0;
		for (int idx = 0; !found; idx++) {
			sc_ws(&sc);
			if (sc.i >= sc.n || sc.s[sc.i] == '}' || sc.s[sc.i] == ']')
				return -1;
			if (path[d].key) {
				size_t ks, kl;
				size_t kat = sc.i;
				if (!sc_string(&sc, &ks, &kl))
					return -1;
				sc_ws(&sc);
				if (sc.i >= sc.n || sc.s[sc.i] != ':')
					return -1;
				sc.i++;
				if (raw_key_eq(text + ks, kl, path[d].key) && seen++ == path[d].index) {
					at = kat;
					found = true;
					break;
				}
			} else if (idx == path[d].index) {
				sc_ws(&sc);
				at = sc.i;
				found = true;
				break;
			}
			if (!sc_value(&sc, 0))
				return -1;
			sc_ws(&sc);
			if (sc.i < sc.n && sc.s[sc.i] == ',')
				sc.i++;
		}
		if (path[d].key && d + 1 < np) {
			/* step past the key to its value */
			size_t ks, kl;
			sc.i = at;
			sc_string(&sc, &ks, &kl);
			sc_ws(&sc);
			sc.i++; /* ':' */
		}
	}
	return (long)at;
}

static int line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

/* ---- error reporting ------------------------------------------------------- */

struct pctx {
	const char *text;
	size_t len;
	const char *origin;
	char *err;
	size_t errsz;
	struct jstep path[4];
	int np;
};

/* A value for a message: quoted, control and non-ASCII bytes as \xNN,
 * shortened, so that the message stays one line. */
static void quote(char *out, size_t outsz, const char *s)
{
	size_t o = 0;
	if (outsz < 8) {
		if (outsz)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (o + 8 >= outsz) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	}
	out[o++] = '"';
	out[o] = '\0';
}

static void jpath_text(const struct pctx *pc, int np, char *out, size_t outsz)
{
	size_t o = 0;
	out[0] = '\0';
	for (int d = 0; d < np && o < outsz; d++) {
		int n;
		if (pc->path[d].key) {
			char q[128];
			quote(q, sizeof q, pc->path[d].key);
			q[strlen(q) - 1] = '\0'; /* without the quotes */
			n = snprintf(out + o, outsz - o, "%s%s", d ? "." : "", q + 1);
		}
		else
			n = snprintf(out + o, outsz - o, "[%d]", pc->path[d].index);
		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/* Report an error about the node at the current path (depth NP). */
static int fail_at(struct pctx *pc, int np, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(struct pctx *pc, int np, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	long off = np > 0 ? locate(pc->text, pc->len, pc->path, np) : 0;
	if (np == 0) {
		/* the document itself: the line of its first byte */
		struct scan sc = { .s = pc->text, .n = pc->len };
		sc_ws(&sc);
		off = (long)sc.i;
	}
	if (pc->err && pc->errsz) {
		if (off >= 0) {
			snprintf(pc->err, pc->errsz, "%s:%d: %s", pc->origin,
				 line_of(pc->text, (size_t)off), msg);
		} else {
			char jp[256];
			jpath_text(pc, np, jp, sizeof jp);
			snprintf(pc->err, pc->errsz, "%s: %s: %s", pc->origin, jp, msg);
		}
	}
	return -EINVAL;
}

/* ---- parsing ---------------------------------------------------------------- */

/* cJSON's head->prev points to the tail; walk from the parent instead. */
static int occurrence_in(const cJSON *parent, const cJSON *item)
{
	int n = 0;
	for (const cJSON *c = parent->child; c && c != item; c = c->next)
		if (c->string && strcmp(c->string, item->string) == 0)
			n++;
	return n;
}

static bool has_duplicate(const cJSON *parent, const cJSON *item)
{
	return occurrence_in(parent, item) > 0;
}

static void set_step(struct pctx *pc, int d, const char *key, int index)
{
	pc->path[d].key = key;
	pc->path[d].index = index;
}

static int parse_scopes(struct pctx *pc, int slot, const cJSON *arr, int np,
			char ***out, size_t *nout)
{
	char jp[256];
	if (!cJSON_IsArray(arr)) {
		jpath_text(pc, np, jp, sizeof jp);
		return fail_at(pc, np, "%s: expected an array of strings", jp);
	}
	int n = cJSON_GetArraySize(arr);
	char **v = n ? calloc((size_t)n, sizeof *v) : NULL;
	if (n && !v)
		return -ENOMEM;
	int i = 0;
	for (const cJSON *e = arr->child; e; e = e->next, i++) {
		set_step(pc, np, NULL, i);
		if (!cJSON_IsString(e)) {
			free_list(v, (size_t)i);
			jpath_text(pc, np + 1, jp, sizeof jp);
			return fail_at(pc, np + 1, "%s: expected a string scope", jp);
		}
		const char *why = cw_scope_invalid(slot, e->valuestring);
		if (why) {
			char q[128];
			quote(q, sizeof q, e->valuestring);
			free_list(v, (size_t)i);
			return fail_at(pc, np + 1, "bad scope %s for %s: %s", q, cw_slot_name(slot), why);
		}
		v[i] = strdup(e->valuestring);
		if (!v[i]) {
			free_list(v, (size_t)i);
			return -ENOMEM;
		}
	}
	*out = v;
	*nout = (size_t)n;
	return 0;
}

static int parse_verdict(struct pctx *pc, int np, const cJSON *v, int slot, cw_verdict *out)
{
	if (!cJSON_IsString(v))
		return fail_at(pc, np, "%s: expected \"allow\", \"deny\" or \"ask\"%s",
			       cw_slot_name(slot),
			       np == 2 ? " or an object" : "");
	int k = verdict_from_name(v->valuestring);
	if (k < 0) {
		char q[128];
		quote(q, sizeof q, v->valuestring);
		return fail_at(pc, np, "bad verdict %s for %s (allow, deny or ask)", q, cw_slot_name(slot));
	}
	*out = (cw_verdict)k;
	return 0;
}

static int parse_rule(struct pctx *pc, int slot, const cJSON *v, struct cw_slot_rule *r)
{
	/* path: capabilities.SLOT */
	if (cJSON_IsString(v))
		return parse_verdict(pc, 2, v, slot, &r->def);
	if (!cJSON_IsObject(v))
		return fail_at(pc, 2, "%s: expected \"allow\", \"deny\", \"ask\" or an object",
			       cw_slot_name(slot));
	static const char *const lists[CW_LIST__COUNT] = {
		[CW_LIST_DENY] = "deny", [CW_LIST_ASK] = "ask", [CW_LIST_ALLOW] = "allow",
	};
	for (const cJSON *m = v->child; m; m = m->next) {
		set_step(pc, 2, m->string, occurrence_in(v, m));
		if (has_duplicate(v, m)) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 3, "duplicate key %s in capabilities.%s", q, cw_slot_name(slot));
		}
		if (strcmp(m->string, "default") == 0) {
			int rc = parse_verdict(pc, 3, m, slot, &r->def);
			if (rc < 0)
				return rc;
			continue;
		}
		if (strcmp(m->string, "notes") == 0) {
			if (!cJSON_IsString(m))
				return fail_at(pc, 3, "notes: expected a string");
			free(r->notes);
			r->notes = strdup(m->valuestring);
			if (!r->notes)
				return -ENOMEM;
			continue;
		}
		int l;
		for (l = 0; l < CW_LIST__COUNT; l++)
			if (strcmp(m->string, lists[l]) == 0)
				break;
		if (l == CW_LIST__COUNT) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 3, "unknown key %s in capabilities.%s (default, deny, ask, allow, notes)",
				       q, cw_slot_name(slot));
		}
		char **sv = NULL;
		size_t n = 0;
		int rc = parse_scopes(pc, slot, m, 3, &sv, &n);
		if (rc < 0)
			return rc;
		/* a list given in the child replaces the inherited one */
		free_list(r->scopes[l], r->nscopes[l]);
		r->scopes[l] = sv;
		r->nscopes[l] = n;
	}
	return 0;
}

static bool valid_name(const char *s)
{
	return strlen(s) <= 64 && cw_scope_only_chars(s, "._-");
}

static const char *builtin_list(void)
{
	return "none, readonly, verify, repair, observe";
}

/* The text as JSON: a NUL byte or a syntax error is reported with its
 * line. On success *BUF is the text NUL-terminated (PC->text from now on)
 * and *ROOT its tree, both the caller's to free. */
static int parse_json(struct pctx *pc, char **bufp, cJSON **rootp)
{
	const char *origin = pc->origin;
	size_t len = pc->len;
	char *err = pc->err;
	size_t errsz = pc->errsz;
	if (memchr(pc->text, '\0', len)) {
		size_t at = (size_t)((const char *)memchr(pc->text, '\0', len) - pc->text);
		if (err && errsz)
			snprintf(err, errsz, "%s:%d: NUL byte in profile", origin, line_of(pc->text, at));
		return -EINVAL;
	}

	/* cJSON wants the terminating NUL inside the length to accept the end. */
	char *buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, pc->text, len);
	buf[len] = '\0';
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
	if (!root) {
		size_t at = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : len;
		if (err && errsz) {
			char near[64] = "";
			if (at < len) {
				char frag[17];
				size_t fl = len - at < 16 ? len - at : 16;
				memcpy(frag, buf + at, fl);
				frag[fl] = '\0';
				near[0] = ' ';
				memcpy(near + 1, "near ", 5);
				quote(near + 6, sizeof near - 6, frag);
			}
			snprintf(err, errsz, "%s:%d: JSON syntax error%s", origin, line_of(buf, at),
				 at >= len ? " (unexpected end of file)" : near);
		}
		free(buf);
		return -EINVAL;
	}
	pc->text = buf; /* same bytes, NUL-terminated */
	*bufp = buf;
	*rootp = root;
	return 0;
}

/* The top level: an object with known keys, each once, and the plain
 * values (name, notes, $schema, flagSensitive) of the right type. */
static int check_top(struct pctx *pc, const cJSON *root)
{
	if (!cJSON_IsObject(root))
		return fail_at(pc, 0, "a profile is a JSON object");

	/* keys first, so that an unknown or duplicate key is reported before
	 * anything it might have been meant to change */
	static const char *const top_keys[] = {
		"name", "extends", "notes", "capabilities", "flagSensitive", "$schema",
	};
	for (const cJSON *m = root->child; m; m = m->next) {
		set_step(pc, 0, m->string, occurrence_in(root, m));
		if (has_duplicate(root, m)) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 1, "duplicate key %s", q);
		}
		size_t k;
		for (k = 0; k < sizeof top_keys / sizeof top_keys[0]; k++)
			if (strcmp(m->string, top_keys[k]) == 0)
				break;
		if (k == sizeof top_keys / sizeof top_keys[0]) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 1, "unknown key %s (name, extends, notes, capabilities, flagSensitive)", q);
		}
	}

	const cJSON *jname = cJSON_GetObjectItemCaseSensitive(root, "name");
	const cJSON *jnotes = cJSON_GetObjectItemCaseSensitive(root, "notes");
	const cJSON *jflag = cJSON_GetObjectItemCaseSensitive(root, "flagSensitive");
	const cJSON *jschema = cJSON_GetObjectItemCaseSensitive(root, "$schema");

	if (!jname)
		return fail_at(pc, 0, "missing \"name\"");
	set_step(pc, 0, "name", 0);
	if (!cJSON_IsString(jname))
		return fail_at(pc, 1, "name: expected a string");
	if (!valid_name(jname->valuestring)) {
		char q[128];
		quote(q, sizeof q, jname->valuestring);
		return fail_at(pc, 1, "bad name %s (1 to 64 of A-Z a-z 0-9 . _ -)", q);
	}
	set_step(pc, 0, "notes", 0);
	if (jnotes && !cJSON_IsString(jnotes))
		return fail_at(pc, 1, "notes: expected a string");
	set_step(pc, 0, "$schema", 0);
	if (jschema && !cJSON_IsString(jschema))
		return fail_at(pc, 1, "$schema: expected a string");
	set_step(pc, 0, "flagSensitive", 0);
	if (jflag && !cJSON_IsBool(jflag))
		return fail_at(pc, 1, "flagSensitive: expected true or false");
	return 0;
}

/* The profile the file starts from: a copy of its base (a built-in or a
 * file RESOLVER loads, kept in *BASE for the caller to free), or, without
 * "extends", everything denied. */
static int start_from_base(struct pctx *pc, const cJSON *jext, cw_profile_resolver resolver,
			   void *opaque, int depth, cw_profile **base, cw_profile **out)
{
	cw_profile *p;
	if (jext) {
		set_step(pc, 0, "extends", 0);
		if (!cJSON_IsString(jext) || !*jext->valuestring)
			return fail_at(pc, 1, "extends: expected a profile name or file");
		const char *ref = jext->valuestring;
		char q[128];
		quote(q, sizeof q, ref);
		if (cw_profile_builtin(ref, base) == 0) {
			/* built in */
		} else if (!resolver) {
			return fail_at(pc, 1, "extends unknown profile %s (built-in: %s)", q, builtin_list());
		} else if (depth + 1 > CW_EXTENDS_MAX) {
			return fail_at(pc, 1, "extends %s: chain deeper than %d profiles (a loop?)",
				       q, CW_EXTENDS_MAX);
		} else {
			char sub[512] = "";
			int r = resolver(opaque, ref, depth + 1, base, sub, sizeof sub);
			if (r < 0 || !*base) {
				*base = NULL;
				return fail_at(pc, 1, "extends %s: %s", q, sub[0] ? sub : "cannot load profile");
			}
		}
		p = profile_copy(*base);
	} else {
		p = calloc(1, sizeof *p);
		if (p)
			for (int s = 0; s < CW_SLOT__COUNT; s++)
				p->slot[s].def = CW_DENY;
	}
	if (!p)
		return -ENOMEM;
	*out = p;
	return 0;
}

/* "capabilities": each slot's rule over what the base gave it. */
static int parse_capabilities(struct pctx *pc, const cJSON *jcaps, cw_profile *p)
{
	set_step(pc, 0, "capabilities", 0);
	if (!cJSON_IsObject(jcaps))
		return fail_at(pc, 1, "capabilities: expected an object");
	for (const cJSON *m = jcaps->child; m; m = m->next) {
		set_step(pc, 1, m->string, occurrence_in(jcaps, m));
		if (has_duplicate(jcaps, m)) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 2, "duplicate capability %s", q);
		}
		int slot = cw_slot_from_name(m->string);
		if (slot < 0) {
			char q[128];
			quote(q, sizeof q, m->string);
			return fail_at(pc, 2, "unknown capability %s", q);
		}
		int rc = parse_rule(pc, slot, m, &p->slot[slot]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int cw_profile_parse(const char *text, size_t len, const char *origin,
		     cw_profile_resolver resolver, void *opaque, int depth,
		     cw_profile **out, char *err, size_t errsz)
{
	if (err && errsz)
		err[0] = '\0';
	if (!out || (!text && len))
		return -EINVAL;
	*out = NULL;
	/* the origin is a file name: any bytes; keep the message one line */
	char origin_buf[512];
	quote(origin_buf, sizeof origin_buf, origin ? origin : "<profile>");
	origin_buf[strlen(origin_buf) - 1] = '\0';
	origin = origin_buf + 1;
	struct pctx pc = { .text = text ? text : "", .len = len, .origin = origin,
			   .err = err, .errsz = errsz };
	char *buf = NULL;
	cJSON *root = NULL;
	int rc = parse_json(&pc, &buf, &root);
	if (rc < 0)
		return rc;

	cw_profile *p = NULL, *base = NULL;
	rc = check_top(&pc, root);
	if (rc < 0)
		goto out;
	const cJSON *jname = cJSON_GetObjectItemCaseSensitive(root, "name");
	const cJSON *jext = cJSON_GetObjectItemCaseSensitive(root, "extends");
	const cJSON *jnotes = cJSON_GetObjectItemCaseSensitive(root, "notes");
	const cJSON *jcaps = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
	const cJSON *jflag = cJSON_GetObjectItemCaseSensitive(root, "flagSensitive");

	rc = start_from_base(&pc, jext, resolver, opaque, depth, &base, &p);
	if (rc < 0)
		goto out;
	p->name = strdup(jname->valuestring);
	if (!p->name) {
		rc = -ENOMEM;
		goto out;
	}
	if (jnotes) {
		p->notes = strdup(jnotes->valuestring);
		if (!p->notes) {
			rc = -ENOMEM;
			goto out;
		}
	}
	if (jflag)
		p->flag_sensitive = cJSON_IsTrue(jflag);

	if (jcaps) {
		rc = parse_capabilities(&pc, jcaps, p);
		if (rc < 0)
			goto out;
	}
	*out = p;
	p = NULL;
out:
	if (rc == -ENOMEM && err && errsz)
		snprintf(err, errsz, "%s: out of memory", origin);
	cw_profile_free(p);
	cw_profile_free(base);
	cJSON_Delete(root);
	free(buf);
	return rc;
}
