#!/bin/sh
# E56: a (bounded: 200 processes) fork bomb whose members partly setsid
# and double-fork away. With --timeout, capwatch must still answer,
# report, and leave none of them alive. (Host DoS protection needs cgroup
# v2 pids.max: not something a test on a shared machine should try.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e56_forkbomb
# Alive: still running our program (zombies left to an init that does not
# reap are dead; a recycled pid runs something else).
alive_from() {
	n=0
	for p in $(cat "$1" 2>/dev/null); do
		grep -q '^State:.*[RSD]' "/proc/$p/status" 2>/dev/null &&
			grep -q e56_forkbomb "/proc/$p/cmdline" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}
bare "$ESC_BIN/e56_forkbomb" 200 30 "$T/bare.pids"
sleep 1
a=$(alive_from "$T/bare.pids")
# The bare bomb's processes are this test's own: end them by pid.
for p in $(cat "$T/bare.pids"); do kill -9 "$p" 2>/dev/null; done
[ "$a" -ge 150 ] || esc_control_failed "only $a of 200 bare processes outlived their launcher"
start=$(date +%s)
under verify --timeout 3 -- sh -c "'$ESC_BIN/e56_forkbomb' 200 30 '$W/pids'; sleep 30"
took=$(( $(date +%s) - start ))
sleep 1
a=$(alive_from "$W/pids")
n=$(wc -l <"$W/pids" 2>/dev/null || echo 0)
for p in $(cat "$W/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
[ "$a" = 0 ] || esc_bypass "$a of $n fork-bomb processes survived capwatch --timeout 3"
[ "$took" -le 20 ] || fail "capwatch needed ${took}s to end a 200-process tree"
report_has 'outcome["kind"] == "timed_out"'
