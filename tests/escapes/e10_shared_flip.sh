#!/bin/sh
# E10: the path buffer lives in a MAP_SHARED memfd page flipped by another
# process (no threads, no ptrace rights needed).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e10_shared_flip
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e10_shared_flip" "$(race_bare_secs)" "$W/ok.txt" "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare flipper never opened the canary: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e10_shared_flip" "$RACE" "$W/ok.txt" "$H/.bashrc"
race_verdict "$H/.bashrc" "open() of a path in a shared page flipped by another process reached $H/.bashrc under --profile verify"
race_need_ok
