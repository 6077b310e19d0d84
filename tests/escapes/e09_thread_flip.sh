#!/bin/sh
# E09: a second thread rewrites the path after the supervisor's check
# (TOCTOU of CONTINUE). Good = a workspace file (verify allows writing it),
# evil = a file outside. Pass = zero opens of the canary in $CW_RACE_SECONDS.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e09_thread_flip
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e09_thread_flip" "$(race_bare_secs)" "$W/ok.txt" "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare flipper never opened the canary: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e09_thread_flip" "$RACE" "$W/ok.txt" "$H/.bashrc"
race_verdict "$H/.bashrc" "open() of a flipped path buffer reached $H/.bashrc under --profile verify"
race_need_ok
