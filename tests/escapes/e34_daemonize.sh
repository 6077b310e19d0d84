#!/bin/sh
# E34: setsid + double fork to outlive the run: after capwatch returns (the
# command exited, or --timeout), a detached grandchild must not go on and
# act. Its act: create a marker in the workspace (allowed by verify) after
# a delay.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd="setsid sh -c 'sleep 2; touch $W/LATE' </dev/null >/dev/null 2>&1 &"
bare sh -c "$cmd"
sleep 3
[ -e "$W/LATE" ] || esc_control_failed "bare daemonised child did not act"
rm -f "$W/LATE"
under verify -- sh -c "$cmd"
if [ -e "$W/LATE" ]; then
	# capwatch waited for the detached grandchild: it acted inside the
	# supervised run, so its write must be in the trace.
	trace_has 'ops(resolved="'"$W"'/LATE")'
else
	sleep 3
	[ -e "$W/LATE" ] && esc_bypass "a setsid'd grandchild acted 2 s after capwatch returned (exit $rc), unsupervised"
fi
rm -f "$W/LATE"
under verify --timeout 1 -- sh -c "setsid sh -c 'sleep 2; touch $W/LATE' </dev/null >/dev/null 2>&1 & sleep 30"
sleep 3
[ -e "$W/LATE" ] && esc_bypass "a setsid'd grandchild survived --timeout and acted"
report_has 'outcome["kind"] == "timed_out"'
