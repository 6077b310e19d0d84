#!/bin/sh
# Kernel back end (KNOWN-OPEN e178b until 2026-12-07): an exec whose
# proc connector event is dropped.
#
# check_image, which kills an image fanotify never allowed (a memfd: e174),
# runs at the connector's exec event. The connector drops events when its
# receive buffer is full (ENOBUFS): an exec among them was never looked at,
# and its image ran on, making notified calls. Here the buffer is made
# small (CAPWATCH_TEST_CONNECTOR_RCVBUF, a test knob) and a fork flood runs
# beside e174's attack (the exec path flipped to a memfd after the
# notification), so that most of the tree's events are dropped. After a
# loss capwatch checks the image of the caller of every notification, and
# of every member of the cgroup at each loss, against the images the run
# allowed. Capability sought: process_spawn of a program the profile
# denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload e180_fork_flood
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/e180_fork_flood", "'"$ESC_BIN"'/.libs/*"]}}' verify)
# The attack beside the flood, for SECS.
attack='"$1" "$2" 3 & "$3" /bin/true "memfd:$4" "$5" "$2" leader; wait'

bare "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$(race_bare_secs)" leader
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare: $(race_line "$O/bare.out")"
rm -f "$W/M"
secs=$((RACE + 2))
unidentified="any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
for mode in default kreads; do
	# Every try must keep the payload from running. A try proves the
	# image check only when a flip won the notification's race (the
	# exec then denied as unidentified, not by its name): on a loaded
	# machine none may in one try, so up to three.
	for try in 1 2 3; do
		canary_make "$W/M" ""
		CAPWATCH_TEST_CONNECTOR_RCVBUF=1 under_reads $mode "$prof" --backend kernel -- \
			/bin/sh -c "$attack" sh "$ESC_BIN/e180_fork_flood" "$secs" "$ESC_BIN/e140_exec_flip" \
			"$ESC_BIN/payload" "$W/M"
		esc_log "$mode, try $try: $(grep FLOOD "$OUT")"
		# The run proves something only when events were dropped.
		grep -q 'proc connector dropped events' "$OUT" "$R" ||
			{ cat "$OUT" >&2; fail "$mode: the connector dropped no event (no loss to test)"; }
		race_verdict "$W/M" "$mode: a memfd payload ran, its exec among the events the connector dropped"
		race_need_ok
		rm -f "$W/M"
		report_assert "$R" "$unidentified" 2>/dev/null && break
		[ $try = 3 ] && report_has "$unidentified"
	done
done
exit 0
