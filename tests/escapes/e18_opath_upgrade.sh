#!/bin/sh
# E18: an O_PATH descriptor upgraded to a write open through
# /proc/self/fd/N, and linkat(AT_SYMLINK_FOLLOW) of it into the workspace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
cat >"$T/op.py" <<PYEOF
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = os.open("$H/.bashrc", os.O_PATH)
mode = sys.argv[1]
if mode == "reopen":
    fd = os.open("/proc/self/fd/%d" % p, os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"pwn\n")
else:
    r = libc.linkat(-100, b"/proc/self/fd/%d" % p, -100, b"$W/x", 0x400)
    print("linkat", r, ctypes.get_errno())
    fd = os.open("$W/x", os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"pwn\n")
PYEOF
for mode in reopen linkat; do
	rm -f "$W/x"
	bare "$PY" "$T/op.py" $mode
	canary_intact "$H/.bashrc" && esc_control_failed "$mode: bare attack did not change the canary: $(cat "$O/bare.out")"
	rm -f "$W/x"; canary_make "$H/.bashrc"
	under verify -- "$PY" "$T/op.py" $mode
	canary_intact "$H/.bashrc" || esc_bypass "$mode: O_PATH fd upgraded to a write of $H/.bashrc under --profile verify"
	expect_denied unrestricted "'$H/.bashrc'"
done
