#!/bin/sh
# E34: setsid + double fork to outlive the run: after capwatch returns (the
# command exited, or --timeout), a detached grandchild must not go on and
# act. Its act: create a marker in the workspace (allowed by verify) once
# the run is over.
#
# Waits with a reason, not sleeps (issue 16 item 7): the grandchild holds
# a lock on $W/gc.lock for its life (flock: released when it is gone) and
# says so ($W/HELD) before the command exits; it acts when the test,
# after capwatch returned, creates $W/GO, or after 2 s without one
# (capwatch waits for the whole tree: the grandchild then acts inside the
# run, as when it slept 2 s). The test then takes the lock: it gets it
# once the grandchild is gone, having acted or not.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
# daemon TICKS: the command; the grandchild acts after TICKS x 50 ms at most.
daemon() {
	gc="exec 9>>$W/gc.lock; flock 9 && : >$W/HELD || exit 1
i=0; while [ ! -e $W/GO ] && [ \$i -lt $1 ]; do sleep 0.05; i=\$((i + 1)); done
touch $W/LATE"
	held="i=0; while [ ! -e $W/HELD ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done"
	echo "setsid sh -c '$gc' </dev/null >/dev/null 2>&1 & $held"
}
# gc_gone: the run is over; let a grandchild act, wait until it is gone.
gc_gone() {
	[ -e "$W/HELD" ] || { cat "$OUT" 2>/dev/null >&2; fail "the grandchild never held its lock ($1)"; }
	: >"$W/GO"
	flock -w 30 "$W/gc.lock" true || fail "the grandchild still held its lock 30 s after the run ($1)"
}
gc_reset() { rm -f "$W/LATE" "$W/GO" "$W/HELD"; }

gc_reset
bare sh -c "$(daemon 40)"
gc_gone bare
[ -e "$W/LATE" ] || esc_control_failed "bare daemonised child did not act"

gc_reset
under verify -- sh -c "$(daemon 40)"
gc_gone "command exited"
if [ -e "$W/LATE" ]; then
	# capwatch waited for the detached grandchild: it acted inside the
	# supervised run, so its write must be in the trace.
	trace_has 'ops(resolved="'"$W"'/LATE")'
fi

gc_reset
# Killed at 1 s, the grandchild would act only after 20 s.
under verify --timeout 1 -- sh -c "$(daemon 400); sleep 30"
gc_gone "--timeout"
[ -e "$W/LATE" ] && esc_bypass "a setsid'd grandchild survived --timeout and acted"
report_has 'outcome["kind"] == "timed_out"'
exit 0
