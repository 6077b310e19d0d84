#!/bin/sh
# E84: reboot(2) by a command started as root, with an INVALID magic (0):
# the kernel checks CAP_SYS_BOOT before the magic, so EINVAL (bare, root)
# against EPERM says whether the command could reboot the machine. A valid
# magic is never used.
# Capability sought: CAP_SYS_BOOT.
# Expected after the fix: capwatch drops the command to Docker's default
# capability set: EPERM (or a denial of reboot as unrestricted).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root"
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# reboot(magic1=0, magic2=0, cmd=0, arg=NULL): magic 0 is invalid
r = libc.syscall(169, 0, 0, 0, None)
print("reboot returned %d" % r if r >= 0 else "reboot failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'reboot failed 22$' "$O/bare.out" || esc_control_failed "bare reboot with an invalid magic as root did not reach EINVAL: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd"
grep -q 'reboot failed 1$' "$OUT" || esc_bypass "reboot passed the CAP_SYS_BOOT check under --profile readonly: $(cat "$OUT")"
exit 0
