#!/bin/sh
# E74: ioprio_set(IOPRIO_WHO_PROCESS, pid, IDLE class) on a process outside
# the tree (a sleep this test started): its disk I/O starves.
# Capability sought: process_control.
# Expected after the fix: EPERM, a process_control denial naming the pid;
# ionice -p shows the victim's class unchanged.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
command -v ionice >/dev/null || skip "ionice not installed"
cmd='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(251, 1, int(sys.argv[1]), 3 << 13)  # ioprio_set(WHO_PROCESS, pid, CLASS_IDLE)
print("ioprio ok" if r == 0 else "ioprio failed %d" % ctypes.get_errno())'
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
ionice -p "$VICTIM_PID" | grep -q idle || esc_control_failed "bare ioprio_set did not make the victim idle: $(cat "$O/bare.out"); $(ionice -p "$VICTIM_PID")"
esc_kill "$VICTIM_PID"
victim_start sleep 60
was=$(ionice -p "$VICTIM_PID")
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(ionice -p "$VICTIM_PID")" = "$was" ] || esc_bypass "ioprio_set changed an outside process's I/O class ($was -> $(ionice -p "$VICTIM_PID")) under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# victim has no number there: ESRCH, and no allow recorded for it.
	grep -q 'ioprio failed 3$' "$OUT" || esc_bypass "ioprio_set on $VICTIM_PID outside the tree was not ESRCH in its PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
	esc_kill "$VICTIM_PID"
	exit 0
fi
grep -q 'ioprio failed 1$' "$OUT" || esc_bypass "ioprio_set on an outside pid was not refused EPERM: $(cat "$OUT")"
expect_denied process_control
esc_kill "$VICTIM_PID"
exit 0
