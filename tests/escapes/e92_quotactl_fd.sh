#!/bin/sh
# E92: quotactl_fd(fd, Q_GETQUOTA, another uid): disk quota control by
# descriptor (no block device path to decide). The kernel checks
# CAP_SYS_ADMIN for another user's quota before it finds quotas are off, so
# ESRCH (root, bare) against EPERM says whether the command could read and
# set (Q_SETQUOTA) the machine's quotas.
# Capability sought: CAP_SYS_ADMIN (quota).
# Expected after the fix: EPERM (the command runs without CAP_SYS_ADMIN;
# or quotactl/quotactl_fd refused as unrestricted).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root"
cmd='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
buf = ctypes.create_string_buffer(128)
r = libc.syscall(443, fd, 0x80000700, 54321, buf)  # quotactl_fd(fd, QCMD(Q_GETQUOTA, USRQUOTA), uid)
print("quota ok" if r >= 0 else "quota failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd" "$W"
grep -q 'quota failed 1$' "$O/bare.out" && esc_control_failed "bare quotactl_fd as root refused EPERM"
grep -q 'quota failed 38$\|quota failed 22$' "$O/bare.out" && skip "no quota support for the file system of $W: $(cat "$O/bare.out")"
grep -q 'quota ok\|quota failed' "$O/bare.out" || esc_control_failed "bare quotactl_fd gave no answer: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd" "$W"
grep -q 'quota failed 1$' "$OUT" || esc_bypass "quotactl_fd passed the CAP_SYS_ADMIN check under --profile readonly: $(cat "$OUT")"
exit 0
