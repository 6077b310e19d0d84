/* Unit tests of the tools' shared plumbing (tools/common.c): the streaming
 * reader's bad-input policy, the run model, containers and safe output. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "tools/common.h"

#define HDR "{\"type\":\"header\",\"schema\":\"capwatch.trace/v1\",\"version\":1,\"profile\":\"verify\"," \
	    "\"roots\":[\"/ws\"],\"command\":{\"name\":\"sh\",\"args\":[]}}\n"
#define OP(seq, pid, path, dec) "{\"type\":\"op\",\"seq\":" #seq ",\"time\":0." #seq ",\"pid\":" #pid \
	",\"ppid\":1,\"syscall\":\"openat\",\"op\":\"open_read\",\"resolved\":\"" path "\"," \
	"\"capability\":\"filesystem_read\",\"scope\":\"" path "\",\"decision\":\"" dec "\"," \
	"\"rule\":\"r\",\"enforced\":true}\n"
#define SUMMARY "{\"type\":\"summary\",\"seq\":9,\"time\":1,\"events\":3,\"denials\":0," \
		"\"outcome\":{\"state\":\"completed\",\"kind\":\"success\"},\"elapsed\":1}\n"

struct counts {
	int headers, events;
	unsigned long last_line;
};

static int count_header(void *o, const cJSON *ev, unsigned long ln)
{
	(void)ev;
	((struct counts *)o)->headers++;
	((struct counts *)o)->last_line = ln;
	return 0;
}

static int count_event(void *o, const cJSON *ev, unsigned long ln)
{
	(void)ev;
	((struct counts *)o)->events++;
	((struct counts *)o)->last_line = ln;
	return 0;
}

static int read_text(const char *text, struct counts *c, struct cw_tr_status *st)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	memset(c, 0, sizeof(*c));
	r = cw_tr_read_stream(f, "t.jsonl", count_header, count_event, c, st, true);
	fclose(f);
	return r;
}

static void test_reader_complete(void **state)
{
	struct counts c;
	struct cw_tr_status st;

	(void)state;
	assert_int_equal(read_text(HDR OP(1, 10, "/a", "allow") OP(2, 10, "/b", "deny") SUMMARY, &c, &st), 0);
	assert_int_equal(c.headers, 1);
	assert_int_equal(c.events, 3);
	assert_true(st.summary);
	assert_false(st.partial);
	assert_int_equal(st.bad, 0);
}

static void test_reader_truncated_tail(void **state)
{
	struct counts c;
	struct cw_tr_status st;

	(void)state;
	/* a killed run: the last line stops mid-object, without a newline */
	assert_int_equal(read_text(HDR OP(1, 10, "/a", "allow") "{\"type\":\"op\",\"seq\":2,\"ti", &c, &st), 0);
	assert_int_equal(c.events, 1);
	assert_true(st.truncated);
	assert_true(st.partial);
	assert_int_equal(st.bad, 0);
}

static void test_reader_corrupt_middle(void **state)
{
	struct counts c;
	struct cw_tr_status st;

	(void)state;
	assert_int_equal(read_text(HDR OP(1, 10, "/a", "allow") "garbage\n" "{\"type\":\"teleport\"}\n"
				   OP(2, 10, "/b", "allow") SUMMARY, &c, &st), 0);
	assert_int_equal(c.events, 3); /* both ops and the summary */
	assert_int_equal(st.bad, 2);
	assert_true(st.partial);
	assert_false(st.truncated);
	assert_int_equal(c.last_line, 6);
}

static void test_reader_fatal(void **state)
{
	struct counts c;
	struct cw_tr_status st;

	(void)state;
	assert_int_equal(read_text("", &c, &st), -EINVAL);
	assert_int_equal(read_text(OP(1, 10, "/a", "allow"), &c, &st), -EINVAL);
	assert_int_equal(c.events, 0);
	assert_int_equal(read_text("{\"type\":\"header\",\"schema\":\"capwatch.trace/v7\"}\n" OP(1, 10, "/a", "allow"),
				   &c, &st), -EPROTONOSUPPORT);
	assert_int_equal(c.headers, 0);
	/* a second header is skipped, not taken */
	assert_int_equal(read_text(HDR HDR OP(1, 10, "/a", "allow") SUMMARY, &c, &st), 0);
	assert_int_equal(c.headers, 1);
	assert_int_equal(st.bad, 1);
}

static int model_event(void *o, const cJSON *ev, unsigned long ln)
{
	(void)ln;
	return cw_tool_run_add(o, ev);
}

static void test_run_model(void **state)
{
	static const char text[] = HDR
		"{\"type\":\"spawn\",\"seq\":1,\"time\":0.1,\"pid\":11,\"ppid\":10,\"tid\":11,\"via\":\"fork\"}\n"
		"{\"type\":\"exec\",\"seq\":2,\"time\":0.2,\"pid\":11,\"ppid\":10,\"exe\":\"/usr/bin/cc\",\"argv\":[\"cc\",\"-c\"]}\n"
		OP(3, 11, "/a", "allow") OP(4, 11, "/a", "allow") OP(5, 11, "/b", "deny")
		"{\"type\":\"exit\",\"seq\":6,\"time\":0.7,\"pid\":11,\"code\":3,\"signal\":null}\n"
		/* a cycle claimed by a hostile trace must not loop */
		"{\"type\":\"spawn\",\"seq\":7,\"time\":0.8,\"pid\":10,\"ppid\":11,\"tid\":10,\"via\":\"fork\"}\n"
		SUMMARY;
	struct cw_tool_run r;
	struct cw_tproc *p;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	cw_tool_run_init(&r, "t");
	assert_int_equal(cw_tr_read_stream(f, "t", NULL, model_event, &r, &r.st, true), 0);
	fclose(f);
	cw_tool_run_link(&r);
	p = cw_tool_run_find(&r, 11);
	assert_non_null(p);
	assert_string_equal(cw_tproc_name(p), "cc");
	assert_true(p->exited);
	assert_int_equal(p->code, 3);
	assert_int_equal(p->nops, 3);
	assert_int_equal(p->ndenied, 1);
	assert_int_equal(p->uses[CW_CAP_FILESYSTEM_READ], 3);
	assert_int_equal(p->scopes[CW_CAP_FILESYSTEM_READ].n, 2);
	assert_int_equal(r.ndenials, 1);
	assert_string_equal(r.denials[0].scope, "/b");
	assert_int_equal(r.kind_denials[CW_CAP_FILESYSTEM_READ], 1);
	assert_int_equal(r.programs.n, 1);
	assert_null(cw_tool_run_find(&r, 99));
	/* one of the two is the parent of the other, never both */
	assert_true((r.procs[0].parent == SIZE_MAX) != (r.procs[1].parent == SIZE_MAX));
	assert_non_null(r.summary);
	cw_tool_run_free(&r);
}

static void test_sset(void **state)
{
	struct cw_sset s = { 0 };
	char key[32];
	int i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%03d", 999 - i);
		assert_non_null(cw_sset_bump(&s, key));
	}
	assert_non_null(cw_sset_bump(&s, "k500"));
	assert_int_equal(s.n, 1000);
	cw_sset_sort(&s);
	assert_string_equal(s.ents[0].key, "k000");
	assert_string_equal(s.ents[999].key, "k999");
	/* lookups still work after sorting */
	assert_int_equal(cw_sset_get(&s, "k500", false)->count, 2);
	assert_null(cw_sset_get(&s, "nope", false));
	cw_sset_free(&s, NULL);
}

static char *put_to_string(const char *s, size_t max)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cw_tool_put_max(f, s, max);
	fclose(f);
	return buf;
}

static void test_safe_output(void **state)
{
	char *o;

	(void)state;
	o = put_to_string("a\033]0;x\007b\nc", SIZE_MAX);
	assert_string_equal(o, "a\\x1b]0;x\\x07b\\x0ac");
	free(o);
	o = put_to_string("\xc2\x9b" "31m", SIZE_MAX); /* C1 CSI */
	assert_string_equal(o, "\\xc2\\x9b31m");
	free(o);
	o = put_to_string("caf\xc3\xa9", SIZE_MAX); /* UTF-8 passes */
	assert_string_equal(o, "caf\xc3\xa9");
	free(o);
	o = put_to_string("abcdef", 3);
	assert_string_equal(o, "abc...");
	free(o);
	o = put_to_string(NULL, 3);
	assert_string_equal(o, "-");
	free(o);
}

static void test_strings(void **state)
{
	char *s;
	char *argv[] = { "sh", "-c", "echo 'hi' > f", "", "a\nb", NULL };

	(void)state;
	s = cw_tool_utf8_fix("ok\xff\xfe/\xe2\x82\xac/\xed\xa0\x80", '?');
	assert_string_equal(s, "ok?" "?/\xe2\x82\xac/?" "?" "?");
	free(s);
	s = cw_tool_argv_join(argv, 0);
	assert_string_equal(s, "sh -c 'echo '\\''hi'\\'' > f' '' 'a\\x0ab'");
	free(s);
	s = cw_tool_dirname("/a/b/c");
	assert_string_equal(s, "/a/b");
	free(s);
	s = cw_tool_dirname("/a");
	assert_string_equal(s, "/");
	free(s);
	s = cw_tool_dirname("rel");
	assert_string_equal(s, ".");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_complete),
		cmocka_unit_test(test_reader_truncated_tail),
		cmocka_unit_test(test_reader_corrupt_middle),
		cmocka_unit_test(test_reader_fatal),
		cmocka_unit_test(test_run_model),
		cmocka_unit_test(test_sset),
		cmocka_unit_test(test_safe_output),
		cmocka_unit_test(test_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
