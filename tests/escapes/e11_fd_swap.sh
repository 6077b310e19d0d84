#!/bin/sh
# E11: fd-table swap: utimensat(50, NULL, times) while another thread
# dup2()s a workspace file and a file outside onto fd 50. A check on
# /proc/TID/fd/50 followed by CONTINUE acts on whatever fd 50 is then.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e11_fd_swap
# The bug this caught hit once in 10 s: 3 s in make check, not the
# corpus's 2 (lib.sh), unless CW_RACE_SECONDS says otherwise.
RACE=${CW_RACE_SECONDS:-3}
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e11_fd_swap" "$(race_bare_secs)" "$W/ok.txt" "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare swap never touched the canary: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e11_fd_swap" "$RACE" "$W/ok.txt" "$H/.bashrc"
race_verdict "$H/.bashrc" "utimensat(fd 50) with fd 50 swapped by dup2 changed $H/.bashrc's mtime under --profile verify"
