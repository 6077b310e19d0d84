#!/bin/sh
# Red team 16 (2026-12-07), kernel back end: an image that cannot be read
# while it runs.
#
# e178's memfd payload (exec'd with its path flipped after the
# notification; no libc, so no system call before its attack) with a
# thread chain: its leader clones a thread and exits, and every thread
# clones the next and exits at once, 3,000 times, the last one making the
# marker; in the fork variant the chain runs in a child forked at once.
# image_of's fallback (list /proc/PID/task, stat each entry's exe) found
# every listed thread gone and check_image and check_fork took the
# process for gone while it ran (2-7 runs in 3 s). A process whose image
# cannot be read while it still runs (its leader alive, or a zombie
# leader with threads left) is now stopped (fail closed), with a note.
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip ${E179_PAYLOAD:-e179_chain_payload e179_fork_chain_payload}
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)
for payload in ${E179_PAYLOAD:-e179_chain_payload e179_fork_chain_payload}; do
	# (its own marker: the fork payload's bare children are orphans that
	# may still write theirs when the runs under capwatch begin, under
	# load, a chain of 3,000 threads later)
	bare "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/$payload" "$W/Mbare" "$(race_bare_secs)" leader
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare $payload: $(race_line "$O/bare.out")"
	for mode in ${E179_MODES:-default kreads}; do
		canary_make "$W/M" ""
		under_reads $mode "$prof" --backend kernel -- \
			"$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/$payload" "$W/M" "$RACE" leader
		esc_log "$mode, $payload: $(race_line "$OUT")"
		race_verdict "$W/M" "$mode: the memfd payload $payload ran"
		race_need_ok
		# stopped by check_image or check_fork: killed for its image, or
		# stopped as unreadable while it ran
		grep -q 'its image could not be read while it ran' "$TR" ||
			report_has "any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
		rm -f "$W/M"
	done
done
exit 0
