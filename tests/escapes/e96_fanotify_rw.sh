#!/bin/sh
# E96: fanotify as a way to a writable descriptor. The command makes a
# fanotify group whose event descriptors are O_RDWR, marks .git/config
# (protected metadata) for FAN_OPEN, and opens it read-only (allowed:
# filesystem_read). The kernel hands the listener a NEW descriptor of the
# file, opened O_RDWR by the kernel itself (no open syscall for capwatch
# to decide), and the command writes through it: a git hook runner in
# .git/config.
# Capability sought: protected_metadata (writing .git/config) under verify.
# Expected after the fix: fanotify_init is refused (unrestricted, with the
# syscall named in the denial); .git/config is unchanged.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir -p "$W/.git"
canary_make "$W/.git/config" "[core]"
cat >"$T/fan.py" <<'PYEOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fan = libc.fanotify_init(0x1, os.O_RDWR)  # FAN_CLOEXEC | FAN_CLASS_NOTIF; event fds O_RDWR
if fan < 0:
    print("fanotify_init failed", ctypes.get_errno()); sys.exit(0)
if libc.fanotify_mark(fan, 1, ctypes.c_uint64(0x20), -100, b".git/config") < 0:  # ADD, FAN_OPEN
    print("fanotify_mark failed", ctypes.get_errno()); sys.exit(0)
open(".git/config").read()  # an allowed read-only open
ev = os.read(fan, 4096)
n, vers, _, mlen, mask, fd, pid = struct.unpack_from("IBBHQii", ev)
if fd < 0:
    print("event without fd", fd); sys.exit(0)
os.lseek(fd, 0, 2)
os.write(fd, b"\n[core]\n\tfsmonitor = sh -c 'touch /tmp/pwned'\n")
print("wrote through the event fd")
PYEOF
bare timeout 10 "$PY" "$T/fan.py"
canary_intact "$W/.git/config" && esc_control_failed "bare fanotify event fd write did not change .git/config: $(cat "$O/bare.out")"
canary_make "$W/.git/config" "[core]"
under verify -- timeout 10 "$PY" "$T/fan.py"
canary_intact "$W/.git/config" || esc_bypass "the command wrote .git/config under --profile verify through a read-write descriptor from a fanotify event ($(cat "$OUT"))"
expect_denied_syscall fanotify_init
exit 0
