#!/bin/sh
# Red team 13 (2026-12-07), kernel back end: an exec fanotify never sees,
# by a thread other than the leader, after the leader's exit.
#
# A memfd lives on the kernel's internal shm mount, which no fanotify mark
# covers: its exec (here /proc/thread-self/fd/N, flipped e140-style
# against /bin/true, which the notification decides) gets no
# FAN_OPEN_EXEC_PERM, and Landlock does not refuse it (no other process's
# /proc/PID/root is needed). check_image, at the connector's exec event,
# kills the image: fanotify allowed nothing of it. But check_image did not
# run when the process had been taken for gone before its exec event: the
# leader left with pthread_exit first (pexit), or two threads exec'd and
# the loser's exit ended e173's hold (two). A process now lives until the
# exit of its last task (threads counted from the connector), and an exec
# event of a member whose entry is dead is checked all the same. Under the
# kernel back end a memfd image is killed before its first notified call
# (SECURITY.md: what it may do before that).
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
# The payload is linked dynamically: the loader must be allowed for its
# exec to get that far (as in e140).
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)
for how in leader thread pexit two; do
	bare "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$(race_bare_secs)" $how
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare ($how): $(race_line "$O/bare.out")"
	rm -f "$W/M"
	for mode in default kreads; do
		canary_make "$W/M" ""
		under_reads $mode "$prof" --backend kernel -- \
			"$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$RACE" $how
		esc_log "$mode, exec by the $how: $(race_line "$OUT")"
		race_verdict "$W/M" "$mode: a memfd payload ran, exec'd by the $how, with the exec path flipped after the notification"
		race_need_ok
		# and it was check_image that stopped the memfd's image: killed
		# and recorded (not only refused at a notification)
		report_has "any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
		rm -f "$W/M"
	done
done
exit 0
