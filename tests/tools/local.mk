# Tests of the trace tools (replay, explain, learn, diff, export, profiles).
# gen_trace writes synthetic traces with the policy library's own writers;
# cwtool runs the tools without the supervisor (used when capwatch does not
# dispatch subcommands yet). Included from tests/local.mk.
check_PROGRAMS += tests/tools/gen_trace tests/tools/cwtool
tests_tools_gen_trace_SOURCES = tests/tools/gen_trace.c
tests_tools_gen_trace_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_tools_gen_trace_LDADD = policy/libcwpolicy.la $(CJSON_LIBS)
tests_tools_cwtool_SOURCES = tests/tools/cwtool.c $(CW_TOOLS_SOURCES) \
	policy/profile_load.h policy/profile_load.c
tests_tools_cwtool_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_tools_cwtool_LDADD = policy/libcwpolicy.la $(CJSON_LIBS)

# the shared plumbing, under cmocka
check_PROGRAMS += tests/tools/test_common
TESTS += tests/tools/test_common
tests_tools_test_common_SOURCES = tests/tools/test_common.c tools/common.h tools/common.c \
	tools/sset.h tools/sset.c tools/trace_reader.h tools/trace_reader.c \
	tools/run_model.h tools/run_model.c \
	policy/profile_load.h policy/profile_load.c
tests_tools_test_common_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_tools_test_common_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)

CW_TOOLS_TESTS = \
	tests/tools/test_replay.sh tests/tools/test_explain.sh \
	tests/tools/test_learn.sh tests/tools/test_diff.sh \
	tests/tools/test_export.sh tests/tools/test_sarif.sh tests/tools/test_profiles.sh \
	tests/tools/test_badinput.sh tests/tools/test_e2e.sh \
	tests/tools/html_chromium.sh tests/tools/html_timeline.sh
TESTS += $(CW_TOOLS_TESTS)
EXTRA_DIST += $(CW_TOOLS_TESTS) tests/tools/lib.sh tests/tools/cdp.py tests/tools/timeline_check.py

# make check-long (tests/local.mk): the HTML timeline of 10,000 processes
CW_TOOLS_LONG_TESTS = tests/tools/html_timeline_long.sh
EXTRA_DIST += $(CW_TOOLS_LONG_TESTS) docs/timeline.png
