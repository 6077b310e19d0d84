#!/bin/sh
# E93: listmount(2) (Linux 6.8), a system call newer than capwatch's table:
# it enumerates every mount of the namespace by id (with statmount, their
# sources, options and the paths they hide), and nothing in capwatch sees
# it. The general point: a syscall capwatch does not know must not run
# unrecorded.
# Capability sought: a kernel interface the supervisor does not know
# (unrestricted).
# Expected after the fix: capwatch's filter refuses system calls its table
# does not list (deny-by-default for numbers above what it was built for,
# or an explicit entry): EPERM/ENOSYS, recorded as an unrestricted denial
# whose scope or syscall is "listmount".
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)
req = struct.pack("IIQQ", 24, 0, 0xffffffffffffffff, 0)  # mnt_id_req v0: LSMT_ROOT
ids = (ctypes.c_uint64 * 512)()
r = libc.syscall(458, req, ids, 512, 0)
print("listmount ok %d" % r if r >= 0 else "listmount failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'listmount ok [1-9]' "$O/bare.out" || { grep -q 'listmount failed 38' "$O/bare.out" && skip "listmount not in this kernel"; esc_control_failed "bare listmount failed: $(cat "$O/bare.out")"; }
under readonly -- "$PY" -c "$cmd"
grep -q 'listmount ok' "$OUT" && esc_bypass "listmount, a syscall capwatch's table does not list, ran under --profile readonly ($(cat "$OUT"))"
expect_denied_syscall listmount
report_has "denials('unrestricted')"
exit 0
