/* Unit tests of capwatch's JSON layer: the jbuf escaper, the trace writers
 * and reader, and the report. Every check that output is "valid" parses it
 * back with cJSON (an independent parser) and compares decoded values. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "jbuf.h"
#include "trace.h"
#include "report.h"
#include "hmap.h"

/* ---- helpers ---- */

/* The JSON text cw_jbuf_strn produces for S[0..n), malloc'd. */
static char *esc(const char *s, size_t n)
{
	struct cw_jbuf j;
	char *out;

	cw_jbuf_init(&j);
	cw_jbuf_strn(&j, s, n);
	assert_false(j.oom);
	out = strdup(j.buf);
	cw_jbuf_free(&j);
	return out;
}

/* Decode a JSON string literal with cJSON. */
static char *decode(const char *json)
{
	cJSON *v = cJSON_Parse(json);
	char *s;

	assert_non_null(v);
	assert_true(cJSON_IsString(v));
	s = strdup(v->valuestring);
	cJSON_Delete(v);
	return s;
}

static void check_line_clean(const char *line, size_t len)
{
	size_t i;

	assert_int_equal(strlen(line), len);
	for (i = 0; i < len; i++)
		assert_true((unsigned char)line[i] >= 0x20);
	assert_true(cw_utf8_valid(line, len));
}

static void tohex(const char *s, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", (unsigned char)s[i]);
	out[2 * n] = '\0';
}

/* ---- jbuf: escaping ---- */

static void test_control_chars(void **state)
{
	int c;

	for (c = 0; c < 0x20; c++) {
		char in[3] = { 'a', (char)c, 'b' }, want[16], *got, *back;

		if (c == '\n')
			strcpy(want, "\"a\\nb\"");
		else if (c == '\t')
			strcpy(want, "\"a\\tb\"");
		else if (c == '\r')
			strcpy(want, "\"a\\rb\"");
		else
			snprintf(want, sizeof(want), "\"a\\u%04xb\"", c);
		got = esc(in, 3);
		assert_string_equal(got, want);
		if (c) { /* cJSON's strings stop at a decoded NUL */
			back = decode(got);
			assert_memory_equal(back, in, 3);
			assert_int_equal(strlen(back), 3);
			free(back);
		}
		free(got);
	}
}

static void test_quotes_backslash_del(void **state)
{
	char *got = esc("a\"b\\c\x7f" "d/", 8), *back;

	assert_string_equal(got, "\"a\\\"b\\\\c\\u007fd/\"");
	back = decode(got);
	assert_string_equal(back, "a\"b\\c\x7f" "d/");
	free(back);
	free(got);
}

static void test_separators_and_c1(void **state)
{
	/* U+2028, U+2029, U+0085 (NEL, a C1 control), U+202E (RLO) */
	const char in[] = "x\xe2\x80\xa8y\xe2\x80\xa9z\xc2\x85w\xe2\x80\xaev";
	char *got = esc(in, strlen(in)), *back;

	assert_string_equal(got, "\"x\\u2028y\\u2029z\\u0085w\\u202ev\"");
	back = decode(got);
	assert_string_equal(back, in); /* lossless */
	free(back);
	free(got);
}

static void test_valid_multibyte_kept(void **state)
{
	/* é (2 bytes), € (3), U+1D11E (4), U+FFFD itself, U+10FFFF */
	const char in[] = "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\xef\xbf\xbd\xf4\x8f\xbf\xbf";
	char *got = esc(in, strlen(in)), want[64];

	snprintf(want, sizeof(want), "\"%s\"", in);
	assert_string_equal(got, want);
	assert_true(cw_utf8_valid(in, strlen(in)));
	free(got);
}

struct bad_utf8 {
	const char *what;
	const char *bytes;
	size_t n;
};

static const struct bad_utf8 bad_rows[] = {
	{ "lone continuation", "\x80", 1 },
	{ "0xff", "\xff", 1 },
	{ "0xfe", "\xfe", 1 },
	{ "overlong 2-byte slash", "\xc0\xaf", 2 },
	{ "overlong 2-byte C1", "\xc1\xbf", 2 },
	{ "overlong 3-byte", "\xe0\x80\xaf", 3 },
	{ "overlong 4-byte", "\xf0\x80\x80\xaf", 4 },
	{ "surrogate D800", "\xed\xa0\x80", 3 },
	{ "surrogate DFFF", "\xed\xbf\xbf", 3 },
	{ "above U+10FFFF", "\xf4\x90\x80\x80", 4 },
	{ "F5 lead", "\xf5\x80\x80\x80", 4 },
	{ "truncated 3-byte at end", "\xe2\x82", 2 },
	{ "truncated 4-byte at end", "\xf0\x9d\x84", 3 },
	{ "5-byte form", "\xf8\x88\x80\x80\x80", 5 },
};

static void test_invalid_utf8_classes(void **state)
{
	size_t r, k;

	for (r = 0; r < sizeof(bad_rows) / sizeof(bad_rows[0]); r++) {
		const struct bad_utf8 *b = &bad_rows[r];
		char in[16], want[128], hex[64], *got;
		struct cw_jbuf j;
		cJSON *o, *v, *h;
		size_t n = b->n + 2;

		/* framed by ASCII so that resynchronisation is checked too */
		in[0] = 'a';
		memcpy(in + 1, b->bytes, b->n);
		in[b->n + 1] = 'z';
		assert_false(cw_utf8_valid(in, n));

		strcpy(want, "\"a");
		for (k = 0; k < b->n; k++)
			strcat(want, "\xef\xbf\xbd"); /* one U+FFFD per byte */
		strcat(want, "z\"");
		got = esc(in, n);
		if (strcmp(got, want))
			fail_msg("%s: got %s", b->what, got);
		free(got);

		cw_jbuf_init(&j);
		cw_jbuf_obj_begin(&j);
		cw_jbuf_kv_bytes(&j, "path", in, n);
		cw_jbuf_obj_end(&j);
		check_line_clean(j.buf, j.len);
		o = cJSON_Parse(j.buf);
		assert_non_null(o);
		v = cJSON_GetObjectItem(o, "path");
		h = cJSON_GetObjectItem(o, "path_hex");
		assert_true(cJSON_IsString(v));
		assert_true(cJSON_IsString(h));
		tohex(in, n, hex);
		assert_string_equal(h->valuestring, hex);
		cJSON_Delete(o);
		cw_jbuf_free(&j);
	}
}

static void test_valid_bytes_no_hex(void **state)
{
	struct cw_jbuf j;

	cw_jbuf_init(&j);
	cw_jbuf_obj_begin(&j);
	cw_jbuf_kv_bytes(&j, "path", "/ws/caf\xc3\xa9\n", 10);
	cw_jbuf_obj_end(&j);
	assert_string_equal(j.buf, "{\"path\":\"/ws/caf\xc3\xa9\\n\"}");
	cw_jbuf_free(&j);
}

static void test_nul_in_strn(void **state)
{
	struct cw_jbuf j;
	char *got = esc("a\0b", 3);
	cJSON *o;

	assert_string_equal(got, "\"a\\u0000b\"");
	free(got);
	assert_false(cw_utf8_valid("a\0b", 3));

	cw_jbuf_init(&j);
	cw_jbuf_obj_begin(&j);
	cw_jbuf_kv_bytes(&j, "k", "a\0b", 3);
	cw_jbuf_obj_end(&j);
	assert_string_equal(j.buf, "{\"k\":\"a\\u0000b\",\"k_hex\":\"610062\"}");
	o = cJSON_Parse(j.buf);
	assert_non_null(o);
	cJSON_Delete(o);
	cw_jbuf_free(&j);
}

static void test_nesting_and_commas(void **state)
{
	struct cw_jbuf j;
	const char *argv[] = { "cc", "-o", "x\xff", NULL };

	cw_jbuf_init(&j);
	cw_jbuf_obj_begin(&j);
	cw_jbuf_key(&j, "a");
	cw_jbuf_arr_begin(&j);
	cw_jbuf_int(&j, 1);
	cw_jbuf_obj_begin(&j);
	cw_jbuf_key(&j, "b");
	cw_jbuf_null(&j);
	cw_jbuf_obj_end(&j);
	cw_jbuf_arr_begin(&j);
	cw_jbuf_arr_end(&j);
	cw_jbuf_int(&j, -9223372036854775807LL - 1);
	cw_jbuf_uint(&j, 18446744073709551615ULL);
	cw_jbuf_arr_end(&j);
	cw_jbuf_key(&j, "c");
	cw_jbuf_obj_begin(&j);
	cw_jbuf_kv_bool(&j, "d", true);
	cw_jbuf_kv_bool(&j, "e", false);
	cw_jbuf_key(&j, "t");
	cw_jbuf_double(&j, 1.5);
	cw_jbuf_key(&j, "u");
	cw_jbuf_double(&j, -0.0000004);
	cw_jbuf_key(&j, "v");
	cw_jbuf_double(&j, 0.0 / 0.0);
	cw_jbuf_key(&j, "w");
	cw_jbuf_double(&j, -1e13);
	cw_jbuf_key(&j, "x");
	cw_jbuf_double(&j, 1e300);
	cw_jbuf_obj_end(&j);
	cw_jbuf_key(&j, "o");
	cw_jbuf_obj_begin(&j);
	cw_jbuf_obj_end(&j);
	cw_jbuf_arr_bytes(&j, "argv", argv, 3);
	cw_jbuf_obj_end(&j);
	assert_string_equal(j.buf,
		"{\"a\":[1,{\"b\":null},[],-9223372036854775808,18446744073709551615],"
		"\"c\":{\"d\":true,\"e\":false,\"t\":1.500000,\"u\":0.000000,\"v\":null,"
		"\"w\":-10000000000000.000000,\"x\":null},"
		"\"o\":{},\"argv\":[\"cc\",\"-o\",\"x\xef\xbf\xbd\"],"
		"\"argv_hex\":[null,null,\"78ff\"]}");
	assert_int_equal(j.depth, 0);
	assert_false(j.oom);
	cw_jbuf_free(&j);
}

static void test_growth_and_reuse(void **state)
{
	struct cw_jbuf j;
	size_t n = 3 * 1024 * 1024 / 2, cap;
	char *big = malloc(n);
	cJSON *v;
	char *old;

	assert_non_null(big);
	memset(big, 'q', n);
	big[1000] = '\n';
	cw_jbuf_init(&j);
	cw_jbuf_strn(&j, big, n);
	assert_false(j.oom);
	assert_int_equal(j.len, n + 2 + 1); /* quotes, one extra byte for \n */
	assert_int_equal(strlen(j.buf), j.len);
	assert_true(j.cap > 1024 * 1024);
	assert_true(j.cap < 2 * n); /* not the 6x worst case of the whole string */
	v = cJSON_Parse(j.buf);
	assert_non_null(v);
	assert_int_equal(strlen(v->valuestring), n);
	assert_memory_equal(v->valuestring, big, n);
	cJSON_Delete(v);

	/* reset keeps the allocation: a warm writer does not allocate */
	cap = j.cap;
	old = j.buf;
	cw_jbuf_reset(&j);
	assert_int_equal(j.len, 0);
	assert_string_equal(j.buf, "");
	cw_jbuf_obj_begin(&j);
	cw_jbuf_kv_str(&j, "k", "v");
	cw_jbuf_obj_end(&j);
	assert_ptr_equal(j.buf, old);
	assert_int_equal(j.cap, cap);
	assert_string_equal(j.buf, "{\"k\":\"v\"}");
	assert_false(j.oom);
	cw_jbuf_free(&j);
	free(big);
}

/* Multi-byte sequences and escapes on every offset around the writer's
 * internal 4 KiB chunking. */
static void test_chunk_boundaries(void **state)
{
	static const char *const seqs[] = {
		"\xf0\x9d\x84\x9e", "\xe2\x80\xa8", "\xc3\xa9", "\n", "\xe2\x82", "\xff",
	};
	char in[8300], want[8300 * 3 + 2];
	size_t off, k;

	for (k = 0; k < sizeof(seqs) / sizeof(seqs[0]); k++) {
		for (off = 4090; off < 4100; off++) {
			size_t sl = strlen(seqs[k]), n = off + sl + 5, w = 0, i;
			char *got, *back;

			memset(in, 'a', off);
			memcpy(in + off, seqs[k], sl);
			memset(in + off + sl, 'b', 5);
			got = esc(in, n);
			assert_true(cw_utf8_valid(got, strlen(got)));
			back = decode(got);
			if (cw_utf8_valid(in, n)) {
				assert_int_equal(strlen(back), n);
				assert_memory_equal(back, in, n);
			} else {
				for (i = 0; i < n; i++) {
					if ((unsigned char)in[i] >= 0x80) {
						memcpy(want + w, "\xef\xbf\xbd", 3);
						w += 3;
					} else
						want[w++] = in[i];
				}
				assert_int_equal(strlen(back), w);
				assert_memory_equal(back, want, w);
			}
			free(back);
			free(got);
		}
	}
}

static void test_utf8_sanitize(void **state)
{
	char *s = cw_utf8_sanitize("a\xc0\xaf\0b\xe2\x82\xac", 8);

	assert_non_null(s);
	assert_string_equal(s, "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b\xe2\x82\xac");
	assert_true(cw_utf8_valid(s, strlen(s)));
	free(s);
	assert_true(cw_utf8_valid("", 0));
}

/* ---- errno and signal names ---- */

static void test_errno_names(void **state)
{
	int e, f;

	assert_null(cw_errno_name(0));
	assert_string_equal(cw_errno_name(EPERM), "EPERM");
	assert_string_equal(cw_errno_name(EACCES), "EACCES");
	assert_string_equal(cw_errno_name(ERANGE), "ERANGE");
	assert_string_equal(cw_errno_name(ENOSYS), "ENOSYS");
	assert_string_equal(cw_errno_name(ENAMETOOLONG), "ENAMETOOLONG");
	assert_string_equal(cw_errno_name(ENETUNREACH), "ENETUNREACH");
	assert_string_equal(cw_errno_name(ECONNREFUSED), "ECONNREFUSED");
	assert_string_equal(cw_errno_name(EAGAIN), "EAGAIN");
	assert_string_equal(cw_errno_name(ELOOP), "ELOOP");
	assert_string_equal(cw_errno_name(EXDEV), "EXDEV");
	assert_string_equal(cw_errno_name(ENOTEMPTY), "ENOTEMPTY");
	assert_string_equal(cw_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(cw_errno_name(-EACCES), "EACCES");
	assert_null(cw_errno_name(EHWPOISON + 1));
	/* Linux leaves 41 and 58 unused; every other number up to EHWPOISON
	 * is named, and each name once */
	for (e = 1; e <= EHWPOISON; e++) {
		if (e == 41 || e == 58) {
			assert_null(cw_errno_name(e));
			continue;
		}
		if (!cw_errno_name(e))
			fail_msg("errno %d has no name", e);
		assert_int_equal(cw_errno_name(e)[0], 'E');
		for (f = 1; f < e; f++)
			if (cw_errno_name(f))
				assert_string_not_equal(cw_errno_name(e), cw_errno_name(f));
	}
}

static void test_signal_names(void **state)
{
	int s;

	assert_null(cw_signal_name(0));
	assert_string_equal(cw_signal_name(SIGHUP), "SIGHUP");
	assert_string_equal(cw_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(cw_signal_name(SIGSEGV), "SIGSEGV");
	assert_string_equal(cw_signal_name(SIGSYS), "SIGSYS");
	assert_string_equal(cw_signal_name(SIGRTMIN), "SIGRTMIN");
	assert_string_equal(cw_signal_name(SIGRTMIN + 3), "SIGRTMIN+3");
	for (s = 1; s <= SIGSYS; s++)
		assert_non_null(cw_signal_name(s));
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		assert_non_null(cw_signal_name(s));
	assert_null(cw_signal_name(SIGRTMAX + 1));
}

/* ---- trace round trips ---- */

static void fill_decision(struct cw_decision *d, cw_cap_kind cap, cw_verdict v, const char *scope)
{
	memset(d, 0, sizeof(*d));
	d->verdict = v;
	d->profile_verdict = v;
	d->cap = cap;
	snprintf(d->scope, sizeof(d->scope), "%s", scope);
	snprintf(d->rule, sizeof(d->rule), "verify:%s:default", cap == CW_CAP_NONE ? "none" : cw_cap_name(cap));
	snprintf(d->reason, sizeof(d->reason), "test reason");
	d->next_action = v == CW_ASK ? CW_NEXT_REQUEST_APPROVAL : v == CW_DENY ? CW_NEXT_CHANGE_COMMAND : CW_NEXT_NONE;
	d->source = CW_SOURCE_CONFIGURED_POLICY;
	d->err = v == CW_ALLOW ? 0 : EACCES;
}

struct addr_case {
	struct sockaddr_storage ss;
	size_t len;
};

static void mk_in(struct addr_case *a, const char *ip, int port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->ss;

	memset(a, 0, sizeof(*a));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
	a->len = sizeof(*sin);
}

static void mk_in6(struct addr_case *a, const char *ip, int port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a->ss;

	memset(a, 0, sizeof(*a));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons((uint16_t)port);
	assert_int_equal(inet_pton(AF_INET6, ip, &sin6->sin6_addr), 1);
	a->len = sizeof(*sin6);
}

static void mk_un(struct addr_case *a, const char *path)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&a->ss;

	memset(a, 0, sizeof(*a));
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path));
	a->len = offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1;
}

enum addr_kind { A_NONE, A_V4, A_V6, A_UNIX };

struct op_row {
	cw_op_kind kind;
	const char *syscall;
	const char *path, *path2;
	enum addr_kind ak;
	const char *addr;
	int port;
	int target_pid;
	bool in_tree;
	const char *env;
	const char *host;
	cw_cap_kind cap;
	cw_verdict v;
};

static const struct op_row op_rows[] = {
	{ CW_OP_OPEN_READ, "openat", "/ws/src/main.c", NULL, A_NONE, NULL, 0, 0, false, NULL, NULL,
	  CW_CAP_FILESYSTEM_READ, CW_ALLOW },
	{ CW_OP_OPEN_WRITE, "openat", "/ws/\xff\xfe\x80.txt", NULL, A_NONE, NULL, 0, 0, false, NULL, NULL,
	  CW_CAP_WORKSPACE_WRITE, CW_ALLOW },
	{ CW_OP_FS_WRITE, "unlinkat", "/ws/a\nALLOW external_network 203.0.113.10 pid=1\n", NULL,
	  A_NONE, NULL, 0, 0, false, NULL, NULL, CW_CAP_WORKSPACE_WRITE, CW_DENY },
	{ CW_OP_FS_WRITE, "mkdir", "/ws/\x1b]0;title\x07\xc0\xaf\xe2\x80\xa8", NULL, A_NONE, NULL, 0, 0,
	  false, NULL, NULL, CW_CAP_WORKSPACE_WRITE, CW_ALLOW },
	{ CW_OP_RENAME, "renameat2", "/ws/old", "/ws/new\xed\xa0\x80", A_NONE, NULL, 0, 0, false, NULL,
	  NULL, CW_CAP_WORKSPACE_WRITE, CW_ALLOW },
	{ CW_OP_SYMLINK, "symlinkat", "/ws/link", "../relative/target", A_NONE, NULL, 0, 0, false, NULL,
	  NULL, CW_CAP_WORKSPACE_WRITE, CW_ALLOW },
	{ CW_OP_EXEC, "execve", "/usr/bin/cc", NULL, A_NONE, NULL, 0, 0, false, NULL, NULL,
	  CW_CAP_PROCESS_SPAWN, CW_ALLOW },
	{ CW_OP_CONNECT, "connect", NULL, NULL, A_V4, "203.0.113.7", 80, 0, false, NULL, "example.com",
	  CW_CAP_EXTERNAL_NETWORK, CW_ASK },
	{ CW_OP_SEND, "sendto", NULL, NULL, A_V6, "2001:db8::1", 443, 0, false, NULL, NULL,
	  CW_CAP_EXTERNAL_NETWORK, CW_DENY },
	{ CW_OP_CONNECT, "connect", NULL, NULL, A_V6, "::1", 8080, 0, false, NULL, NULL,
	  CW_CAP_ISOLATED_LOOPBACK, CW_ALLOW },
	{ CW_OP_BIND, "bind", NULL, NULL, A_V4, "0.0.0.0", 8000, 0, false, NULL, NULL,
	  CW_CAP_HOST_VISIBLE_BINDING, CW_DENY },
	{ CW_OP_LISTEN, "listen", NULL, NULL, A_V4, "127.0.0.1", 9, 0, false, NULL, NULL,
	  CW_CAP_ISOLATED_LOOPBACK, CW_ALLOW },
	{ CW_OP_CONNECT, "connect", NULL, NULL, A_UNIX, "/var/run/docker.sock", 0, 0, false, NULL, NULL,
	  CW_CAP_PROCESS_CONTROL, CW_DENY },
	{ CW_OP_CONNECT, "connect", NULL, NULL, A_UNIX, "/tmp/s\xff\n.sock", 0, 0, false, NULL, NULL,
	  CW_CAP_PROCESS_CONTROL, CW_DENY },
	{ CW_OP_SIGNAL, "kill", NULL, NULL, A_NONE, NULL, 0, 1, false, NULL, NULL,
	  CW_CAP_PROCESS_CONTROL, CW_DENY },
	{ CW_OP_PROC_ACCESS, "ptrace", NULL, NULL, A_NONE, NULL, 0, 4242, true, NULL, NULL,
	  CW_CAP_NONE, CW_ALLOW },
	{ CW_OP_ENV, "execve", NULL, NULL, A_NONE, NULL, 0, 0, false, "AWS_SECRET_ACCESS_KEY,TOKEN", NULL,
	  CW_CAP_ENVIRONMENT, CW_DENY },
	{ CW_OP_ESCAPE_SYSCALL, "mount", NULL, NULL, A_NONE, NULL, 0, 0, false, NULL, NULL,
	  CW_CAP_UNRESTRICTED, CW_DENY },
};

static void row_op(const struct op_row *r, struct cw_op *op, struct addr_case *a)
{
	memset(op, 0, sizeof(*op));
	op->kind = r->kind;
	op->syscall = r->syscall;
	op->path = r->path;
	op->path2 = r->path2;
	op->target_pid = r->target_pid;
	op->target_in_tree = r->in_tree;
	op->env_names = r->env;
	op->host = r->host;
	switch (r->ak) {
	case A_V4: mk_in(a, r->addr, r->port); break;
	case A_V6: mk_in6(a, r->addr, r->port); break;
	case A_UNIX: mk_un(a, r->addr); break;
	default: return;
	}
	op->addr = (const struct sockaddr *)&a->ss;
	op->addrlen = a->len;
}

static void assert_same_addr(const struct sockaddr *x, size_t xl, const struct sockaddr *y, size_t yl)
{
	assert_int_equal(x->sa_family, y->sa_family);
	if (x->sa_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)x, *b = (const void *)y;

		assert_int_equal(a->sin_port, b->sin_port);
		assert_memory_equal(&a->sin_addr, &b->sin_addr, sizeof(a->sin_addr));
	} else if (x->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)x, *b = (const void *)y;

		assert_int_equal(a->sin6_port, b->sin6_port);
		assert_memory_equal(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr));
	} else if (x->sa_family == AF_UNIX) {
		const struct sockaddr_un *a = (const void *)x, *b = (const void *)y;

		assert_string_equal(a->sun_path, b->sun_path);
		assert_int_equal(xl, yl);
	} else
		fail_msg("unexpected family %d", x->sa_family);
}

static void test_trace_op_roundtrip(void **state)
{
	struct cw_jbuf j;
	size_t r;

	cw_jbuf_init(&j);
	for (r = 0; r < sizeof(op_rows) / sizeof(op_rows[0]); r++) {
		const struct op_row *row = &op_rows[r];
		struct cw_op op, back;
		struct cw_op_storage st;
		struct addr_case a;
		struct cw_decision d;
		struct cw_trace_op e;
		char err[256] = "", scope[512] = "";
		const char *argv[] = { "cc", "-c", "\xfe" "x.c", NULL };
		cJSON *ev, *f;

		row_op(row, &op, &a);
		if (op.addr)
			assert_int_equal(cw_addr_format(op.addr, op.addrlen, scope, sizeof(scope)), 0);
		else if (op.path)
			snprintf(scope, sizeof(scope), "%s", op.path);
		else
			snprintf(scope, sizeof(scope), "%s", row->syscall);
		fill_decision(&d, row->cap, row->v, scope);

		memset(&e, 0, sizeof(e));
		e.seq = r + 1;
		e.time = 0.25 * (double)r;
		e.pid = 100 + (int)r;
		e.tid = 200 + (int)r;
		e.ppid = 99;
		e.source = "seccomp";
		e.op = &op;
		if (row->path) {
			e.raw_path = row->path;
			e.raw_path_len = strlen(row->path);
			e.dirfd = -100;
			e.has_dirfd = true;
			e.flags = 0101;
			e.has_flags = true;
		}
		if (row->kind == CW_OP_EXEC)
			e.argv = argv;
		e.d = &d;
		e.enforced = row->v != CW_ALLOW;
		e.err = d.err;
		cw_jbuf_reset(&j);
		cw_trace_op_write(&j, &e);
		assert_false(j.oom);
		check_line_clean(j.buf, j.len);

		ev = cw_trace_parse_line(j.buf, j.len, r + 2, err, sizeof(err));
		if (!ev)
			fail_msg("row %zu: %s: %s", r, err, j.buf);
		assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, "op");
		assert_int_equal((int)cJSON_GetObjectItem(ev, "seq")->valuedouble, (int)r + 1);
		assert_int_equal((int)cJSON_GetObjectItem(ev, "pid")->valuedouble, 100 + (int)r);
		assert_string_equal(cJSON_GetObjectItem(ev, "decision")->valuestring, cw_verdict_name(row->v));
		assert_string_equal(cJSON_GetObjectItem(ev, "next_action")->valuestring,
				    cw_next_action_name(d.next_action));
		assert_string_equal(cJSON_GetObjectItem(ev, "source_of_decision")->valuestring,
				    "configured_policy");
		f = cJSON_GetObjectItem(ev, "capability");
		if (row->cap == CW_CAP_NONE)
			assert_true(cJSON_IsNull(f));
		else
			assert_string_equal(f->valuestring, cw_cap_name(row->cap));
		f = cJSON_GetObjectItem(ev, "errno");
		if (row->v == CW_ALLOW)
			assert_true(cJSON_IsNull(f));
		else
			assert_string_equal(f->valuestring, "EACCES");
		if (row->kind == CW_OP_EXEC) {
			cJSON *args = cJSON_GetObjectItem(ev, "args");

			assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(args, "argv")), 3);
			assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(args, "argv_hex"), 2)->valuestring,
					    "fe782e63");
		}

		assert_int_equal(cw_trace_event_to_op(ev, &back, &st, err, sizeof(err)), 0);
		assert_int_equal(back.kind, row->kind);
		assert_string_equal(back.syscall, row->syscall);
		if (row->path) {
			assert_non_null(back.path);
			assert_string_equal(back.path, row->path); /* byte-exact */
		} else
			assert_null(back.path);
		if (row->path2)
			assert_string_equal(back.path2, row->path2);
		else
			assert_null(back.path2);
		if (op.addr) {
			assert_non_null(back.addr);
			assert_same_addr(op.addr, op.addrlen, back.addr, back.addrlen);
		} else
			assert_null(back.addr);
		assert_int_equal(back.target_pid, row->target_pid);
		assert_int_equal(back.target_in_tree, row->in_tree);
		if (row->env)
			assert_string_equal(back.env_names, row->env);
		else
			assert_null(back.env_names);
		if (row->host)
			assert_string_equal(back.host, row->host);
		else
			assert_null(back.host);
		cw_op_storage_free(&st);
		cJSON_Delete(ev);
	}
	cw_jbuf_free(&j);
}

static void test_trace_header_roundtrip(void **state)
{
	const char *roots[] = { "/ws/one", "/ws/t\xe9st", "/ws/nl\n" };
	const char *prot[] = { "/ws/r.json", "/ws/\xff.jsonl" };
	const char *args[] = { "-c", "echo \xc3", NULL };
	struct cw_trace_header h = {
		.profile = "verify", .roots = roots, .nroots = 3,
		.command = "/bin/sh", .args = args, .kernel = "6.18.44",
		.start = "2026-11-30T00:31:35Z", .scratch = "/tmp/cw.\x80", .home = "/home/u",
		.protected_files = prot, .nprotected = 2,
		.backend = "seccomp-unotify+ptrace", .level = "enforce", .cwd = "/ws/one/sub",
	};
	struct cw_jbuf j;
	struct cw_context ctx;
	char err[256];
	cJSON *hdr, *cmd;
	size_t i;

	cw_jbuf_init(&j);
	cw_trace_header_write(&j, &h);
	check_line_clean(j.buf, j.len);
	hdr = cw_trace_parse_line(j.buf, j.len, 1, err, sizeof(err));
	if (!hdr)
		fail_msg("%s", err);
	assert_string_equal(cJSON_GetObjectItem(hdr, "schema")->valuestring, CW_TRACE_SCHEMA);
	assert_string_equal(cJSON_GetObjectItem(hdr, "cwd")->valuestring, "/ws/one/sub");
	assert_int_equal(cJSON_GetObjectItem(hdr, "version")->valueint, 1);
	cmd = cJSON_GetObjectItem(hdr, "command");
	assert_string_equal(cJSON_GetObjectItem(cmd, "name")->valuestring, "/bin/sh");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cmd, "args")), 2);
	assert_non_null(cJSON_GetObjectItem(cmd, "args_hex"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(hdr, "enforcement"), "level")->valuestring,
			    "enforce");

	assert_int_equal(cw_trace_header_to_context(hdr, &ctx, err, sizeof(err)), 0);
	assert_int_equal(ctx.nroots, 3);
	for (i = 0; i < 3; i++)
		assert_string_equal(ctx.roots[i], roots[i]);
	assert_int_equal(ctx.nprotected, 2);
	for (i = 0; i < 2; i++)
		assert_string_equal(ctx.protected_files[i], prot[i]);
	assert_string_equal(ctx.scratch, "/tmp/cw.\x80");
	assert_string_equal(ctx.home, "/home/u");
	cw_trace_context_free(&ctx);
	assert_null(ctx.roots);
	cJSON_Delete(hdr);
	cw_jbuf_free(&j);
}

static cJSON *parse_ok(struct cw_jbuf *j, const char *type)
{
	char err[256];
	cJSON *ev;

	check_line_clean(j->buf, j->len);
	ev = cw_trace_parse_line(j->buf, j->len, 3, err, sizeof(err));
	if (!ev)
		fail_msg("%s: %s", err, j->buf);
	assert_string_equal(cJSON_GetObjectItem(ev, "type")->valuestring, type);
	return ev;
}

static void test_trace_process_lines(void **state)
{
	const char *argv[] = { "make", "-j2", "t\xffrget", NULL };
	struct cw_jbuf j;
	cJSON *ev, *o;

	cw_jbuf_init(&j);
	cw_trace_spawn_write(&j, 2, 0.5, 11, 10, 11, "clone");
	ev = parse_ok(&j, "spawn");
	assert_int_equal(cJSON_GetObjectItem(ev, "ppid")->valueint, 10);
	assert_string_equal(cJSON_GetObjectItem(ev, "via")->valuestring, "clone");
	assert_true(cJSON_GetObjectItem(ev, "time")->valuedouble == 0.5);
	cJSON_Delete(ev);

	cw_jbuf_reset(&j);
	cw_trace_exec_write(&j, 3, 0.75, 11, 10, "/usr/bin/m\nake", argv, false, "present");
	ev = parse_ok(&j, "exec");
	assert_string_equal(cJSON_GetObjectItem(ev, "exe")->valuestring, "/usr/bin/m\nake");
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(ev, "argv_hex"), 2)->valuestring,
			    "74ff72676574");
	assert_string_equal(cJSON_GetObjectItem(ev, "preload")->valuestring, "present");
	cJSON_Delete(ev);

	cw_jbuf_reset(&j);
	cw_trace_exit_write(&j, 4, 1.0, 11, 0, SIGKILL);
	ev = parse_ok(&j, "exit");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(ev, "code")));
	assert_string_equal(cJSON_GetObjectItem(ev, "signal")->valuestring, "SIGKILL");
	cJSON_Delete(ev);

	cw_jbuf_reset(&j);
	cw_trace_exit_write(&j, 5, 1.0, 10, 3, 0);
	ev = parse_ok(&j, "exit");
	assert_int_equal(cJSON_GetObjectItem(ev, "code")->valueint, 3);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(ev, "signal")));
	cJSON_Delete(ev);

	cw_jbuf_reset(&j);
	cw_trace_note_write(&j, 6, 1.0, 10, "warning", "preload data dropped\n\x1b[2J");
	ev = parse_ok(&j, "note");
	assert_string_equal(cJSON_GetObjectItem(ev, "message")->valuestring, "preload data dropped\n\x1b[2J");
	cJSON_Delete(ev);

	cw_jbuf_reset(&j);
	cw_trace_summary_write(&j, 7, 2.0, 6, 1, "denied", "enforcement_denied", 2.0);
	ev = parse_ok(&j, "summary");
	o = cJSON_GetObjectItem(ev, "outcome");
	assert_string_equal(cJSON_GetObjectItem(o, "kind")->valuestring, "enforcement_denied");
	assert_int_equal(cJSON_GetObjectItem(ev, "denials")->valueint, 1);
	cJSON_Delete(ev);
	cw_jbuf_free(&j);
}

/* argv up to ARG_MAX must still give a line the reader accepts */
static void test_trace_huge_argv(void **state)
{
	size_t el = 100 * 1024, total = 0;
	char *a = malloc(el + 1), *b = malloc(el + 1), *c = malloc(el + 1);
	const char *argv[] = { "cc", NULL, NULL, NULL, NULL };
	struct cw_jbuf j;
	char err[256];
	cJSON *ev, *arr, *it;

	assert_true(a && b && c);
	memset(a, 'a', el);
	a[el] = '\0';
	memset(b, '\n', el); /* 6 bytes of JSON each */
	b[7] = (char)0xff;
	b[el] = '\0';
	memset(c, 'c', el);
	c[el] = '\0';
	argv[1] = a;
	argv[2] = b;
	argv[3] = c;
	cw_jbuf_init(&j);
	cw_trace_exec_write(&j, 9, 1.0, 5, 4, "/usr/bin/cc", argv, false, "unknown");
	assert_false(j.oom);
	check_line_clean(j.buf, j.len);
	assert_true(j.len < 1024 * 1024);
	ev = cw_trace_parse_line(j.buf, j.len, 10, err, sizeof(err));
	if (!ev)
		fail_msg("%s", err);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ev, "argv_truncated")));
	arr = cJSON_GetObjectItem(ev, "argv");
	assert_int_equal(cJSON_GetArraySize(arr), 3); /* c dropped, b cut */
	assert_string_equal(cJSON_GetArrayItem(arr, 1)->valuestring, a);
	cJSON_ArrayForEach(it, arr)
		total += strlen(it->valuestring);
	/* b's U+FFFD is 3 bytes for one byte of input */
	assert_int_equal(total, 128 * 1024 + 2);
	assert_int_equal(strlen(cJSON_GetArrayItem(cJSON_GetObjectItem(ev, "argv_hex"), 2)->valuestring),
			 2 * (128 * 1024 - 2 - el));
	cJSON_Delete(ev);

	/* short argv: no flag */
	argv[1] = "-c";
	argv[2] = NULL;
	cw_jbuf_reset(&j);
	cw_trace_exec_write(&j, 9, 1.0, 5, 4, "/usr/bin/cc", argv, false, "unknown");
	assert_null(strstr(j.buf, "truncated"));
	cw_jbuf_free(&j);
	free(a);
	free(b);
	free(c);
}

static void expect_parse_error(const char *line, size_t len, unsigned long lineno, const char *want)
{
	char err[256] = "", num[32];
	cJSON *ev = cw_trace_parse_line(line, len, lineno, err, sizeof(err));

	if (ev) {
		cJSON_Delete(ev);
		fail_msg("accepted: %.80s", line);
	}
	snprintf(num, sizeof(num), "line %lu: ", lineno);
	if (strncmp(err, num, strlen(num)) || !strstr(err, want))
		fail_msg("message \"%s\" lacks \"%s\"", err, want);
}

static void test_trace_parse_errors(void **state)
{
	struct cw_jbuf j;
	char *huge;
	size_t n = 1024 * 1024 + 16;

	cw_jbuf_init(&j);
	cw_trace_spawn_write(&j, 2, 0.5, 11, 10, 11, "fork");
	expect_parse_error(j.buf, j.len / 2, 7, "not valid JSON");
	cw_jbuf_free(&j);

	expect_parse_error("hello", 5, 2, "not valid JSON");
	expect_parse_error("{\"type\":\"op\"} x", 15, 2, "not valid JSON");
	expect_parse_error("[1,2]", 5, 3, "not a JSON object");
	expect_parse_error("{\"seq\":1}", 9, 5, "missing \"type\"");
	expect_parse_error("{\"type\":7}", 10, 5, "missing \"type\"");
	expect_parse_error("{\"type\":\"bogus\"}", 16, 6, "unknown event type");
	expect_parse_error("{\"type\":\"header\",\"schema\":\"capwatch.trace/v2\",\"version\":2}", 58, 1,
			   "schema \"capwatch.trace/v2\" is newer than this capwatch understands");
	expect_parse_error("{\"type\":\"header\",\"schema\":\"other/v1\"}", 37, 1, "unknown schema");
	expect_parse_error("{\"type\":\"header\"}", 17, 1, "without \"schema\"");
	expect_parse_error("", 0, 9, "empty");

	/* over the 1 MiB line limit: a message, not a crash */
	huge = malloc(n + 1);
	assert_non_null(huge);
	memset(huge, ' ', n);
	memcpy(huge, "{\"type\":\"note\",\"message\":\"", 26);
	memcpy(huge + n - 2, "\"}", 2);
	huge[n] = '\0';
	expect_parse_error(huge, n, 4, "longer than");
	free(huge);
}

static void test_event_to_op_errors(void **state)
{
	struct cw_op op;
	struct cw_op_storage st;
	char err[256];
	cJSON *ev;

	ev = cJSON_Parse("{\"type\":\"op\",\"syscall\":\"openat\"}");
	assert_int_equal(cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"op\""));
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"op\",\"op\":\"teleport\",\"syscall\":\"x\"}");
	assert_int_equal(cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)), -EINVAL);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"op\",\"op\":\"open_read\",\"syscall\":\"openat\","
			 "\"resolved\":\"/a\",\"resolved_hex\":\"2f0061\"}");
	assert_int_equal(cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)), -EINVAL);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"op\",\"op\":\"connect\",\"syscall\":\"connect\","
			 "\"resolved\":\"not an address\"}");
	assert_int_equal(cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)), -EINVAL);
	cJSON_Delete(ev);
	ev = cJSON_Parse("{\"type\":\"spawn\"}");
	assert_int_equal(cw_trace_event_to_op(ev, &op, &st, err, sizeof(err)), -EINVAL);
	cJSON_Delete(ev);
}

/* ---- report ---- */

static cJSON *render_parse(const cw_report *r, char **textp)
{
	char *text = cw_report_render(r);
	cJSON *doc;
	size_t n;

	assert_non_null(text);
	n = strlen(text);
	assert_true(n > 0 && text[n - 1] == '\n');
	assert_true(cw_utf8_valid(text, n));
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	if (textp)
		*textp = text;
	else
		free(text);
	return doc;
}

static cJSON *get(cJSON *o, const char *path)
{
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save)) {
		if (tok[0] >= '0' && tok[0] <= '9')
			o = cJSON_GetArrayItem(o, atoi(tok));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, tok);
	}
	if (!o)
		fail_msg("no %s", path);
	return o;
}

static const char *gets_(cJSON *o, const char *path)
{
	cJSON *v = get(o, path);

	if (!cJSON_IsString(v))
		fail_msg("%s is not a string", path);
	return v->valuestring;
}

static void test_report_full(void **state)
{
	const char *args[] = { "-c", "make \xff", NULL };
	const char *roots[] = { "/ws" };
	const char *layers[] = { "seccomp-bpf", "seccomp-unotify", "ptrace", NULL };
	const char *argv1[] = { "sh", "-c", "make \xff", NULL };
	const char *argv2[] = { "curl", "https://example.com", NULL };
	struct cw_enforcement enf = { "seccomp-unotify+ptrace", "enforce", false, "", layers };
	struct cw_proc_record p1 = { 10, 1, "/bin/sh", argv1, 0.0, 2.5, true, 1, 0, "present" };
	struct cw_proc_record p2 = { 11, 10, "/usr/bin/curl", argv2, 0.1, 0.2, false, 0, SIGKILL, "absent" };
	struct cw_proc_record p3 = { 12, 10, NULL, NULL, 0.3, -1, false, 0, 0, "unknown" };
	struct cw_decision d;
	struct cw_denial_record dr;
	cw_report *r = cw_report_new();
	cJSON *doc, *v;
	char *text;

	assert_non_null(r);
	assert_int_equal(cw_report_set_run(r, "verify", "/bin/sh", args, "/ws/sub\xc3", roots, 1), 0);
	assert_int_equal(cw_report_set_enforcement(r, &enf), 0);
	assert_int_equal(cw_report_add_process(r, &p1), 0);
	assert_int_equal(cw_report_add_process(r, &p2), 0);
	assert_int_equal(cw_report_add_process(r, &p3), 0);
	fill_decision(&d, CW_CAP_EXTERNAL_NETWORK, CW_DENY, "203.0.113.7:443");
	d.profile_verdict = CW_ASK;
	d.next_action = CW_NEXT_REQUEST_APPROVAL;
	snprintf(d.rule, sizeof(d.rule), "verify:external_network:default");
	memset(&dr, 0, sizeof(dr));
	dr.pid = 11;
	dr.program = "/usr/bin/curl";
	dr.syscall = "connect";
	dr.d = &d;
	dr.time = 0.15;
	dr.enforced = true;
	dr.host = "example.com";
	assert_int_equal(cw_report_add_denial(r, &dr), 0);
	/* The supervisor's random key goes in before the first use ... */
	struct cw_hash_key hk = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };
	assert_int_equal(cw_report_set_hash_key(r, &hk), 0);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_EXTERNAL_NETWORK, "203.0.113.7:443", CW_DENY), 0);
	/* ... and not after: the table would have to be rebuilt. */
	assert_int_equal(cw_report_set_hash_key(r, &hk), -EBUSY);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/b", CW_ALLOW), 0);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/a", CW_ALLOW), 0);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/a", CW_ALLOW), 0);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_NONE, "/dev/null", CW_ALLOW), 0);
	assert_int_equal(cw_report_add_change(r, "created", "/ws/out\xe2\x80\xa8.o", NULL), 0);
	assert_int_equal(cw_report_add_change(r, "renamed", "/ws/a", "/ws/b"), 0);
	assert_int_equal(cw_report_set_outcome(r, "denied", "enforcement_denied", true, 1, 0, &d), 0);
	cw_report_set_stats(r, 1234, 56, 2.5);

	doc = render_parse(r, &text);
	/* U+2028 from a path is escaped in the text, not raw */
	assert_null(strstr(text, "\xe2\x80\xa8"));
	assert_non_null(strstr(text, "\\u2028"));
	free(text);

	assert_string_equal(gets_(doc, "schema"), "capwatch.report/v1");
	assert_int_equal(get(doc, "policyVersion")->valueint, 1);
	assert_string_equal(gets_(doc, "profile"), "verify");
	assert_string_equal(gets_(doc, "command.name"), "/bin/sh");
	assert_string_equal(gets_(doc, "command.args.1"), "make \xef\xbf\xbd");
	assert_true(cJSON_IsNull(get(doc, "command.args_hex.0")));
	assert_string_equal(gets_(doc, "command.args_hex.1"), "6d616b6520ff");
	assert_string_equal(gets_(doc, "workingDirectory_hex"), "2f77732f737562c3");
	assert_string_equal(gets_(doc, "workspaceRoots.0"), "/ws");

	assert_string_equal(gets_(doc, "outcome.state"), "denied");
	assert_string_equal(gets_(doc, "outcome.kind"), "enforcement_denied");
	assert_int_equal(get(doc, "outcome.exit.code")->valueint, 1);
	assert_true(cJSON_IsNull(get(doc, "outcome.exit.signal")));
	assert_string_equal(gets_(doc, "outcome.denial.capability.kind"), "external_network");
	assert_string_equal(gets_(doc, "outcome.denial.capability.scope"), "203.0.113.7:443");
	assert_string_equal(gets_(doc, "outcome.denial.source"), "configured_policy");
	assert_true(cJSON_IsTrue(get(doc, "outcome.denial.recoverable")));
	assert_string_equal(gets_(doc, "outcome.denial.nextAction"), "request_approval");
	assert_string_equal(gets_(doc, "outcome.denial.rule"), "verify:external_network:default");
	assert_string_equal(gets_(doc, "outcome.denial.syscall"), "connect");
	assert_int_equal(get(doc, "outcome.denial.pid")->valueint, 11);
	assert_string_equal(gets_(doc, "outcome.denial.program"), "/usr/bin/curl");
	assert_string_equal(gets_(doc, "outcome.enforcement.backend"), "seccomp-unotify+ptrace");
	assert_true(cJSON_IsFalse(get(doc, "outcome.enforcement.degraded")));
	assert_string_equal(gets_(doc, "outcome.enforcement.downgradeReason"), "");
	assert_int_equal(cJSON_GetArraySize(get(doc, "outcome.enforcement.layers")), 3);
	assert_string_equal(gets_(doc, "outcome.changes.0.kind"), "created");
	assert_string_equal(gets_(doc, "outcome.changes.0.path"), "/ws/out\xe2\x80\xa8.o");
	assert_string_equal(gets_(doc, "outcome.changes.1.to"), "/ws/b");

	assert_int_equal(cJSON_GetArraySize(get(doc, "denials")), 1);
	assert_int_equal(get(doc, "denials.0.pid")->valueint, 11);
	assert_string_equal(gets_(doc, "denials.0.capability.scope"), "203.0.113.7:443");
	assert_string_equal(gets_(doc, "denials.0.decision"), "deny");
	assert_string_equal(gets_(doc, "denials.0.host"), "example.com");
	assert_true(get(doc, "denials.0.time")->valuedouble == 0.15);
	assert_true(cJSON_IsTrue(get(doc, "denials.0.enforced")));

	assert_int_equal(cJSON_GetArraySize(get(doc, "processes")), 3);
	assert_int_equal(get(doc, "processes.0.exit.code")->valueint, 1);
	assert_string_equal(gets_(doc, "processes.0.argv_hex.2"), "6d616b6520ff");
	assert_true(cJSON_IsNull(get(doc, "processes.1.exit.code")));
	assert_string_equal(gets_(doc, "processes.1.exit.signal"), "SIGKILL");
	assert_true(cJSON_IsNull(get(doc, "processes.2.exit")));
	assert_true(cJSON_IsNull(get(doc, "processes.2.end")));
	assert_true(cJSON_IsNull(get(doc, "processes.2.exe")));
	assert_string_equal(gets_(doc, "processes.1.preload"), "absent");

	/* sorted: filesystem_read before external_network, /ws/a before /ws/b;
	 * the no-capability /dev/null write is not a capability use */
	v = get(doc, "capabilitiesUsed");
	assert_int_equal(cJSON_GetArraySize(v), 3);
	assert_string_equal(gets_(doc, "capabilitiesUsed.0.scope"), "/ws/a");
	assert_int_equal(get(doc, "capabilitiesUsed.0.count")->valueint, 2);
	assert_string_equal(gets_(doc, "capabilitiesUsed.0.decision"), "allow");
	assert_string_equal(gets_(doc, "capabilitiesUsed.1.scope"), "/ws/b");
	assert_string_equal(gets_(doc, "capabilitiesUsed.2.kind"), "external_network");
	assert_string_equal(gets_(doc, "capabilitiesUsed.2.decision"), "deny");

	assert_int_equal(get(doc, "stats.events")->valueint, 1234);
	assert_int_equal(get(doc, "stats.notifications")->valueint, 56);
	assert_true(get(doc, "stats.elapsed")->valuedouble == 2.5);
	cJSON_Delete(doc);
	cw_report_free(r);
}

static void test_report_never_started(void **state)
{
	const char *args[] = { NULL };
	struct cw_decision d;
	cw_report *r = cw_report_new();
	cJSON *doc, *out;

	assert_non_null(r);
	assert_int_equal(cw_report_set_run(r, "none", "./build.sh", args, "/ws", NULL, 0), 0);
	fill_decision(&d, CW_CAP_PROCESS_SPAWN, CW_DENY, "/ws/build.sh");
	snprintf(d.rule, sizeof(d.rule), "none:process_spawn:default");
	assert_int_equal(cw_report_set_outcome(r, "denied", "policy_denied", false, 0, 0, &d), 0);
	doc = render_parse(r, NULL);
	out = get(doc, "outcome");
	assert_null(cJSON_GetObjectItem(out, "exit"));
	assert_string_equal(gets_(doc, "outcome.kind"), "policy_denied");
	assert_true(cJSON_IsFalse(get(doc, "outcome.denial.recoverable")));
	assert_string_equal(gets_(doc, "outcome.denial.nextAction"), "change_command");
	assert_string_equal(gets_(doc, "outcome.denial.rule"), "none:process_spawn:default");
	/* no runtime denial record to take these from */
	assert_null(cJSON_GetObjectItem(get(doc, "outcome.denial"), "pid"));
	assert_int_equal(cJSON_GetArraySize(get(doc, "command.args")), 0);
	assert_int_equal(cJSON_GetArraySize(get(doc, "processes")), 0);
	assert_int_equal(cJSON_GetArraySize(get(doc, "denials")), 0);
	cJSON_Delete(doc);
	cw_report_free(r);
}

static void test_report_success_no_denial(void **state)
{
	cw_report *r = cw_report_new();
	cJSON *doc;

	assert_non_null(r);
	assert_int_equal(cw_report_set_run(r, "readonly", "true", NULL, "/ws", NULL, 0), 0);
	assert_int_equal(cw_report_set_outcome(r, "completed", "success", true, 0, 0, NULL), 0);
	doc = render_parse(r, NULL);
	assert_null(cJSON_GetObjectItem(get(doc, "outcome"), "denial"));
	assert_int_equal(get(doc, "outcome.exit.code")->valueint, 0);
	assert_string_equal(gets_(doc, "outcome.enforcement.level"), "enforce");
	cJSON_Delete(doc);

	/* killed by a signal: code null, signal named */
	assert_int_equal(cw_report_set_outcome(r, "failed", "timed_out", true, 0, SIGKILL, NULL), 0);
	doc = render_parse(r, NULL);
	assert_true(cJSON_IsNull(get(doc, "outcome.exit.code")));
	assert_string_equal(gets_(doc, "outcome.exit.signal"), "SIGKILL");
	cJSON_Delete(doc);
	cw_report_free(r);
}

static void test_report_capability_aggregation(void **state)
{
	enum { SCOPES = 1000, EVENTS = 100000 };
	cw_report *r = cw_report_new();
	unsigned long want[SCOPES] = { 0 };
	unsigned long seen = 0;
	char scope[64], prev[64] = "";
	cJSON *doc, *arr, *it;
	int i;

	assert_non_null(r);
	for (i = 0; i < EVENTS; i++) {
		/* a permutation of 0..100002 folded onto the scopes: uneven counts */
		int k = (int)(((long)i * 7919 % 100003) % SCOPES);

		snprintf(scope, sizeof(scope), "/ws/f%04d", k);
		assert_int_equal(cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, scope, CW_ALLOW), 0);
		want[k]++;
	}
	/* same scope under another verdict and another kind: separate rows */
	assert_int_equal(cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/f0000", CW_DENY), 0);
	assert_int_equal(cw_report_count_capability(r, CW_CAP_WORKSPACE_WRITE, "/ws/f0000", CW_ALLOW), 0);
	doc = render_parse(r, NULL);
	arr = get(doc, "capabilitiesUsed");
	assert_int_equal(cJSON_GetArraySize(arr), SCOPES + 2);
	i = 0;
	cJSON_ArrayForEach(it, arr) {
		const char *kind = gets_(it, "kind"), *sc = gets_(it, "scope"), *dec = gets_(it, "decision");
		unsigned long cnt = (unsigned long)get(it, "count")->valuedouble;

		if (!strcmp(kind, "filesystem_read") && !strcmp(dec, "allow")) {
			int k = atoi(sc + 5);

			assert_int_equal(cnt, want[k]);
			seen += cnt;
			assert_true(strcmp(prev, sc) < 0); /* sorted by scope */
		} else if (!strcmp(kind, "filesystem_read")) {
			assert_string_equal(sc, "/ws/f0000");
			assert_string_equal(dec, "deny");
			assert_int_equal(cnt, 1);
			assert_int_equal(i, 1); /* right after the allow row of the same scope */
		} else {
			assert_string_equal(kind, "workspace_write");
			assert_int_equal(i, SCOPES + 1); /* after every filesystem_read row */
		}
		snprintf(prev, sizeof(prev), "%s", sc);
		i++;
	}
	assert_int_equal(seen, EVENTS);
	cJSON_Delete(doc);
	cw_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_quotes_backslash_del),
		cmocka_unit_test(test_separators_and_c1),
		cmocka_unit_test(test_valid_multibyte_kept),
		cmocka_unit_test(test_invalid_utf8_classes),
		cmocka_unit_test(test_valid_bytes_no_hex),
		cmocka_unit_test(test_nul_in_strn),
		cmocka_unit_test(test_nesting_and_commas),
		cmocka_unit_test(test_growth_and_reuse),
		cmocka_unit_test(test_chunk_boundaries),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_errno_names),
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_trace_op_roundtrip),
		cmocka_unit_test(test_trace_header_roundtrip),
		cmocka_unit_test(test_trace_process_lines),
		cmocka_unit_test(test_trace_huge_argv),
		cmocka_unit_test(test_trace_parse_errors),
		cmocka_unit_test(test_event_to_op_errors),
		cmocka_unit_test(test_report_full),
		cmocka_unit_test(test_report_never_started),
		cmocka_unit_test(test_report_success_no_denial),
		cmocka_unit_test(test_report_capability_aggregation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
