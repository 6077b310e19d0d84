#!/bin/sh
# Red team 14 (2026-12-07), kernel back end: a process the table never
# listed, through clone(CLONE_PARENT).
#
# CLONE_PARENT gives the child the caller's parent: capwatch for the
# command (and for an orphan, which capwatch as the subreaper adopted).
# The connector's fork event then names capwatch as the parent, which
# the table does not list: on_fork ignored the child and every process
# under it, and on_exec ignored their exec events, so check_image never
# looked at an image fanotify did not see (e174's memfd, its exec path
# flipped after the notification). Now a fork naming capwatch or the
# namespace's init, and any exec event of a pid the table does not list
# alive, are asked of the cgroup.
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload e175_clone_parent
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/e175_clone_parent", "'"$ESC_BIN"'/.libs/*"]}}' verify)
for who in "" --orphan; do
	by=${who:+an orphan}
	by=${by:-the command}
	bare "$ESC_BIN/e175_clone_parent" $who "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$(race_bare_secs)" leader
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare, by $by: $(race_line "$O/bare.out")"
	rm -f "$W/M"
	for mode in default kreads; do
		canary_make "$W/M" ""
		under_reads $mode "$prof" --backend kernel -- "$ESC_BIN/e175_clone_parent" $who \
			"$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$RACE" leader
		esc_log "$mode, CLONE_PARENT by $by: $(race_line "$OUT")"
		race_verdict "$W/M" "$mode: a memfd payload ran in a CLONE_PARENT child of $by"
		race_need_ok
		report_has "any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
		rm -f "$W/M"
	done
done
exit 0
