#!/bin/sh
# E37 (new mount API): open_tree(OPEN_TREE_CLONE) + move_mount() alias a
# file outside the workspace without mount(2). Private mount namespace of
# this test; root only.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
esc_mounted "$H/authorized_keys"
printf 'trusted\n' >"$H/authorized_keys"
printf 'attacker key\n' >"$W/fake"
cat >"$T/newapi.py" <<PYEOF
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(428, -100, b"$W/fake", 1 | 0x80000)  # open_tree(OPEN_TREE_CLONE|O_CLOEXEC)
print("open_tree", fd, ctypes.get_errno())
if fd >= 0:
    r = libc.syscall(429, fd, b"", -100, b"$H/authorized_keys", 4)  # move_mount(F_EMPTY_PATH)
    print("move_mount", r, ctypes.get_errno())
PYEOF
bare "$PY" "$T/newapi.py"
grep -q attacker "$H/authorized_keys" || esc_control_failed "bare open_tree+move_mount did not alias the file: $(cat "$O/bare.out")"
umount "$H/authorized_keys"
under verify -- "$PY" "$T/newapi.py"
grep -q attacker "$H/authorized_keys" && { umount "$H/authorized_keys"; esc_bypass "open_tree+move_mount bind-mounted $W/fake over $H/authorized_keys under --profile verify (open_tree/move_mount are not in the filter): $(cat "$OUT" | tr '\n' ' ')"; }
expect_denied unrestricted
