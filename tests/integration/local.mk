# Integration tests: real commands under the real capwatch binary.
# Each is a shell script (exit 0 pass, 77 skip with the reason, else fail)
# that works in its own temp dir; helpers in tests/lib.sh and cwcheck.py.
INTEGRATION_TESTS = \
	tests/integration/exitcodes.sh \
	tests/integration/eintr.sh \
	tests/integration/setid.sh \
	tests/integration/privs.sh tests/integration/backend.sh tests/integration/kernel_reads.sh \
	tests/integration/kernel_fresh_programs.sh \
	tests/integration/secret_content.sh \
	tests/integration/secret_links_foreign.sh \
	tests/integration/denial_summary.sh \
	tests/integration/signals_leftover.sh \
	tests/integration/pidfd_procdir.sh \
	tests/integration/pidfd_open_invalid.sh \
	tests/integration/xattr_caps.sh \
	tests/integration/netlink_read.sh \
	tests/integration/unix_bind_names.sh \
	tests/integration/enoent.sh \
	tests/integration/git_verify.sh \
	tests/integration/caches.sh \
	tests/integration/ioctl_unknown.sh \
	tests/integration/dotpaths.sh \
	tests/integration/dotdot_missing.sh \
	tests/integration/passthrough.sh \
	tests/integration/none.sh \
	tests/integration/readonly.sh \
	tests/integration/secrets.sh \
	tests/integration/network.sh \
	tests/integration/build.sh \
	tests/integration/timeout.sh \
	tests/integration/trace.sh \
	tests/integration/trace_fd.sh \
	tests/integration/paths.sh \
	tests/integration/env.sh \
	tests/integration/proc.sh \
	tests/integration/changes.sh \
	tests/integration/protect.sh \
	tests/integration/signals.sh \
	tests/integration/profile.sh \
	tests/integration/tty.sh \
	tests/integration/degraded.sh \
	tests/integration/matrix.sh \
	tests/integration/replay.sh \
	tests/integration/scale.sh \
	tests/integration/special_opens.sh \
	tests/integration/colocate.sh \
	tests/integration/mergedusr.sh \
	tests/integration/robust_unix_addr.sh \
	tests/integration/robust_limits.sh \
	tests/integration/robust_report.sh \
	tests/integration/robust_timeout.sh
TESTS += $(INTEGRATION_TESTS)
# Helpers the scripts run (built by make check).
check_PROGRAMS += tests/integration/src/eintr_loop tests/integration/src/fork_exit
# Slow ones, run by make check-long only (tests/local.mk): Debian's zlib
# and jq built and tested under capwatch, jq's tests under valgrind;
# CPython's regression tests bare, under --observe and under verify.
LONG_INTEGRATION_TESTS = tests/integration/workloads.sh \
	tests/integration/cpython.sh
EXTRA_DIST += $(INTEGRATION_TESTS) $(LONG_INTEGRATION_TESTS) \
	tests/integration/cwcheck.py tests/integration/README.md \
	tests/integration/cpython-expected.txt \
	tests/integration/cproject/Makefile \
	tests/integration/cproject/greet.h \
	tests/integration/cproject/main.c \
	tests/integration/cproject/greet.c \
	tests/integration/cproject/checksum.c \
	tests/integration/cproject/fib.c \
	tests/integration/robust/unixlen.py \
	tests/integration/robust/fanstall.py
# The demo (demo/, run by tools/demo) ships in the tarball with the tests
# that exercise the same paths; it has no fragment of its own.
dist_noinst_SCRIPTS += demo/build.sh demo/run-demo.sh
EXTRA_DIST += demo/hello.c
