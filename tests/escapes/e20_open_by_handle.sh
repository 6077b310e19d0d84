#!/bin/sh
# E20: open_by_handle_at() (the "shocker" class): a write-open with no path
# at all. Needs CAP_DAC_READ_SEARCH (root).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e20_handle
[ "$(id -u)" = 0 ] || skip "open_by_handle_at needs CAP_DAC_READ_SEARCH (run as root)"
canary_make "$H/.bashrc"
bare "$ESC_BIN/e20_handle" open "$H/.bashrc"
[ "$rc" = 3 ] && skip "name_to_handle_at unsupported on $T's filesystem: $(cat "$O/bare.out")"
canary_intact "$H/.bashrc" && esc_control_failed "bare open_by_handle_at did not write the canary: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under readonly -- "$ESC_BIN/e20_handle" open "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "open_by_handle_at wrote $H/.bashrc under --profile readonly"
# Denied at open_by_handle_at (or already at name_to_handle_at).
expect_denied_syscall 'open_by_handle_at|name_to_handle_at'
