/* Unit tests of the run-form command line (cli.c): no kernel needed. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "supervisor/cli.h"

struct parsed {
	struct cw_options o;
	int rc;
	char out[8192], err[1024];
};

/* Parse a NULL-terminated argument list; capture what went to out/err. */
static void parse(struct parsed *p, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	FILE *out = fmemopen(p->out, sizeof(p->out), "w");
	FILE *err = fmemopen(p->err, sizeof(p->err), "w");
	memset(p->out, 0, sizeof(p->out));
	memset(p->err, 0, sizeof(p->err));
	p->rc = cw_cli_parse(argc, argv, &p->o, out, err);
	fclose(out);
	fclose(err);
}

#define ARGV(...) ((char *[]){ "capwatch", __VA_ARGS__, NULL })

static void test_defaults(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, ARGV("--", "make", "-j2"));
	assert_int_equal(p.rc, CW_CLI_CONTINUE);
	assert_string_equal(p.o.profile, "verify");
	assert_int_equal(p.o.report_fd, -1);
	assert_int_equal(p.o.trace_fd, -1);
	assert_int_equal(p.o.nworkspaces, 0);
	assert_false(p.o.observe);
	assert_string_equal(p.o.command[0], "make");
	assert_string_equal(p.o.command[1], "-j2");
	assert_null(p.o.command[2]);
	cw_options_free(&p.o);
}

static void test_all_options(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, ARGV("--profile", "readonly", "--workspace", "/a", "-w", "/b", "--report", "r.json",
		       "--trace", "t.jsonl", "--timeout", "1.5m", "--approve-risk", "ci",
		       "--approve", "external_network:203.0.113.7:80", "--approve", "environment",
		       "--observe", "--env-pass", "FOO", "--inherit-env", "--keep-scratch", "-v", "-v",
		       "--", "cmd", "--profile", "x"));
	assert_int_equal(p.rc, CW_CLI_CONTINUE);
	assert_string_equal(p.o.profile, "readonly");
	assert_int_equal(p.o.nworkspaces, 2);
	assert_string_equal(p.o.workspaces[1], "/b");
	assert_string_equal(p.o.report, "r.json");
	assert_string_equal(p.o.trace, "t.jsonl");
	assert_true(p.o.timeout > 89.9 && p.o.timeout < 90.1);
	assert_string_equal(p.o.approve_risk, "ci");
	assert_int_equal(p.o.ngrants, 2);
	assert_int_equal(p.o.grants[0].cap, CW_CAP_EXTERNAL_NETWORK);
	assert_string_equal(p.o.grants[0].scope, "203.0.113.7:80");
	assert_int_equal(p.o.grants[1].cap, CW_CAP_ENVIRONMENT);
	assert_null(p.o.grants[1].scope);
	assert_true(p.o.observe && p.o.inherit_env && p.o.keep_scratch);
	assert_int_equal(p.o.nenv_pass, 1);
	assert_int_equal(p.o.verbosity, 2);
	/* Options after the command belong to the command. */
	assert_string_equal(p.o.command[0], "cmd");
	assert_string_equal(p.o.command[1], "--profile");
	cw_options_free(&p.o);
}

static void test_trace_fd(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, ARGV("--trace-fd", "7", "--report-fd", "8", "--", "make"));
	assert_int_equal(p.rc, CW_CLI_CONTINUE);
	assert_int_equal(p.o.trace_fd, 7);
	assert_int_equal(p.o.report_fd, 8);
	assert_null(p.o.trace);
	cw_options_free(&p.o);
	assert_int_equal(p.o.trace_fd, -1);
}

static void test_command_without_dashdash(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, ARGV("-q", "ls", "-l"));
	assert_int_equal(p.rc, CW_CLI_CONTINUE);
	assert_int_equal(p.o.verbosity, -1);
	assert_string_equal(p.o.command[0], "ls");
	assert_string_equal(p.o.command[1], "-l");
	cw_options_free(&p.o);
}

static void test_help_and_version(void **state)
{
	(void)state;
	struct parsed p;
	parse(&p, ARGV("--help"));
	assert_int_equal(p.rc, 0);
	assert_non_null(strstr(p.out, "Usage: capwatch"));
	assert_non_null(strstr(p.out, "--report-fd"));
	assert_non_null(strstr(p.out, "--trace-fd"));
	assert_string_equal(p.err, "");
	parse(&p, ARGV("--version"));
	assert_int_equal(p.rc, 0);
	assert_non_null(strstr(p.out, "capwatch "));
}

static void expect_usage_error(char **argv, const char *needle)
{
	struct parsed p;
	parse(&p, argv);
	assert_int_equal(p.rc, CW_EXIT_FAILURE);
	assert_string_equal(p.out, "");
	assert_true(strncmp(p.err, "capwatch: ", 10) == 0);
	if (!strstr(p.err, needle))
		fail_msg("\"%s\" not in \"%s\"", needle, p.err);
}

static void test_usage_errors(void **state)
{
	(void)state;
	expect_usage_error(ARGV("--profile", "verify"), "no command");
	expect_usage_error(ARGV("--timeout", "soon", "--", "true"), "soon");
	expect_usage_error(ARGV("--timeout", "0", "--", "true"), "--timeout");
	expect_usage_error(ARGV("--timeout", "-3", "--", "true"), "--timeout");
	expect_usage_error(ARGV("--report-fd", "1", "--", "true"), "stdout");
	expect_usage_error(ARGV("--report-fd", "x3", "--", "true"), "x3");
	expect_usage_error(ARGV("--approve", "netwrk", "--", "true"), "netwrk");
	expect_usage_error(ARGV("--env-pass", "A=B", "--", "true"), "A=B");
	expect_usage_error(ARGV("--bogus", "--", "true"), "--bogus");
	expect_usage_error(ARGV("--report", "a", "--report-fd", "3", "--", "true"), "exclusive");
	expect_usage_error(ARGV("--trace-fd", "2", "--", "true"), "stderr");
	expect_usage_error(ARGV("--trace-fd", "3x", "--", "true"), "3x");
	expect_usage_error(ARGV("--trace", "t", "--trace-fd", "3", "--", "true"), "exclusive");
	expect_usage_error(ARGV("--trace-fd", "4", "--report-fd", "4", "--", "true"), "--trace-fd 4");
	expect_usage_error(ARGV("--keep-fd", "5", "--trace-fd", "5", "--", "true"), "--trace-fd 5");
	expect_usage_error(ARGV("--trace-fd", "6", "--approval-fd", "6", "--", "true"), "--trace-fd 6");
	expect_usage_error(ARGV("--", ""), "empty");
	/* an empty argument names its option (issue 17 item 14) */
	expect_usage_error(ARGV("--profile", "", "--", "true"), "option --profile needs");
	expect_usage_error(ARGV("-p", "", "--", "true"), "option -p needs");
	expect_usage_error(ARGV("--report=", "--", "true"), "option --report needs");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_trace_fd),
		cmocka_unit_test(test_command_without_dashdash),
		cmocka_unit_test(test_help_and_version),
		cmocka_unit_test(test_usage_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
