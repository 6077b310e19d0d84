#!/bin/sh
# E72: sched_setaffinity(pid, {cpu0}) on a process outside the tree (a
# sleep this test started): pins what the user runs beside the command.
# Capability sought: process_control.
# Expected after the fix: EPERM, a process_control denial naming the pid;
# the victim's Cpus_allowed_list is unchanged.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs to see an affinity change"
aff_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }
cmd='import os, sys
try:
    os.sched_setaffinity(int(sys.argv[1]), {0}); print("affinity ok")
except OSError as e:
    print("affinity failed", e.errno)'
victim_start sleep 60
was=$(aff_of "$VICTIM_PID")
bare "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(aff_of "$VICTIM_PID")" = 0 ] && [ "$was" != 0 ] || esc_control_failed "bare sched_setaffinity did not pin the victim ($was -> $(aff_of "$VICTIM_PID")): $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
victim_start sleep 60
was=$(aff_of "$VICTIM_PID")
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
[ "$(aff_of "$VICTIM_PID")" = "$was" ] || esc_bypass "sched_setaffinity changed an outside process's CPUs ($was -> $(aff_of "$VICTIM_PID")) under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# victim has no number there: ESRCH, and no allow recorded for it.
	grep -q 'affinity failed 3$' "$OUT" || esc_bypass "sched_setaffinity on $VICTIM_PID outside the tree was not ESRCH in its PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
	esc_kill "$VICTIM_PID"
	exit 0
fi
grep -q 'affinity failed 1$' "$OUT" || esc_bypass "sched_setaffinity on an outside pid was not refused EPERM: $(cat "$OUT")"
expect_denied process_control
esc_kill "$VICTIM_PID"
exit 0
