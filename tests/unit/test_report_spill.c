/* The report's bounded memory (report.h: cw_report_set_spill,
 * cw_report_write): denials past the first KEEP go to a spill file as JSON
 * fragments and come back, in order and byte for byte, when the report is
 * rendered; the long arrays are written element by element.
 *
 * The reference for every comparison is the same report built without a
 * spill file and rendered with cw_report_render (the whole document in
 * memory, as before the spill existed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "report.h"

/* The report does no I/O itself: the test gives it plain calls. */
static int t_write(int fd, const char *p, size_t n, size_t *done)
{
	ssize_t w = write(fd, p, n);

	*done = w > 0 ? (size_t)w : 0;
	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

static ssize_t t_pread(int fd, char *p, size_t n, uint64_t off)
{
	ssize_t k = pread(fd, p, n, (off_t)off);

	return k < 0 ? -errno : k;
}

static void t_close(int fd)
{
	close(fd);
}

static const struct cw_report_io io = { t_write, t_pread, t_close };

static int tmpfd(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {
		char p[] = "/tmp/cw-spill-test-XXXXXX";

		fd = mkostemp(p, O_CLOEXEC);
		assert_true(fd >= 0);
		unlink(p);
	}
	return fd;
}

/* Denial I of a run: names that need escaping and a _hex sibling, U+2028
 * and a C1 control (escaped after printing), hosts, backtraces, and the
 * first three not enforced (observe-like) so that the outcome's match
 * has to skip them. */
static void add_denials(cw_report *r, int n)
{
	struct cw_decision d;
	int i;

	for (i = 0; i < n; i++) {
		const char *bt[] = { "main+0x4b (/x)", "f\xc2\x85g", NULL };
		struct cw_denial_record dr = {
			.pid = 100 + i,
			.program = i % 2 ? "/bin/\xff" : NULL,
			.syscall = i % 5 ? "openat" : "connect",
			.d = &d,
			.time = i * 1e-3,
			.enforced = i > 2,
			.host = i % 4 ? NULL : "h.example",
			.site = i % 3 ? bt[0] : NULL,
			.backtrace = i % 3 ? bt : NULL,
			.annotation_source = "preload",
			/* process numbers 1-5 are build()'s processes (1 ends
			 * well: its denials are tolerated), 0 is none */
			.proc = (uint64_t)(i % 6),
		};

		memset(&d, 0, sizeof(d));
		d.cap = i % 3 ? CW_CAP_FILESYSTEM_READ : CW_CAP_EXTERNAL_NETWORK;
		d.verdict = CW_DENY;
		snprintf(d.scope, sizeof(d.scope), "/ws/f%d\xe2\x80\xa8\xfe", i % 7);
		snprintf(d.rule, sizeof(d.rule), "rule%d", i % 5);
		snprintf(d.reason, sizeof(d.reason), "reason \"%d\"\n", i);
		assert_int_equal(cw_report_add_denial(r, &dr), 0);
		assert_int_equal(cw_report_count_capability(r, d.cap, d.scope, CW_DENY), 0);
	}
}

/* A complete report; SPILL: -1 none, else the descriptor (or DISCARD). */
static cw_report *build(int n, int spill, size_t keep)
{
	cw_report *r = cw_report_new();
	const char *args[] = { "-c", "x\xff", NULL }, *roots[] = { "/ws" };
	const char *layers[] = { "seccomp-bpf", "ptrace", NULL };
	struct cw_enforcement e = { .backend = "seccomp-unotify+ptrace", .level = "enforce",
				    .downgrade_reason = "", .layers = layers };
	static struct cw_decision head; /* 64 KiB */
	struct cw_report_headline hl;
	int i;

	assert_non_null(r);
	assert_int_equal(cw_report_set_run(r, "readonly", "/bin/sh", args, "/ws", roots, 1), 0);
	assert_int_equal(cw_report_set_enforcement(r, &e), 0);
	if (spill != -1)
		assert_int_equal(cw_report_set_spill(r, spill, keep, &io), 0);
	add_denials(r, n);
	for (i = 0; i < 5; i++) {
		const char *av[] = { "a", "b\xff", NULL };
		struct cw_proc_record p = {
			.pid = i + 10, .ppid = 1, .exe = "/bin/x", .argv = i % 2 ? av : NULL,
			.start = i, .end = i == 2 ? -1 : i + 1, .exited = i != 3, .code = i,
			.signal = i == 3 ? 9 : 0, .preload = "present", .proc = (uint64_t)i + 1,
		};
		assert_int_equal(cw_report_add_process(r, &p), 0);
	}
	assert_int_equal(cw_report_add_change(r, "created", "/ws/a", NULL), 0);
	/* the headline: the last enforced denial whose process did not end
	 * well (test_spill_outcome_denial) */
	assert_int_equal(cw_report_headline(r, &head, &hl), 0);
	assert_int_equal(cw_report_set_outcome(r, "denied", "enforcement_denied", true, 1, 0,
					       hl.found ? &head : NULL), 0);
	cw_report_set_stats(r, 5, 6, 1.5);
	return r;
}

static char *read_fd(int fd)
{
	off_t n = lseek(fd, 0, SEEK_END);
	char *buf;

	assert_true(n >= 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)n, 0), n);
	buf[n] = '\0';
	return buf;
}

/* Spilled at every split point, rendered in memory and written to a
 * descriptor: the same bytes as the report that kept everything. */
static void test_spill_same_document(void **state)
{
	const int n = 40;
	const size_t keeps[] = { 0, 1, 2, 3, 4, 5, 17, 39, 40, 41, 1000 };
	cw_report *ref = build(n, -1, 0);
	char *want = cw_report_render(ref);
	size_t i;

	(void)state;
	assert_non_null(want);
	for (i = 0; i < sizeof(keeps) / sizeof(keeps[0]); i++) {
		cw_report *r = build(n, tmpfd(), keeps[i]);
		char *got = cw_report_render(r), *written;
		int out = tmpfd();

		assert_non_null(got);
		assert_string_equal(got, want);
		assert_int_equal(cw_report_denial_count(r), n);
		assert_int_equal(cw_report_write(r, out, &io), 0);
		written = read_fd(out);
		assert_string_equal(written, want);
		free(written);
		close(out);
		free(got);
		cw_report_free(r);
	}
	/* the reference itself written to a descriptor */
	{
		int out = tmpfd();
		char *written;

		assert_int_equal(cw_report_write(ref, out, &io), 0);
		written = read_fd(out);
		assert_string_equal(written, want);
		free(written);
		close(out);
	}
	free(want);
	cw_report_free(ref);
}

/* The outcome's denial names where its denial happened even when that
 * record is in the spill file only: the last enforced one (3-9) not
 * tolerated, 9 (process 3, still running at the end); 7 is process 1's,
 * which exited 0. Each element says whether it was tolerated, read back
 * from the spill file as from memory. */
static void test_spill_outcome_denial(void **state)
{
	cw_report *r = build(10, tmpfd(), 0);
	char *text = cw_report_render(r);
	cJSON *root, *dn;

	(void)state;
	assert_non_null(text);
	root = cJSON_Parse(text);
	assert_non_null(root);
	dn = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "outcome"), "denial");
	assert_non_null(dn);
	assert_int_equal(cJSON_GetObjectItem(dn, "pid")->valueint, 109);
	assert_string_equal(cJSON_GetObjectItem(dn, "syscall")->valuestring, "openat");
	assert_string_equal(cJSON_GetObjectItem(dn, "program")->valuestring, "/bin/\xef\xbf\xbd");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "denials")), 10);
	for (int i = 0; i < 10; i++) {
		cJSON *el = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "denials"), i);

		assert_int_equal(cJSON_GetObjectItem(el, "pid")->valueint, 100 + i);
		assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(el, "tolerated")), i % 6 == 1);
	}
	cJSON_Delete(root);
	free(text);
	cw_report_free(r);
}

/* One denial of process PROC at TIME, its next action NEXT. */
static void deny(cw_report *r, uint64_t proc, double time, cw_cap_kind cap, cw_next_action next,
		 bool enforced)
{
	static struct cw_decision d;
	struct cw_denial_record dr = { .pid = (int)proc + 1000, .syscall = "connect", .d = &d,
				       .time = time, .enforced = enforced, .proc = proc };

	memset(&d, 0, sizeof(d));
	d.cap = cap;
	d.verdict = CW_DENY;
	d.next_action = next;
	snprintf(d.scope, sizeof(d.scope), "s%.0f", time);
	snprintf(d.rule, sizeof(d.rule), "r%llu", (unsigned long long)proc);
	assert_int_equal(cw_report_add_denial(r, &dr), 0);
}

static void ended(cw_report *r, uint64_t proc, bool ok)
{
	struct cw_proc_record p = { .pid = (int)proc + 1000, .ppid = 1, .start = 0, .end = 9,
				    .exited = true, .code = ok ? 0 : 1, .proc = proc };

	assert_int_equal(cw_report_add_process(r, &p), 0);
}

/* Issue 17 item 11: the headline is the denial that explains the outcome.
 * A process that went on and succeeded tolerated its denials; of the
 * rest, one whose next step is an approval comes first, then the latest;
 * a run whose denials were all tolerated has none. */
static void test_headline(void **state)
{
	static struct cw_decision h;
	struct cw_report_headline hl;
	cw_report *r = cw_report_new();

	(void)state;
	/* process 1 (fails): a secret read, then a connect that may be
	 * approved, then another read; process 2 (succeeds) later; an
	 * observe-only denial (not enforced) latest of all */
	deny(r, 1, 1, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
	deny(r, 1, 2, CW_CAP_EXTERNAL_NETWORK, CW_NEXT_REQUEST_APPROVAL, true);
	deny(r, 1, 3, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
	deny(r, 2, 4, CW_CAP_WORKSPACE_WRITE, CW_NEXT_REQUEST_APPROVAL, true);
	deny(r, 1, 5, CW_CAP_UNRESTRICTED, CW_NEXT_REQUEST_APPROVAL, false);
	ended(r, 1, false);
	ended(r, 2, true);
	assert_int_equal(cw_report_headline(r, &h, &hl), 0);
	assert_true(hl.found);
	assert_int_equal(hl.enforced, 4);
	assert_int_equal(hl.tolerated, 1);
	assert_int_equal(h.cap, CW_CAP_EXTERNAL_NETWORK);
	assert_string_equal(h.scope, "s2");
	assert_int_equal(h.next_action, CW_NEXT_REQUEST_APPROVAL);
	assert_int_equal(hl.pid, 1001);
	assert_string_equal(hl.syscall, "connect");
	cw_report_free(r);

	/* of the same rank, the latest; a denial with no process (0) is
	 * never tolerated */
	r = cw_report_new();
	deny(r, 1, 1, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
	deny(r, 0, 2, CW_CAP_PROCESS_CONTROL, CW_NEXT_CHANGE_COMMAND, true);
	deny(r, 3, 3, CW_CAP_WORKSPACE_WRITE, CW_NEXT_CHANGE_COMMAND, true);
	ended(r, 1, false);
	ended(r, 3, true);
	assert_int_equal(cw_report_headline(r, &h, &hl), 0);
	assert_true(hl.found);
	assert_int_equal(h.cap, CW_CAP_PROCESS_CONTROL);
	assert_int_equal(hl.tolerated, 1);
	cw_report_free(r);

	/* every denial tolerated: no headline; a process still running at
	 * the end, or killed, did not end well */
	r = cw_report_new();
	deny(r, 1, 1, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
	deny(r, 1, 2, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
	ended(r, 1, true);
	assert_int_equal(cw_report_headline(r, &h, &hl), 0);
	assert_false(hl.found);
	assert_int_equal(hl.enforced, 2);
	assert_int_equal(hl.tolerated, 2);
	{
		struct cw_proc_record run = { .pid = 7, .start = 0, .end = -1, .exited = true, .proc = 4 };
		struct cw_proc_record kill = { .pid = 8, .start = 0, .end = 1, .signal = 9, .proc = 5 };

		deny(r, 4, 3, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
		deny(r, 5, 4, CW_CAP_FILESYSTEM_READ, CW_NEXT_CHANGE_COMMAND, true);
		assert_int_equal(cw_report_add_process(r, &run), 0);
		assert_int_equal(cw_report_add_process(r, &kill), 0);
	}
	assert_int_equal(cw_report_headline(r, &h, &hl), 0);
	assert_true(hl.found);
	assert_string_equal(h.scope, "s4");
	assert_int_equal(hl.tolerated, 2);
	cw_report_free(r);
}

/* A spill file that cannot be written (a full disk): nothing is lost and
 * nothing reordered; the denials that could not go out stay in memory. */
static void test_spill_write_fails(void **state)
{
	const int n = 600; /* more than the 64 KiB spill buffer holds */
	cw_report *ref = build(n, -1, 0), *r;
	char *want = cw_report_render(ref), *got;
	int full = open("/dev/full", O_RDWR | O_CLOEXEC);

	(void)state;
	if (full < 0)
		skip();
	r = build(n, full, 16);
	got = cw_report_render(r);
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(cw_report_denial_count(r), n);
	free(got);
	free(want);
	cw_report_free(r);
	cw_report_free(ref);
}

/* Discard mode (no report will be written): counted, not kept. */
static void test_spill_discard(void **state)
{
	cw_report *r = build(300, CW_REPORT_SPILL_DISCARD, 7);
	char *text = cw_report_render(r);
	cJSON *root;

	(void)state;
	assert_int_equal(cw_report_denial_count(r), 300);
	root = cJSON_Parse(text);
	assert_non_null(root);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "denials")), 7);
	cJSON_Delete(root);
	free(text);
	assert_int_equal(cw_report_set_spill(r, tmpfd(), 1, &io), -EBUSY);
	cw_report_free(r);
}

static size_t count(const char *s, const char *needle)
{
	size_t k = 0;

	while ((s = strstr(s, needle))) {
		k++;
		s += strlen(needle);
	}
	return k;
}

/* 50,000 denials: the heap in use stays about what 256 records and one
 * spill buffer take (well under 1 MiB; kept in memory they took about
 * 19 MiB, 384 bytes each), and the written report lists all of them. */
static void test_spill_bounded(void **state)
{
	const int n = 50000;
	size_t before, after;
	cw_report *r;
	char *text;
	int out;

	(void)state;
	before = mallinfo2().uordblks;
	r = build(n, tmpfd(), CW_REPORT_KEEP_DENIALS);
	after = mallinfo2().uordblks;
	print_message("heap in use for %d denials: %zu bytes\n", n, after - before);
	assert_true(after - before < 1024 * 1024);
	out = tmpfd();
	assert_int_equal(cw_report_write(r, out, &io), 0);
	text = read_fd(out);
	/* "enforced" is a key of denial records only */
	assert_int_equal(count(text, "\"enforced\":"), n);
	free(text);
	close(out);
	cw_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spill_same_document),
		cmocka_unit_test(test_spill_outcome_denial),
		cmocka_unit_test(test_headline),
		cmocka_unit_test(test_spill_write_fails),
		cmocka_unit_test(test_spill_discard),
		cmocka_unit_test(test_spill_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
