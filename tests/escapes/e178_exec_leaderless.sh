#!/bin/sh
# Red team 15 (2026-12-07), kernel back end: an image check_image could
# not see, or did not look at all of.
#
# e174's memfd payload, exec'd with its path flipped after the
# notification, made with no libc so that it makes no system call before
# its attack:
#  - leaderless: it clones a thread (not notified) and its leader exits
#    (SYS_exit, not notified): the leader's /proc/PID/exe fails (its mm
#    gone), and check_image took the process for gone while the thread
#    ran the image and made the marker (19 runs in 2 s);
#  - fork: it forks (not notified) and the child makes the marker:
#    check_image killed the process that exec'd, and the child, which has
#    no exec event, was never looked at (80 in 2 s).
# check_image now reads a live thread's image when the leader's is gone,
# and every new process's image is checked at its fork event against the
# images the run allowed (check_fork), whoever its parent is.
# CI then ran the fork payload once in 1,622: the child was read before
# the kernel attached it to the cgroup, and its kill found no member
# (cgmember.c); the payload now forks 8 children, 8 such chances a run.
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip e178_leaderless_payload e178_fork_payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)
for payload in e178_leaderless_payload e178_fork_payload; do
	# (its own marker: the fork payload's bare children are orphans that
	# may still write theirs when the runs under capwatch begin, under load)
	bare "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/$payload" "$W/Mbare" "$(race_bare_secs)" leader
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare $payload: $(race_line "$O/bare.out")"
	for mode in default kreads; do
		canary_make "$W/M" ""
		under_reads $mode "$prof" --backend kernel -- \
			"$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/$payload" "$W/M" "$RACE" leader
		esc_log "$mode, $payload: $(race_line "$OUT")"
		race_verdict "$W/M" "$mode: the memfd payload $payload ran"
		race_need_ok
		report_has "any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
		rm -f "$W/M"
	done
done
exit 0
