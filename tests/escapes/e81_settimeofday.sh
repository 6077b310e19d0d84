#!/bin/sh
# E81: settimeofday(NULL, NULL) by a command started as root: the kernel
# checks CAP_SYS_TIME before it looks at the (absent) arguments, so the
# call says whether the command could set the system clock, without
# changing it. Capability sought: CAP_SYS_TIME.
# Expected after the fix: capwatch, started by root, drops the command to
# Docker's default capability set (no CAP_SYS_TIME): EPERM.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root (the attack is a root command keeping CAP_SYS_TIME)"
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(164, None, None)  # raw: glibc dereferences tv
print("settimeofday ok" if r == 0 else "settimeofday failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'settimeofday ok' "$O/bare.out" || esc_control_failed "bare settimeofday(NULL, NULL) as root failed: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd"
grep -q 'settimeofday ok' "$OUT" && esc_bypass "the command kept CAP_SYS_TIME: settimeofday(NULL, NULL) succeeded under --profile readonly"
grep -q 'settimeofday failed 1$' "$OUT" || esc_bypass "settimeofday was not refused EPERM: $(cat "$OUT")"
exit 0
