# Kernel backstop and fail-closed teardown (issue 4 items 4 and 5):
# Landlock on the command, the process limit, the tree dying with capwatch.
HARDENING_TESTS = \
	tests/hardening/landlock.sh \
	tests/hardening/fork_bomb.sh \
	tests/hardening/supervisor_death.sh
TESTS += $(HARDENING_TESTS)
EXTRA_DIST += $(HARDENING_TESTS)

# The Landlock domain capwatch builds, exercised by a child of the probe.
check_PROGRAMS += tests/hardening/ll_probe
tests_hardening_ll_probe_SOURCES = tests/hardening/ll_probe.c \
	supervisor/landlock.c supervisor/landlock.h supervisor/log.c supervisor/log.h
tests_hardening_ll_probe_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_hardening_ll_probe_LDADD = policy/libcwpolicy.la $(CJSON_LIBS)
