# Every test suite has its own fragment. Shell tests exit 0 (pass), 77 (skip,
# with the reason on stderr) or anything else (fail).
TEST_EXTENSIONS = .sh .py
SH_LOG_COMPILER = $(SHELL)
PY_LOG_COMPILER = $(PYTHON3)
EXTRA_DIST += tests/lib.sh tests/cw-backend

# The fuzz smoke run first: it takes 10 s or more (20 in check-long), and
# make -j2 check runs the tests in this order; started last it ran alone
# at the end.
TESTS += tests/fuzz/smoke.sh
include $(srcdir)/tests/unit/policy.mk
include $(srcdir)/tests/unit/json.mk
include $(srcdir)/tests/integration/local.mk
include $(srcdir)/tests/tools/local.mk
include $(srcdir)/tests/escapes/local.mk
include $(srcdir)/tests/bench/local.mk
include $(srcdir)/tests/preload/local.mk
include $(srcdir)/tests/approval/local.mk
include $(srcdir)/tests/hardening/local.mk
include $(srcdir)/tests/container/local.mk

# make check-long: the escape corpus at full length (races of 10 s each,
# 2 s in make check), the HTML timeline of 10,000 processes, the slow
# integration tests (real workloads, tests/integration/local.mk) and, at
# their full lengths (CW_LONG=1), the tests of LONG_LENGTH_TESTS, which
# make check runs shorter (each says why its short length is enough). .ci/run
# runs it after the README's make check. Run as root, make check takes the
# kernel back end (--backend auto); the corpus runs here once more under
# the portable one, and the whole of make check once more (races of its
# length) under the kernel back end with reads decided in the kernel
# (CAPWATCH_KERNEL_READS=1, opt-in: SECURITY.md).
LONG_LENGTH_TESTS = tests/integration/scale.sh tests/fuzz/smoke.sh
check-long:
	CW_LONG=1 CW_RACE_SECONDS=10 $(MAKE) $(AM_MAKEFLAGS) check TESTS="$(ESCAPES_TESTS) $(CW_TOOLS_LONG_TESTS) $(LONG_INTEGRATION_TESTS) $(LONG_LENGTH_TESTS)"
	cp test-suite.log check-long-auto.log
	CW_BACKEND=portable CW_RACE_SECONDS=10 $(MAKE) $(AM_MAKEFLAGS) check TESTS="$(ESCAPES_TESTS)"
	cp test-suite.log check-long-portable.log
	CAPWATCH_KERNEL_READS=1 $(MAKE) $(AM_MAKEFLAGS) check
	cp test-suite.log check-long-kreads.log

# make fuzz-supervisor (issue 14 item 11): the supervisor fuzzer, under an
# ASan+UBSan build of capwatch configured in $(builddir)/fuzz-asan. Not part
# of make check (a minute by default; FUZZ_SECONDS=1800 for the long run).
# See tests/fuzz/run.sh for its settings. make check runs a 10-second
# smoke version against the ordinary build (tests/fuzz/smoke.sh).
check_PROGRAMS += tests/fuzz/fuzz_target
tests_fuzz_fuzz_target_SOURCES = tests/fuzz/fuzz_target.c
tests_fuzz_fuzz_target_LDADD = -lpthread
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/smoke.sh
fuzz-supervisor:
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(SHELL) $(abs_top_srcdir)/tests/fuzz/run.sh
.PHONY: fuzz-supervisor
