#!/bin/sh
# E09 (good paths that are not emulated): as E09, but the path the
# supervisor sees is one whose open it lets the kernel perform (CONTINUE):
# /dev/stdout (a pseudo-device, no capability needed) and $W/ok.txt/x
# (ENOTDIR: an open that fails anyway). The flipped-in path is a file
# outside the workspace. Pass = zero opens of the canary.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e09_thread_flip
: >"$W/ok.txt"
for good in /dev/stdout "$W/ok.txt/x"; do
	canary_make "$H/.bashrc"
	bare "$ESC_BIN/e09_thread_flip" "$(race_bare_secs)" "$good" "$H/.bashrc"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "good $good: bare flipper never opened the canary: $(race_line "$O/bare.out")"
	esc_log "good $good: bare: $(race_line "$O/bare.out")"
	canary_make "$H/.bashrc"
	under verify -- "$ESC_BIN/e09_thread_flip" "$RACE" "$good" "$H/.bashrc"
	race_verdict "$H/.bashrc" "open() of a path buffer flipped between $good and $H/.bashrc reached the canary under --profile verify"
done
