#!/bin/sh
# E17: openat2(): the open flags are in a struct in memory (a BPF rule on
# openat's flag register never sees them). A write-open with O_TRUNC of a
# file outside the workspace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
cat >"$T/o2.py" <<PYEOF
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
how = struct.pack("QQQ", os.O_WRONLY | os.O_TRUNC, 0, 0)
fd = libc.syscall(437, -100, b"$H/.bashrc", how, 24)
print("openat2", fd, ctypes.get_errno(), flush=True)
if fd >= 0:
    os.write(fd, b"pwn\n")
PYEOF
bare "$PY" "$T/o2.py"
canary_intact "$H/.bashrc" && esc_control_failed "bare openat2 write did not change the canary: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$PY" "$T/o2.py"
canary_intact "$H/.bashrc" || esc_bypass "openat2 O_WRONLY|O_TRUNC reached $H/.bashrc under --profile verify: $(cat "$OUT")"
expect_denied unrestricted "'$H/.bashrc'"
report_has 'denials("unrestricted")[0]["syscall"] == "openat2"'
