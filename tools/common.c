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
#include "policy/profile_load.h"
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

/* ---- profiles ----
 * One loader for --profile everywhere, the supervisor's too (built-in
 * names, files, "extends" chains of files relative to the including file). */

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
