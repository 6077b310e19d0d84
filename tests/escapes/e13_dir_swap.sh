#!/bin/sh
# E13: an intermediate directory swapped (RENAME_EXCHANGE) with a symlink
# to a directory outside while the writer opens d/authorized_keys.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e13_dir_swap
canary_make "$H/.ssh/authorized_keys"
mkdir "$W/d"; : >"$W/d/authorized_keys"
ln -s "$H/.ssh" "$W/d.swap"
bare "$ESC_BIN/e13_dir_swap" "$(race_bare_secs)" "$H/.ssh/authorized_keys"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare directory swap never opened the canary: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
canary_make "$H/.ssh/authorized_keys"
under verify -- "$ESC_BIN/e13_dir_swap" "$RACE" "$H/.ssh/authorized_keys"
race_verdict "$H/.ssh/authorized_keys" "open(d/authorized_keys) with d swapped for a symlink to $H/.ssh reached the canary under --profile verify"
race_need_ok
