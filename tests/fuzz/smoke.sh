#!/bin/sh
# make check's short version of `make fuzz-supervisor` (issue 14 item 11):
# the fuzz target for FUZZ_SMOKE_SECONDS (default 10, 20 in make
# check-long: CW_LONG=1) under the ordinary
# capwatch of this build, no sanitizers, fixed seeds, profile readonly (the
# target can change only the scratch directory). It fails when capwatch
# aborts (a _FORTIFY_SOURCE or stack-protector abort included), hangs, exits
# with another status than the target's, or writes no valid report. The
# long run, under AddressSanitizer and UBSan, is make fuzz-supervisor.
# 10 s is one target run (seed 1), ten times what the one crash fuzzing
# has found needed: before d7ef5d0 (an AF_UNIX address longer than
# sockaddr_un) the first run failed within a second (SECURITY.md,
# "Supervisor fuzzing"). make check-long adds the second run (seed 2).
# Skips (77) where no private network namespace can be made.
: "${top_srcdir:?}" "${top_builddir:?}" "${CAPWATCH:?}"
out=$top_builddir/tests/fuzz/smoke-out
secs=${FUZZ_SMOKE_SECONDS:-10}
[ -n "${CW_LONG:-}" ] && [ -z "${FUZZ_SMOKE_SECONDS:-}" ] && secs=20
rm -rf "$out"
FUZZ_CAPWATCH=$CAPWATCH FUZZ_TARGET=$top_builddir/tests/fuzz/fuzz_target \
FUZZ_SECONDS=$secs FUZZ_RUN=10 FUZZ_SEED=${FUZZ_SEED:-1} \
FUZZ_OUT=$out FUZZ_QUIET=1 FUZZ_PROFILES=${FUZZ_PROFILES:-readonly} \
	sh "$top_srcdir/tests/fuzz/run.sh"
rc=$?
[ "$rc" -eq 0 ] && rm -rf "$out"
exit "$rc"
