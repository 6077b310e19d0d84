#!/bin/sh
# E73: sched_setscheduler(pid, SCHED_IDLE) on a process outside the tree (a
# sleep this test started): starves what the user runs beside the command
# (SCHED_FIFO would do the opposite; SCHED_IDLE is the harmless probe).
# Capability sought: process_control.
# Expected after the fix: EPERM, a process_control denial naming the pid;
# the victim's policy stays SCHED_OTHER (0).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
pol_of() { awk '{print $41}' "/proc/$1/stat"; }
cmd='import os, sys
try:
    os.sched_setscheduler(int(sys.argv[1]), os.SCHED_IDLE, os.sched_param(0)); print("sched ok")
except OSError as e:
    print("sched failed", e.errno)'
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(pol_of "$VICTIM_PID")" = 5 ] || esc_control_failed "bare sched_setscheduler did not make the victim SCHED_IDLE: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
victim_start sleep 60
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(pol_of "$VICTIM_PID")" = 0 ] || esc_bypass "sched_setscheduler changed an outside process's policy to $(pol_of "$VICTIM_PID") under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# victim has no number there: ESRCH, and no allow recorded for it.
	grep -q 'sched failed 3$' "$OUT" || esc_bypass "sched_setscheduler on $VICTIM_PID outside the tree was not ESRCH in its PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
	esc_kill "$VICTIM_PID"
	exit 0
fi
grep -q 'sched failed 1$' "$OUT" || esc_bypass "sched_setscheduler on an outside pid was not refused EPERM: $(cat "$OUT")"
expect_denied process_control
esc_kill "$VICTIM_PID"
exit 0
