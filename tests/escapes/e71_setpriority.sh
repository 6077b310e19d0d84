#!/bin/sh
# E71: setpriority(PRIO_PROCESS, pid, 19) on a process outside the tree (a
# sleep this test started before capwatch): renicing what the user runs
# beside the command. Capability sought: process_control (scalar pid in a
# register, no kill-family call).
# Expected after the fix: setpriority/ set_priority aimed outside the tree is
# refused EPERM and recorded as a process_control denial naming the pid;
# the victim's nice value stays 0.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
nice_of() { awk '{print $19}' "/proc/$1/stat"; }
cmd='import os, sys
try:
    os.setpriority(os.PRIO_PROCESS, int(sys.argv[1]), 19); print("renice ok")
except OSError as e:
    print("renice failed", e.errno)'
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(nice_of "$VICTIM_PID")" = 19 ] || esc_control_failed "bare setpriority did not renice the victim: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
victim_start sleep 60
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(nice_of "$VICTIM_PID")" = 0 ] || esc_bypass "setpriority reniced a process outside the tree to $(nice_of "$VICTIM_PID") under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# victim has no number there: ESRCH, and no allow recorded for it.
	grep -q 'renice failed 3$' "$OUT" || esc_bypass "setpriority on $VICTIM_PID outside the tree was not ESRCH in its PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
	esc_kill "$VICTIM_PID"
	exit 0
fi
grep -q 'renice failed 1$' "$OUT" || esc_bypass "setpriority on an outside pid was not refused EPERM: $(cat "$OUT")"
expect_denied process_control
esc_kill "$VICTIM_PID"
exit 0
