#!/bin/sh
# E04: the raw syscall instruction (no libc wrapper, nothing for a preload
# to hook): openat(O_WRONLY|O_APPEND) of a file outside the workspace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e04_rawsyscall
canary_make "$H/.bashrc"
bare "$ESC_BIN/e04_rawsyscall" "$H/.bashrc"
canary_intact "$H/.bashrc" && esc_control_failed "bare raw openat did not change the canary: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under readonly -- "$ESC_BIN/e04_rawsyscall" "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "raw syscall wrote $H/.bashrc under --profile readonly"
grep -q 'openat -> -13' "$OUT" || fail "expected openat -> -EACCES: $(cat "$OUT")"
expect_denied unrestricted "'$H/.bashrc'"
