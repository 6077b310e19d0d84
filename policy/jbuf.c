/* Streaming JSON writer (see jbuf.h).
 *
 * This is on the supervisor's hot path: every notified syscall is written
 * through here. The buffer grows geometrically and is reused after
 * cw_jbuf_reset(), so a warm writer never allocates. Each string reserves
 * its worst case per 4 KiB chunk (6 output bytes per input byte) instead
 * of checking per byte.
 *
 * Escaping follows kernel-notes E59/E60: the output is one line of valid
 * UTF-8 JSON whatever bytes the target put in a path or argv, and nothing a
 * terminal would interpret survives raw (C0, DEL, C1, U+2028/U+2029 and the
 * bidi overrides are written as \u escapes, which keep the text lossless). */
#include <errno.h>
#include <limits.h>
#include <math.h> /* isfinite: a macro, no libm */
#include <stdlib.h>
#include <string.h>

#include "jbuf.h"

#define JBUF_MIN_CAP 4096

static const char hexdig[] = "0123456789abcdef";

void cw_jbuf_init(struct cw_jbuf *j)
{
	memset(j, 0, sizeof(*j));
}

void cw_jbuf_reset(struct cw_jbuf *j)
{
	j->len = 0;
	j->oom = false;
	j->depth = 0;
	memset(j->need_comma, 0, sizeof(j->need_comma));
	if (j->buf)
		j->buf[0] = '\0';
}

void cw_jbuf_free(struct cw_jbuf *j)
{
	free(j->buf);
	cw_jbuf_init(j);
}

/* Make room for N more bytes plus the terminating NUL. False (and the sticky
 * oom flag) when that is impossible; the caller then writes nothing. */
static bool reserve(struct cw_jbuf *j, size_t n)
{
	size_t need, ncap;
	char *nb;

	if (j->oom)
		return false;
	if (n > SIZE_MAX - j->len - 1)
		goto fail;
	need = j->len + n + 1;
	if (need <= j->cap)
		return true;
	ncap = j->cap ? j->cap : JBUF_MIN_CAP;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			ncap = need;
			break;
		}
		ncap *= 2;
	}
	nb = realloc(j->buf, ncap);
	if (!nb)
		goto fail;
	j->buf = nb;
	j->cap = ncap;
	return true;
fail:
	j->oom = true;
	return false;
}

/* Raw append; callers have reserved. */
static inline void put(struct cw_jbuf *j, const char *s, size_t n)
{
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static inline void putc_(struct cw_jbuf *j, char c)
{
	j->buf[j->len++] = c;
}

static inline void term(struct cw_jbuf *j)
{
	if (j->buf)
		j->buf[j->len] = '\0';
}

static inline int slot(const struct cw_jbuf *j)
{
	if (j->depth < 0)
		return 0;
	return j->depth < CW_JBUF_DEPTH ? j->depth : CW_JBUF_DEPTH - 1;
}

/* Before any value or key: the separating comma of the current container. */
static bool value_prefix(struct cw_jbuf *j, size_t extra)
{
	if (!reserve(j, extra + 1))
		return false;
	if (j->need_comma[slot(j)])
		putc_(j, ',');
	return true;
}

static inline void value_done(struct cw_jbuf *j)
{
	j->need_comma[slot(j)] = true;
	term(j);
}

/* ---- UTF-8 ---- */

/* Length (2..4) of the well-formed multi-byte sequence at S (first byte
 * >= 0x80), or 0 when the first byte does not start one. Follows the
 * Unicode table of well-formed sequences, so overlongs (C0, C1, E0 80..9F,
 * F0 80..8F), surrogates (ED A0..BF) and code points above U+10FFFF
 * (F4 90.., F5..FF) are all rejected, as are truncated sequences. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

bool cw_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, l;

	if (!s)
		return n == 0;
	while (i < n) {
		if (p[i] < 0x80) {
			if (p[i] == 0)
				return false;
			i++;
			continue;
		}
		l = utf8_seq(p + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

char *cw_utf8_sanitize(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, l;
	char *out;

	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	out = malloc(3 * n + 1);
	if (!out)
		return NULL;
	while (i < n) {
		if (p[i] != 0 && p[i] < 0x80) {
			out[o++] = (char)p[i++];
			continue;
		}
		l = p[i] ? utf8_seq(p + i, n - i) : 0;
		if (!l) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, p + i, l);
		o += l;
		i += l;
	}
	out[o] = '\0';
	return out;
}

/* Code points written as \u escapes although they are valid: C1 controls,
 * line/paragraph separators, and the bidi controls that reorder what a
 * person sees (E59: U+202E). */
static bool escape_cp(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static inline void put_u4(struct cw_jbuf *j, unsigned cp)
{
	char e[6] = { '\\', 'u', hexdig[(cp >> 12) & 15], hexdig[(cp >> 8) & 15],
		      hexdig[(cp >> 4) & 15], hexdig[cp & 15] };
	put(j, e, 6);
}

/* Write S[0..n) as a quoted JSON string. Returns false on oom. */
/* Input is escaped in chunks, each reserving its worst case (6 output bytes
 * per input byte, plus slack for a sequence straddling the chunk end), so a
 * huge argv does not make the buffer six times its size. */
#define ESC_CHUNK 4096

static bool put_string(struct cw_jbuf *j, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, l, run, lim;
	unsigned cp;

	if (!reserve(j, 1))
		return false;
	putc_(j, '"');
	while (i < n) {
		lim = n - i > ESC_CHUNK ? i + ESC_CHUNK : n;
		if (!reserve(j, 6 * (lim - i) + 16))
			return false;
		while (i < lim) {
			/* copy runs of plain ASCII in one go */
			run = i;
			while (run < lim && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' && p[run] != '\\')
				run++;
			if (run > i) {
				put(j, s + i, run - i);
				i = run;
				if (i == lim)
					break;
			}
			if (p[i] < 0x80) {
				switch (p[i]) {
				case '"': put(j, "\\\"", 2); break;
				case '\\': put(j, "\\\\", 2); break;
				case '\n': put(j, "\\n", 2); break;
				case '\t': put(j, "\\t", 2); break;
				case '\r': put(j, "\\r", 2); break;
				default: put_u4(j, p[i]); break; /* other C0, NUL, DEL */
				}
				i++;
				continue;
			}
			/* may read past LIM (never past N): at most 3 more input
			 * bytes for at most 6 output bytes, inside the slack */
			l = utf8_seq(p + i, n - i);
			if (!l) {
				put(j, "\xef\xbf\xbd", 3); /* U+FFFD for this one byte */
				i++;
				continue;
			}
			if (l == 2)
				cp = ((p[i] & 0x1fu) << 6) | (p[i + 1] & 0x3fu);
			else if (l == 3)
				cp = ((p[i] & 0x0fu) << 12) | ((p[i + 1] & 0x3fu) << 6) | (p[i + 2] & 0x3fu);
			else
				cp = 0x10000; /* no escaped code point lies above the BMP */
			if (escape_cp(cp))
				put_u4(j, cp);
			else
				put(j, s + i, l);
			i += l;
		}
	}
	if (!reserve(j, 1))
		return false;
	putc_(j, '"');
	return true;
}

static void put_key(struct cw_jbuf *j, const char *key, const char *suffix)
{
	size_t kl = key ? strlen(key) : 0, sl = suffix ? strlen(suffix) : 0;

	if (!value_prefix(j, 0))
		return;
	if (!sl) {
		if (!put_string(j, key ? key : "", kl))
			return;
	} else {
		/* keys are ours (ASCII identifiers); escape anyway, then splice */
		if (!put_string(j, key ? key : "", kl))
			return;
		j->len--; /* drop the closing quote */
		if (!reserve(j, sl + 1))
			return;
		put(j, suffix, sl);
		putc_(j, '"');
	}
	if (!reserve(j, 1))
		return;
	putc_(j, ':');
	/* the value that follows takes no comma */
	j->need_comma[slot(j)] = false;
	term(j);
}

void cw_jbuf_key(struct cw_jbuf *j, const char *key)
{
	put_key(j, key, NULL);
}

/* ---- containers ---- */

static void open_(struct cw_jbuf *j, char c)
{
	if (!value_prefix(j, 1))
		return;
	putc_(j, c);
	j->need_comma[slot(j)] = true; /* for the container we are in */
	j->depth++;
	if (j->depth >= CW_JBUF_DEPTH)
		j->oom = true; /* deeper than we can track commas for */
	j->need_comma[slot(j)] = false;
	term(j);
}

static void close_(struct cw_jbuf *j, char c)
{
	if (!reserve(j, 1))
		return;
	putc_(j, c);
	if (j->depth > 0)
		j->depth--;
	value_done(j);
}

void cw_jbuf_obj_begin(struct cw_jbuf *j) { open_(j, '{'); }
void cw_jbuf_obj_end(struct cw_jbuf *j) { close_(j, '}'); }
void cw_jbuf_arr_begin(struct cw_jbuf *j) { open_(j, '['); }
void cw_jbuf_arr_end(struct cw_jbuf *j) { close_(j, ']'); }

/* ---- scalars ---- */

void cw_jbuf_strn(struct cw_jbuf *j, const char *s, size_t n)
{
	if (!s) {
		cw_jbuf_null(j);
		return;
	}
	if (!value_prefix(j, 0))
		return;
	if (!put_string(j, s, n))
		return;
	value_done(j);
}

void cw_jbuf_str(struct cw_jbuf *j, const char *s)
{
	cw_jbuf_strn(j, s, s ? strlen(s) : 0);
}

static void put_raw_value(struct cw_jbuf *j, const char *s, size_t n)
{
	if (!value_prefix(j, n))
		return;
	put(j, s, n);
	value_done(j);
}

/* Digits of V right-aligned in BUF[0..24); returns the start. */
static char *utoa_(unsigned long long v, char *end)
{
	*--end = '\0';
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void cw_jbuf_uint(struct cw_jbuf *j, unsigned long long v)
{
	char b[24], *p = utoa_(v, b + sizeof(b));

	put_raw_value(j, p, strlen(p));
}

void cw_jbuf_int(struct cw_jbuf *j, long long v)
{
	char b[24], *p;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	p = utoa_(u, b + sizeof(b));
	if (v < 0)
		*--p = '-';
	put_raw_value(j, p, strlen(p));
}

/* Fixed six decimals without printf: printf's %f follows LC_NUMERIC, and a
 * decimal comma would make the line invalid JSON. */
void cw_jbuf_double(struct cw_jbuf *j, double v)
{
	char b[48], *p;
	unsigned long long ip, fr, scaled;
	bool neg = v < 0;
	int k;

	if (!isfinite(v) || v >= 1.8e19 || v <= -1.8e19) {
		cw_jbuf_null(j); /* not representable as a JSON number we write */
		return;
	}
	if (v >= 9.0e12 || v <= -9.0e12) {
		/* beyond microsecond precision of a double: integral anyway */
		ip = (unsigned long long)(neg ? -v : v);
		fr = 0;
		scaled = 1;
	} else {
		scaled = (unsigned long long)((neg ? -v : v) * 1e6 + 0.5);
		ip = scaled / 1000000;
		fr = scaled % 1000000;
	}
	p = b + sizeof(b);
	*--p = '\0';
	for (k = 0; k < 6; k++) {
		*--p = (char)('0' + fr % 10);
		fr /= 10;
	}
	*--p = '.';
	do {
		*--p = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg && scaled)
		*--p = '-';
	put_raw_value(j, p, strlen(p));
}

void cw_jbuf_bool(struct cw_jbuf *j, bool v)
{
	put_raw_value(j, v ? "true" : "false", v ? 4 : 5);
}

void cw_jbuf_null(struct cw_jbuf *j)
{
	put_raw_value(j, "null", 4);
}

/* ---- key + value ---- */

void cw_jbuf_kv_str(struct cw_jbuf *j, const char *key, const char *s)
{
	cw_jbuf_key(j, key);
	cw_jbuf_str(j, s);
}

void cw_jbuf_kv_int(struct cw_jbuf *j, const char *key, long long v)
{
	cw_jbuf_key(j, key);
	cw_jbuf_int(j, v);
}

void cw_jbuf_kv_bool(struct cw_jbuf *j, const char *key, bool v)
{
	cw_jbuf_key(j, key);
	cw_jbuf_bool(j, v);
}

void cw_jbuf_hex(struct cw_jbuf *j, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (n > (SIZE_MAX - 2) / 2) {
		j->oom = true;
		return;
	}
	if (!value_prefix(j, 2 * n + 2))
		return;
	putc_(j, '"');
	for (i = 0; i < n; i++) {
		putc_(j, hexdig[p[i] >> 4]);
		putc_(j, hexdig[p[i] & 15]);
	}
	putc_(j, '"');
	value_done(j);
}

void cw_jbuf_kv_bytes(struct cw_jbuf *j, const char *key, const char *s, size_t n)
{
	cw_jbuf_key(j, key);
	cw_jbuf_strn(j, s, n);
	if (s && !cw_utf8_valid(s, n)) {
		put_key(j, key, "_hex");
		cw_jbuf_hex(j, s, n);
	}
}

void cw_jbuf_arr_bytes(struct cw_jbuf *j, const char *key, const char *const *v, size_t n)
{
	size_t i;
	bool lossy = false;

	cw_jbuf_key(j, key);
	cw_jbuf_arr_begin(j);
	for (i = 0; i < n; i++) {
		size_t l = v[i] ? strlen(v[i]) : 0;

		cw_jbuf_strn(j, v[i], l);
		if (v[i] && !cw_utf8_valid(v[i], l))
			lossy = true;
	}
	cw_jbuf_arr_end(j);
	if (!lossy)
		return;
	put_key(j, key, "_hex");
	cw_jbuf_arr_begin(j);
	for (i = 0; i < n; i++) {
		size_t l = v[i] ? strlen(v[i]) : 0;

		if (v[i] && !cw_utf8_valid(v[i], l))
			cw_jbuf_hex(j, v[i], l);
		else
			cw_jbuf_null(j);
	}
	cw_jbuf_arr_end(j);
}
