# The preload layer (issue 5): host names and call sites in reports, the
# channel's resistance to forgery and floods, static binaries, and the
# preload's transparency (fork, vfork, threads, signal handlers, cleared
# environments). Network cases run in a private network namespace with a
# test hosts file bind-mounted over /etc/hosts (unshare -nm).
PRELOAD_TESTS = \
	tests/preload/host.sh \
	tests/preload/forge.sh \
	tests/preload/static.sh \
	tests/preload/robust.sh \
	tests/preload/setuid.sh \
	tests/preload/lazy.sh \
	tests/preload/chanenv.sh \
	tests/preload/rate.sh \
	tests/preload/sanitizers.sh
TESTS += $(PRELOAD_TESTS)
EXTRA_DIST += $(PRELOAD_TESTS) tests/preload/lib.sh

# The receiving side's validator, rate limit, attribution and lookups,
# driven directly (supervisor/annot*.c are included; the run is stubbed).
check_PROGRAMS += tests/preload/test_annot
TESTS += tests/preload/test_annot
tests_preload_test_annot_SOURCES = tests/preload/test_annot.c
tests_preload_test_annot_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_preload_test_annot_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)

check_PROGRAMS += tests/preload/pl_net tests/preload/pl_forge tests/preload/pl_static tests/preload/pl_robust
tests_preload_pl_net_SOURCES = tests/preload/src/pl_net.c
tests_preload_pl_forge_SOURCES = tests/preload/src/pl_forge.c preload/proto.h
tests_preload_pl_robust_SOURCES = tests/preload/src/pl_robust.c
tests_preload_pl_robust_LDADD = -lpthread
# Linked statically: no loader, so no preload in it.
tests_preload_pl_static_SOURCES = tests/preload/src/pl_static.c
tests_preload_pl_static_LDFLAGS = -all-static
