#!/bin/sh
# E35: blinding the supervisor: prctl(PR_SET_DUMPABLE, 0) before the write,
# and exec of an unreadable (mode 0111) binary. capwatch must fail closed.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e04_rawsyscall
canary_make "$H/.bashrc"
cmd="import ctypes, os; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); fd = os.open('$H/.bashrc', os.O_WRONLY | os.O_APPEND); os.write(fd, b'pwn\n')"
bare "$PY" -c "$cmd"
canary_intact "$H/.bashrc" && esc_control_failed "bare non-dumpable write failed: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under readonly -- "$PY" -c "$cmd"
canary_intact "$H/.bashrc" || esc_bypass "a non-dumpable process wrote $H/.bashrc under --profile readonly"
expect_denied unrestricted "'$H/.bashrc'"
cp "$ESC_BIN/e04_rawsyscall" "$W/t"; chmod 0111 "$W/t"
bare "$W/t" "$H/.bashrc"
canary_intact "$H/.bashrc" && esc_control_failed "bare 0111 binary did not write: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under readonly -- "$W/t" "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "an unreadable (0111) binary wrote $H/.bashrc under --profile readonly"
