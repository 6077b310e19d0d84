# Kernel backstop and fail-closed teardown (issue 4 items 4 and 5):
# Landlock on the command, the process limit, the tree dying with capwatch.
HARDENING_TESTS = \
	tests/hardening/landlock.sh \
	tests/hardening/fork_bomb.sh \
	tests/hardening/supervisor_death.sh \
	tests/hardening/denial_flood.sh \
	tests/hardening/fork_bomb_count.sh \
	tests/hardening/landlock_outside.sh \
	tests/hardening/memory_bounds.sh
TESTS += $(HARDENING_TESTS)
EXTRA_DIST += $(HARDENING_TESTS)

# The Landlock domain capwatch builds, exercised by a child of the probe.
check_PROGRAMS += tests/hardening/ll_probe
tests_hardening_ll_probe_SOURCES = tests/hardening/ll_probe.c \
	supervisor/landlock.c supervisor/landlock.h supervisor/log.c supervisor/log.h
tests_hardening_ll_probe_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_hardening_ll_probe_LDADD = policy/libcwpolicy.la $(CJSON_LIBS)

# Bounded memory per denial: a loop of denied opens, and the supervisor's
# peak RSS written at its exit by the benchmark's cwb_hwm.so (built here
# too, since make check does not build the benchmark).
check_PROGRAMS += tests/hardening/deny_loop
tests_hardening_deny_loop_SOURCES = tests/hardening/deny_loop.c
EXTRA_tests_hardening_deny_loop_DEPENDENCIES = tests/hardening/cwb_hwm.so
CLEANFILES += tests/hardening/cwb_hwm.so
tests/hardening/cwb_hwm.so: $(srcdir)/tests/bench/cwb_hwm.c
	@$(MKDIR_P) tests/hardening
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -shared -fPIC -o $@ $(srcdir)/tests/bench/cwb_hwm.c

# Bounded memory whatever the command passes or renames (issue 15, red
# team rt-rob F1, F2, F4): the command side, measured by cwb_hwm.so too.
check_PROGRAMS += tests/hardening/mem_hog
tests_hardening_mem_hog_SOURCES = tests/hardening/mem_hog.c
EXTRA_tests_hardening_mem_hog_DEPENDENCIES = tests/hardening/cwb_hwm.so
