/* The approval options of the run form (cli.c): --approval-socket,
 * --approval-fd, --approval-timeout. No kernel needed. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "supervisor/cli.h"

static int parse(struct cw_options *o, char **argv, char *err, size_t errsz)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	char out[8192];
	FILE *fo = fmemopen(out, sizeof out, "w");
	FILE *fe = fmemopen(err, errsz, "w");
	memset(err, 0, errsz);
	int rc = cw_cli_parse(argc, argv, o, fo, fe);
	fclose(fo);
	fclose(fe);
	return rc;
}

#define ARGV(...) ((char *[]){ "capwatch", __VA_ARGS__, NULL })

static void test_defaults(void **state)
{
	(void)state;
	struct cw_options o;
	char err[512];
	assert_int_equal(parse(&o, ARGV("--", "true"), err, sizeof err), CW_CLI_CONTINUE);
	assert_null(o.approval_socket);
	assert_int_equal(o.approval_fd, -1);
	assert_true(o.approval_timeout == 0);
	cw_options_free(&o);
}

static void test_given(void **state)
{
	(void)state;
	struct cw_options o;
	char err[512];
	assert_int_equal(parse(&o, ARGV("--approval-socket", "/run/cw.sock", "--approval-fd", "7",
					"--approval-timeout", "2.5", "--", "true"), err, sizeof err),
			 CW_CLI_CONTINUE);
	assert_string_equal(o.approval_socket, "/run/cw.sock");
	assert_int_equal(o.approval_fd, 7);
	assert_true(o.approval_timeout == 2.5);
	assert_string_equal(o.command[0], "true");
	cw_options_free(&o);
}

static void test_errors(void **state)
{
	(void)state;
	struct cw_options o;
	char err[512];
	assert_int_equal(parse(&o, ARGV("--approval-fd", "2", "--", "true"), err, sizeof err), CW_EXIT_FAILURE);
	assert_non_null(strstr(err, "--approval-fd"));
	assert_int_equal(parse(&o, ARGV("--approval-fd", "x", "--", "true"), err, sizeof err), CW_EXIT_FAILURE);
	assert_int_equal(parse(&o, ARGV("--approval-timeout", "0", "--", "true"), err, sizeof err), CW_EXIT_FAILURE);
	assert_non_null(strstr(err, "--approval-timeout"));
	assert_int_equal(parse(&o, ARGV("--approval-timeout", "soon", "--", "true"), err, sizeof err), CW_EXIT_FAILURE);
	assert_int_equal(parse(&o, ARGV("--approval-socket", "", "--", "true"), err, sizeof err), CW_EXIT_FAILURE);
}

static void test_help_mentions(void **state)
{
	(void)state;
	struct cw_options o;
	char out[8192], err[512];
	char *argv[] = { "capwatch", "--help", NULL };
	FILE *fo = fmemopen(out, sizeof out, "w");
	FILE *fe = fmemopen(err, sizeof err, "w");
	memset(out, 0, sizeof out);
	assert_int_equal(cw_cli_parse(2, argv, &o, fo, fe), 0);
	fclose(fo);
	fclose(fe);
	assert_non_null(strstr(out, "--approval-socket"));
	assert_non_null(strstr(out, "--approval-timeout"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_given),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_mentions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
