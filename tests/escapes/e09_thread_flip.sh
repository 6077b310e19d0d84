#!/bin/sh
# E09: a second thread rewrites the path after the supervisor's check
# (TOCTOU of CONTINUE). Good = $W/ok.txt, a workspace file verify lets
# the process open for writing; evil = a file outside. Pass = zero opens of
# the canary in $CW_RACE_SECONDS. (Good paths whose opens capwatch does not
# perform itself: e09c.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e09_thread_flip
: >"$W/ok.txt"
for good in "$W/ok.txt"; do
	canary_make "$H/.bashrc"
	bare "$ESC_BIN/e09_thread_flip" "$(race_bare_secs)" "$good" "$H/.bashrc"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "good $good: bare flipper never opened the canary: $(race_line "$O/bare.out")"
	esc_log "good $good: bare: $(race_line "$O/bare.out")"
	canary_make "$H/.bashrc"
	under verify -- "$ESC_BIN/e09_thread_flip" "$RACE" "$good" "$H/.bashrc"
	race_verdict "$H/.bashrc" "open() of a path buffer flipped between $good and $H/.bashrc reached the canary under --profile verify"
done
