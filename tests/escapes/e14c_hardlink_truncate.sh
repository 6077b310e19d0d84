#!/bin/sh
# E14c: a hard link made before the run to a file outside the workspace,
# truncated through its workspace name ('>' is O_WRONLY|O_CREAT|O_TRUNC;
# also O_RDONLY|O_TRUNC). The write is denied once capwatch sees the
# second name; the truncation must not have happened before that.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
ln "$H/.bashrc" "$W/notes.txt" || skip "hard links not possible in $T"
canary_save "$H/.bashrc"
bare sh -c ": > notes.txt"
canary_intact "$H/.bashrc" && esc_control_failed "bare truncation through the link did not change the target"
canary_make "$H/.bashrc"
under verify -- sh -c ": > notes.txt"
canary_intact "$H/.bashrc" || esc_bypass "'> notes.txt' (hard link to $H/.bashrc) emptied it: $(canary_diff "$H/.bashrc")"
expect_denied unrestricted
under verify -- "$CW_PY" -c 'import os; os.open("notes.txt", os.O_RDONLY | os.O_TRUNC)'
canary_intact "$H/.bashrc" || esc_bypass "O_RDONLY|O_TRUNC of notes.txt emptied $H/.bashrc: $(canary_diff "$H/.bashrc")"
expect_denied unrestricted
# The file's own truncation still works, with the access asked for.
printf 'old\n' >"$W/own.txt"
under verify -- "$CW_PY" -c '
import fcntl, os
fd = os.open("own.txt", os.O_RDONLY | os.O_TRUNC)
assert os.fstat(fd).st_size == 0, "not truncated"
assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY, "not read-only"
with open("own.txt", "w") as f:
    f.write("new\n")
'
[ "$rc" = 0 ] || { cat "$OUT" >&2; fail "truncating a workspace file failed (rc $rc)"; }
[ "$(cat "$W/own.txt")" = new ] || fail "own.txt: $(cat "$W/own.txt")"
exit 0
