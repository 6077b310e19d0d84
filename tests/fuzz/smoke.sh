#!/bin/sh
# make check's short version of `make fuzz-supervisor` (issue 14 item 11):
# the fuzz target for FUZZ_SMOKE_SECONDS (default 20) under the ordinary
# capwatch of this build, no sanitizers, fixed seeds, profile readonly (the
# target can change only the scratch directory). It fails when capwatch
# aborts (a _FORTIFY_SOURCE or stack-protector abort included), hangs, exits
# with another status than the target's, or writes no valid report. The
# long run, under AddressSanitizer and UBSan, is make fuzz-supervisor.
# Skips (77) where no private network namespace can be made.
: "${top_srcdir:?}" "${top_builddir:?}" "${CAPWATCH:?}"
out=$top_builddir/tests/fuzz/smoke-out
rm -rf "$out"
FUZZ_CAPWATCH=$CAPWATCH FUZZ_TARGET=$top_builddir/tests/fuzz/fuzz_target \
FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-20} FUZZ_RUN=10 FUZZ_SEED=${FUZZ_SEED:-1} \
FUZZ_OUT=$out FUZZ_QUIET=1 FUZZ_PROFILES=${FUZZ_PROFILES:-readonly} \
	sh "$top_srcdir/tests/fuzz/run.sh"
rc=$?
[ "$rc" -eq 0 ] && rm -rf "$out"
exit "$rc"
