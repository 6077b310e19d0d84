#!/bin/sh
# Red team 14 (2026-12-07), kernel back end: a thread's exit reported
# after its process's exec.
#
# An exec ends the process's other threads (de_thread); the kernel wakes
# the exec'ing thread from an ended thread's release_task, before that
# thread's exit reaches the proc connector, and when the thread had read
# /proc/thread-self/fd (slow to flush) the exec event comes first, bare
# in most runs. capwatch counted the new image's threads from zero at the
# exec, took that late exit for the image's last and the process for
# gone: its forks and their execs were ignored, and check_image never
# looked at an image fanotify did not see (e174's memfd, its exec path
# flipped after the notification). Each thread now carries the image it
# was made in (kernel.c's thread map); an exit of an earlier image's
# thread is not the new image's.
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload e177_exec_paused_thread
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/e177_exec_paused_thread", "'"$ESC_BIN"'/.libs/*"]}}' verify)
bare "$ESC_BIN/e177_exec_paused_thread" "$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$(race_bare_secs)" leader
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare: $(race_line "$O/bare.out")"
rm -f "$W/M"
for mode in default kreads; do
	canary_make "$W/M" ""
	under_reads $mode "$prof" --backend kernel -- "$ESC_BIN/e177_exec_paused_thread" \
		"$ESC_BIN/e140_exec_flip" /bin/true "memfd:$ESC_BIN/payload" "$W/M" "$RACE" leader
	esc_log "$mode, a thread whose exit comes after the exec: $(race_line "$OUT")"
	race_verdict "$W/M" "$mode: a memfd payload ran, forked by a process taken for gone at a late thread exit"
	race_need_ok
	report_has "any(e['rule'] == 'builtin:exec-unidentified' and e['enforced'] for e in denials('process_spawn'))"
	# the process that exec'd is not taken for gone: its image's children are listed
	report_has "len([p for p in d['processes'] if (p.get('exe') or '').endswith('/e140_exec_flip')]) >= 2"
	rm -f "$W/M"
done
exit 0
