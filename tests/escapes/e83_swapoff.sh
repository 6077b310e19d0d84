#!/bin/sh
# E83: swapoff(PATH) by a command started as root, on a path that does not
# exist: the kernel checks CAP_SYS_ADMIN first, so ENOENT (bare, root)
# against EPERM says whether the command could turn swap off.
# Capability sought: CAP_SYS_ADMIN (swap).
# Expected after the fix: capwatch drops the command to Docker's default
# capability set: EPERM (or a denial of swapoff as unrestricted).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root"
cmd='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.swapoff(sys.argv[1].encode())
print("swapoff returned 0" if r == 0 else "swapoff failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd" "$T/nonexistent-swap"
grep -q 'swapoff failed 2$' "$O/bare.out" || esc_control_failed "bare swapoff of a nonexistent path as root did not reach ENOENT: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd" "$T/nonexistent-swap"
grep -q 'swapoff failed 1$' "$OUT" || esc_bypass "swapoff passed the CAP_SYS_ADMIN check under --profile readonly: $(cat "$OUT")"
exit 0
