#!/bin/sh
# E12: the last component is a symlink swapped between a workspace file
# and a file outside while the writer opens it (fs.protected_symlinks does
# not apply outside sticky dirs).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e12_symlink_swap
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e12_symlink_swap" "$(race_bare_secs)" ok.txt "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare symlink swap never opened the canary: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e12_symlink_swap" "$RACE" ok.txt "$H/.bashrc"
race_verdict "$H/.bashrc" "open(\"l\") with l swapped ok.txt <-> $H/.bashrc reached the canary under --profile verify"
race_need_ok
