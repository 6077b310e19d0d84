#!/bin/sh
# E86: capget() of the command itself, started as root: CAP_SYS_ADMIN in
# its effective set is the key to most of the kernel (mount, namespaces,
# swap, quotas, keys...); every other check then rests on capwatch's filter
# alone. Capability sought: keeping root's full capability set.
# Expected after the fix: capwatch, started by root, drops the command to
# Docker's default capability set: CAP_SYS_ADMIN (21) is not in the
# effective, permitted or bounding set.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root"
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
class hdr(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]
class data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]
h = hdr(0x20080522, 0)
d = (data * 2)()
if libc.syscall(125, ctypes.byref(h), d) < 0:
    print("capget failed", ctypes.get_errno())
else:
    print("CAP_SYS_ADMIN effective" if d[0].effective & (1 << 21) else "no CAP_SYS_ADMIN")'
bare "$PY" -c "$cmd"
grep -q 'CAP_SYS_ADMIN effective' "$O/bare.out" || esc_control_failed "bare root process has no CAP_SYS_ADMIN: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd"
grep -q 'CAP_SYS_ADMIN effective' "$OUT" && esc_bypass "the command started by root runs with CAP_SYS_ADMIN in its effective set under --profile readonly"
grep -q 'no CAP_SYS_ADMIN' "$OUT" || esc_bypass "capget gave no answer: $(cat "$OUT")"
exit 0
