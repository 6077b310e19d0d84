/* Reading trace lines back (trace.h): used by replay, explain, learn, diff.
 *
 * Input is untrusted (a trace may have been edited, truncated by a crash, or
 * written by another version), so every field is type-checked and every
 * error is one line naming the line number. Byte strings are taken from
 * their "<key>_hex" sibling when present: that is the exact value, while the
 * plain string may hold U+FFFD replacements. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "trace.h"

#define CW_TRACE_LINE_MAX (1024 * 1024)

static void setmsg(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void setmsg(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

/* Quote a value from the file in a message without letting it carry control
 * characters or invalid bytes onto the user's terminal. */
static void quote(const char *s, char *out, size_t outsz)
{
	size_t o = 0;

	for (; s && *s && o + 5 < outsz; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outsz - o, "\\x%02x", c);
	}
	if (s && *s && o + 4 <= outsz) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static const char *const known_types[] = {
	"header", "op", "spawn", "exec", "exit", "note", "summary", NULL
};

cJSON *cw_trace_parse_line(const char *line, size_t len, unsigned long lineno, char *err, size_t errsz)
{
	const char *end = NULL;
	const cJSON *type, *schema;
	cJSON *ev;
	char q[96];
	size_t i;

	if (len > CW_TRACE_LINE_MAX) {
		setmsg(err, errsz, "line %lu: longer than %d bytes", lineno, CW_TRACE_LINE_MAX);
		return NULL;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (!len) {
		setmsg(err, errsz, "line %lu: empty line", lineno);
		return NULL;
	}
	ev = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (!ev) {
		setmsg(err, errsz, "line %lu: not valid JSON (truncated or corrupt)", lineno);
		return NULL;
	}
	for (; end && end < line + len; end++) {
		if (*end != ' ' && *end != '\t') {
			setmsg(err, errsz, "line %lu: not valid JSON (text after the object)", lineno);
			goto bad;
		}
	}
	if (!cJSON_IsObject(ev)) {
		setmsg(err, errsz, "line %lu: not a JSON object", lineno);
		goto bad;
	}
	type = cJSON_GetObjectItemCaseSensitive(ev, "type");
	if (!cJSON_IsString(type) || !type->valuestring) {
		setmsg(err, errsz, "line %lu: missing \"type\"", lineno);
		goto bad;
	}
	for (i = 0; known_types[i]; i++)
		if (!strcmp(type->valuestring, known_types[i]))
			break;
	if (!known_types[i]) {
		quote(type->valuestring, q, sizeof(q));
		setmsg(err, errsz, "line %lu: unknown event type \"%s\"", lineno, q);
		goto bad;
	}
	if (i == 0) {
		unsigned long v;
		int n = 0;

		schema = cJSON_GetObjectItemCaseSensitive(ev, "schema");
		if (!cJSON_IsString(schema) || !schema->valuestring) {
			setmsg(err, errsz, "line %lu: header without \"schema\"", lineno);
			goto bad;
		}
		if (strcmp(schema->valuestring, CW_TRACE_SCHEMA)) {
			quote(schema->valuestring, q, sizeof(q));
			if (sscanf(schema->valuestring, "capwatch.trace/v%lu%n", &v, &n) == 1 &&
			    schema->valuestring[n] == '\0' && v > 1)
				setmsg(err, errsz, "line %lu: schema \"%s\" is newer than this capwatch understands",
				       lineno, q);
			else
				setmsg(err, errsz, "line %lu: unknown schema \"%s\" (expected \"%s\")",
				       lineno, q, CW_TRACE_SCHEMA);
			goto bad;
		}
	}
	return ev;
bad:
	cJSON_Delete(ev);
	return NULL;
}

/* ---- field access ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode a hex string into a malloc'd C string. A NUL byte cannot be part
 * of a path or argument the kernel saw, so it is an error here. */
static int unhex(const char *hex, char **out)
{
	size_t n = strlen(hex), i;
	char *s;

	*out = NULL;
	if (n % 2)
		return -EINVAL;
	s = malloc(n / 2 + 1);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(s);
			return -EINVAL;
		}
		s[i] = (char)(hi << 4 | lo);
	}
	s[n / 2] = '\0';
	*out = s;
	return 0;
}

/* The byte string stored under KEY: decoded from KEY_hex when present (then
 * *ALLOC receives the malloc'd copy), else the plain string. Returns 0 with
 * *OUT NULL when the key is absent or null, -EINVAL when malformed. */
static int get_bytes(const cJSON *obj, const char *key, const char **out, char **alloc,
		     char *err, size_t errsz)
{
	char hk[64];
	const cJSON *v, *h;
	int r;

	*out = NULL;
	*alloc = NULL;
	snprintf(hk, sizeof(hk), "%s_hex", key);
	h = cJSON_GetObjectItemCaseSensitive(obj, hk);
	if (h && !cJSON_IsNull(h)) {
		if (!cJSON_IsString(h) || !h->valuestring) {
			setmsg(err, errsz, "\"%s\" is not a string", hk);
			return -EINVAL;
		}
		r = unhex(h->valuestring, alloc);
		if (r < 0) {
			setmsg(err, errsz, r == -ENOMEM ? "out of memory" :
			       "\"%s\" is not a hex string of non-NUL bytes", hk);
			return r;
		}
		*out = *alloc;
		return 0;
	}
	v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring) {
		setmsg(err, errsz, "\"%s\" is not a string", key);
		return -EINVAL;
	}
	*out = v->valuestring;
	return 0;
}

static bool is_net_op(cw_op_kind k)
{
	return k == CW_OP_CONNECT || k == CW_OP_SEND || k == CW_OP_BIND || k == CW_OP_LISTEN;
}

/* cw_addr_format writes "family:N" for families it has no text for; keep
 * the family so the decision sees the same class of address. */
static int parse_addr(const char *text, struct sockaddr_storage *ss, size_t *len)
{
	unsigned fam;
	int n = 0;

	if (cw_addr_parse(text, ss, len) == 0)
		return 0;
	if (sscanf(text, "family:%u%n", &fam, &n) == 1 && text[n] == '\0' && fam <= 0xffff) {
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = (sa_family_t)fam;
		*len = sizeof(sa_family_t);
		return 0;
	}
	return -EINVAL;
}

/* The event's type, operation and system call, and that "args", when
 * present, is an object (*ARGS). Nothing is allocated yet. */
static int op_head(const cJSON *ev, struct cw_op *op, const cJSON **argsp, char *err, size_t errsz)
{
	const cJSON *t, *args, *v;
	int k;

	t = cJSON_GetObjectItemCaseSensitive(ev, "type");
	if (!cJSON_IsString(t) || strcmp(t->valuestring, "op")) {
		setmsg(err, errsz, "not an \"op\" event");
		return -EINVAL;
	}
	v = cJSON_GetObjectItemCaseSensitive(ev, "op");
	if (!cJSON_IsString(v) || !v->valuestring) {
		setmsg(err, errsz, "missing \"op\"");
		return -EINVAL;
	}
	k = cw_op_from_name(v->valuestring);
	if (k < 0) {
		char q[64];

		quote(v->valuestring, q, sizeof(q));
		setmsg(err, errsz, "unknown operation \"%s\"", q);
		return -EINVAL;
	}
	op->kind = (cw_op_kind)k;
	v = cJSON_GetObjectItemCaseSensitive(ev, "syscall");
	if (!cJSON_IsString(v) || !v->valuestring) {
		setmsg(err, errsz, "missing \"syscall\"");
		return -EINVAL;
	}
	op->syscall = v->valuestring;

	args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	if (args && !cJSON_IsObject(args)) {
		setmsg(err, errsz, "\"args\" is not an object");
		return -EINVAL;
	}
	*argsp = args;
	return 0;
}

/* What the operation was decided on: "resolved" (a path, or a network
 * operation's address) and "resolved2". Copies it needs go to ST; on
 * failure the caller frees ST. */
static int op_resolved(const cJSON *ev, const cJSON *args, struct cw_op *op, struct cw_op_storage *st,
		       char *err, size_t errsz)
{
	const char *s, *addrtext = NULL;
	char *tmp = NULL, *addr_alloc = NULL;
	int r;

	r = get_bytes(ev, "resolved", &s, &tmp, err, errsz);
	if (r < 0)
		goto fail;
	if (is_net_op(op->kind)) {
		/* the address; args.addr is the same text and wins when present */
		if (args) {
			r = get_bytes(args, "addr", &addrtext, &addr_alloc, err, errsz);
			if (r < 0)
				goto fail;
		}
		if (!addrtext && s && s[0] == '/') {
			/* no address recorded: the operation was decided on a path */
			op->path = s;
			st->path = tmp;
			tmp = NULL;
		} else if (!addrtext)
			addrtext = s;
		if (addrtext) {
			r = parse_addr(addrtext, &st->addr, &op->addrlen);
			if (r < 0) {
				char q[96];

				quote(addrtext, q, sizeof(q));
				setmsg(err, errsz, "cannot parse address \"%s\"", q);
				goto fail;
			}
			op->addr = (const struct sockaddr *)&st->addr;
		}
		free(tmp);
		tmp = NULL;
		free(addr_alloc);
		addr_alloc = NULL;
	} else {
		op->path = s;
		st->path = tmp; /* owned by ST from here */
		tmp = NULL;
	}
	return get_bytes(ev, "resolved2", &op->path2, &st->path2, err, errsz);
fail:
	free(tmp);
	free(addr_alloc);
	return r;
}

/* The rest: host, target process, variable names, flags. */
static int op_details(const cJSON *ev, struct cw_op *op, char *err, size_t errsz)
{
	const cJSON *v;

	v = cJSON_GetObjectItemCaseSensitive(ev, "host");
	if (cJSON_IsString(v))
		op->host = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(ev, "target_pid");
	if (v) {
		if (!cJSON_IsNumber(v) || v->valuedouble < -2147483648.0 || v->valuedouble > 2147483647.0) {
			setmsg(err, errsz, "\"target_pid\" is not a pid");
			return -EINVAL;
		}
		op->target_pid = (int)v->valuedouble;
	}
	v = cJSON_GetObjectItemCaseSensitive(ev, "target_in_tree");
	if (v) {
		if (!cJSON_IsBool(v)) {
			setmsg(err, errsz, "\"target_in_tree\" is not a boolean");
			return -EINVAL;
		}
		op->target_in_tree = cJSON_IsTrue(v);
	}
	v = cJSON_GetObjectItemCaseSensitive(ev, "env_names");
	if (cJSON_IsString(v))
		op->env_names = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(ev, "alias");
	if (cJSON_IsString(v))
		op->alias = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(ev, "secretSrc");
	if (cJSON_IsString(v))
		op->secret_src = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(ev, "secretDst");
	if (cJSON_IsString(v))
		op->secret_dst = v->valuestring;
	v = cJSON_GetObjectItemCaseSensitive(ev, "exchange");
	op->exchange = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(ev, "keyFree");
	op->key_free = cJSON_IsTrue(v);
	v = cJSON_GetObjectItemCaseSensitive(ev, "netlinkRouteRead");
	op->netlink_route_unprivileged = cJSON_IsTrue(v);
	return 0;
}

int cw_trace_event_to_op(const cJSON *ev, struct cw_op *op, struct cw_op_storage *st, char *err, size_t errsz)
{
	const cJSON *args = NULL;
	int r;

	memset(op, 0, sizeof(*op));
	memset(st, 0, sizeof(*st));
	r = op_head(ev, op, &args, err, errsz);
	if (r < 0)
		return r; /* nothing to free yet */
	r = op_resolved(ev, args, op, st, err, errsz);
	if (r == 0)
		r = op_details(ev, op, err, errsz);
	if (r < 0) {
		cw_op_storage_free(st);
		memset(op, 0, sizeof(*op));
	}
	return r;
}

void cw_op_storage_free(struct cw_op_storage *st)
{
	if (!st)
		return;
	free(st->path);
	free(st->path2);
	st->path = st->path2 = NULL;
}

/* ---- header -> context ----
 * One allocation holds the roots pointer array, the protected-files pointer
 * array and the bytes of every string that had to be decoded from hex, so
 * cw_trace_context_free releases everything with one free() of ctx->roots. */

struct strarr {
	const cJSON *arr, *hex;
	size_t n;
};

static int check_arr(const cJSON *hdr, const char *key, bool required, struct strarr *a,
		     size_t *bytes, char *err, size_t errsz)
{
	char hk[64];
	const cJSON *it;
	size_t i = 0;

	memset(a, 0, sizeof(*a));
	a->arr = cJSON_GetObjectItemCaseSensitive(hdr, key);
	if (!a->arr || cJSON_IsNull(a->arr)) {
		a->arr = NULL;
		if (required) {
			setmsg(err, errsz, "header: missing \"%s\"", key);
			return -EINVAL;
		}
		return 0;
	}
	if (!cJSON_IsArray(a->arr)) {
		setmsg(err, errsz, "header: \"%s\" is not an array", key);
		return -EINVAL;
	}
	a->n = (size_t)cJSON_GetArraySize(a->arr);
	snprintf(hk, sizeof(hk), "%s_hex", key);
	a->hex = cJSON_GetObjectItemCaseSensitive(hdr, hk);
	if (a->hex && (!cJSON_IsArray(a->hex) || (size_t)cJSON_GetArraySize(a->hex) != a->n)) {
		setmsg(err, errsz, "header: \"%s\" does not match \"%s\"", hk, key);
		return -EINVAL;
	}
	cJSON_ArrayForEach(it, a->arr) {
		const cJSON *h = a->hex ? cJSON_GetArrayItem(a->hex, (int)i) : NULL;

		if (!cJSON_IsString(it)) {
			setmsg(err, errsz, "header: %s[%zu] is not a string", key, i);
			return -EINVAL;
		}
		if (h && !cJSON_IsNull(h)) {
			if (!cJSON_IsString(h) || strlen(h->valuestring) % 2) {
				setmsg(err, errsz, "header: %s[%zu] is not a hex string", hk, i);
				return -EINVAL;
			}
			*bytes += strlen(h->valuestring) / 2 + 1;
		}
		i++;
	}
	return 0;
}

static int decode_into(const char *hex, char **pool, const char **out)
{
	size_t n = strlen(hex), i;
	char *s = *pool;

	for (i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		s[i] = (char)(hi << 4 | lo);
	}
	s[n / 2] = '\0';
	*pool += n / 2 + 1;
	*out = s;
	return 0;
}

static int fill_arr(const struct strarr *a, const char **dst, char **pool, const char *key,
		    char *err, size_t errsz)
{
	const cJSON *it;
	size_t i = 0;

	cJSON_ArrayForEach(it, a->arr) {
		const cJSON *h = a->hex ? cJSON_GetArrayItem(a->hex, (int)i) : NULL;

		if (h && !cJSON_IsNull(h)) {
			if (decode_into(h->valuestring, pool, &dst[i]) < 0) {
				setmsg(err, errsz, "header: %s_hex[%zu] is not a hex string of non-NUL bytes",
				       key, i);
				return -EINVAL;
			}
		} else
			dst[i] = it->valuestring;
		i++;
	}
	return 0;
}

/* "scratch"/"home": string, null or absent; hex sibling measured/decoded */
static int check_str(const cJSON *hdr, const char *key, const cJSON **val, const cJSON **hex,
		     size_t *bytes, char *err, size_t errsz)
{
	char hk[64];

	snprintf(hk, sizeof(hk), "%s_hex", key);
	*val = cJSON_GetObjectItemCaseSensitive(hdr, key);
	*hex = cJSON_GetObjectItemCaseSensitive(hdr, hk);
	if (*val && !cJSON_IsNull(*val) && !cJSON_IsString(*val)) {
		setmsg(err, errsz, "header: \"%s\" is not a string", key);
		return -EINVAL;
	}
	if (*hex && !cJSON_IsNull(*hex)) {
		if (!cJSON_IsString(*hex) || strlen((*hex)->valuestring) % 2) {
			setmsg(err, errsz, "header: \"%s\" is not a hex string", hk);
			return -EINVAL;
		}
		*bytes += strlen((*hex)->valuestring) / 2 + 1;
	} else
		*hex = NULL;
	return 0;
}

static int fill_str(const cJSON *val, const cJSON *hex, char **pool, const char **out,
		    const char *key, char *err, size_t errsz)
{
	*out = NULL;
	if (hex) {
		if (decode_into(hex->valuestring, pool, out) < 0) {
			setmsg(err, errsz, "header: \"%s_hex\" is not a hex string of non-NUL bytes", key);
			return -EINVAL;
		}
	} else if (cJSON_IsString(val))
		*out = val->valuestring;
	return 0;
}

int cw_trace_header_to_context(const cJSON *hdr, struct cw_context *ctx, char *err, size_t errsz)
{
	struct strarr roots, prot;
	const cJSON *t, *sv, *sh, *hv, *hh;
	size_t bytes = 0, ptrs;
	const char **block;
	char *pool;
	int r;

	memset(ctx, 0, sizeof(*ctx));
	t = cJSON_GetObjectItemCaseSensitive(hdr, "type");
	if (!cJSON_IsString(t) || strcmp(t->valuestring, "header")) {
		setmsg(err, errsz, "not a header line");
		return -EINVAL;
	}
	if ((r = check_arr(hdr, "roots", true, &roots, &bytes, err, errsz)) < 0 ||
	    (r = check_arr(hdr, "protected", false, &prot, &bytes, err, errsz)) < 0 ||
	    (r = check_str(hdr, "scratch", &sv, &sh, &bytes, err, errsz)) < 0 ||
	    (r = check_str(hdr, "home", &hv, &hh, &bytes, err, errsz)) < 0)
		return r;

	ptrs = roots.n + prot.n;
	block = malloc(ptrs * sizeof(*block) + bytes + 1);
	if (!block) {
		setmsg(err, errsz, "out of memory");
		return -ENOMEM;
	}
	pool = (char *)(block + ptrs);
	ctx->roots = block;
	ctx->nroots = roots.n;
	ctx->protected_files = block + roots.n;
	ctx->nprotected = prot.n;
	if ((r = fill_arr(&roots, block, &pool, "roots", err, errsz)) < 0 ||
	    (prot.arr && (r = fill_arr(&prot, block + roots.n, &pool, "protected", err, errsz)) < 0) ||
	    (r = fill_str(sv, sh, &pool, &ctx->scratch, "scratch", err, errsz)) < 0 ||
	    (r = fill_str(hv, hh, &pool, &ctx->home, "home", err, errsz)) < 0) {
		cw_trace_context_free(ctx);
		return r;
	}
	return 0;
}

void cw_trace_context_free(struct cw_context *ctx)
{
	if (!ctx)
		return;
	free((void *)ctx->roots);
	ctx->roots = NULL;
	ctx->protected_files = NULL;
	ctx->nroots = ctx->nprotected = 0;
	ctx->scratch = ctx->home = NULL;
}
