#!/bin/sh
# E17 (resolve flags): openat2 RESOLVE_IN_ROOT makes an absolute path
# relative to the directory fd. With a dirfd outside the workspace ($H) and
# a path that looks like a workspace path ($W/notes) the kernel opens
# $H$W/notes; a supervisor that resolves the string itself sees $W/notes.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir -p "$H$W"
canary_make "$H$W/notes"
: >"$W/notes"
cat >"$T/o2.py" <<PYEOF
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
how = struct.pack("QQQ", os.O_WRONLY | os.O_TRUNC, 0, 0x10)  # RESOLVE_IN_ROOT
fd = libc.syscall(437, os.open("$H", os.O_PATH), b"$W/notes", how, 24)
print("openat2", fd, ctypes.get_errno(), flush=True)
if fd >= 0:
    os.write(fd, b"pwn\n")
PYEOF
bare "$PY" "$T/o2.py"
canary_intact "$H$W/notes" && esc_control_failed "bare openat2 RESOLVE_IN_ROOT write did not change $H$W/notes: $(cat "$O/bare.out")"
canary_make "$H$W/notes"
under verify -- "$PY" "$T/o2.py"
canary_intact "$H$W/notes" || esc_bypass "openat2(dirfd=$H, \"$W/notes\", RESOLVE_IN_ROOT) wrote $H$W/notes (outside the workspace) under --profile verify; decided on the lexical path: $(grep -o '"resolved":"[^"]*notes"' "$TR")"
expect_denied unrestricted "'$H$W/notes'"
