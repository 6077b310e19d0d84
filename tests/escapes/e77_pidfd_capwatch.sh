#!/bin/sh
# E77: pidfd_open(capwatch's pid): a handle on the supervisor (the
# command's parent) for pidfd_send_signal, process_madvise, pidfd_getfd,
# waitid(P_PIDFD), poll on its exit. capwatch's own pid counts as outside
# the tree. Capability sought: process_control over capwatch.
# Expected: refused EPERM, a process_control denial naming capwatch's pid;
# the run completes with a report.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import os, sys
pid = os.getppid() if sys.argv[1] == "PARENT" else int(sys.argv[1])
try:
    fd = os.pidfd_open(pid); print("pidfd ok", fd)
except OSError as e:
    print("pidfd failed", e.errno)'
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
grep -q 'pidfd ok' "$O/bare.out" || esc_control_failed "bare pidfd_open of an outside process failed: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
under readonly -- "$PY" -c "$cmd" PARENT
grep -q 'pidfd ok' "$OUT" && esc_bypass "pidfd_open of capwatch's own pid succeeded under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): getppid()
	# is 0 there (EINVAL), and capwatch's host pid, handed in, is
	# refused: ESRCH with no allow, or EPERM with the denial recorded.
	grep -q 'pidfd failed 22$' "$OUT" || fail "getppid() in the namespace: $(cat "$OUT")"
	under_cwpid readonly -- "$PY" -c "$cmd" @CWPID@
	grep -q 'pidfd ok' "$OUT" && esc_bypass "pidfd_open of capwatch's pid $ESC_CW_PID succeeded under --profile readonly"
	esc_outside_refused "$ESC_CW_PID" "$(sed -n 's/^pidfd failed \([0-9]*\)$/\1/p' "$OUT")" decided
	exit 0
fi
grep -q 'pidfd failed 1$' "$OUT" || esc_bypass "pidfd_open of capwatch was not refused EPERM: $(cat "$OUT")"
expect_denied process_control
exit 0
