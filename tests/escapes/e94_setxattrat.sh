#!/bin/sh
# E94: setxattrat(2) (Linux 6.13), the path+dirfd form of setxattr that
# capwatch's table does not list: an extended attribute written on a file
# outside the workspace (E54 covers setxattr/lsetxattr/fsetxattr, all
# notified). A user.* attribute here; security.* / trusted.* ones change
# how other programs treat the file.
# Capability sought: a metadata write outside the workspace (unrestricted).
# Expected after the fix: setxattrat (and removexattrat, getxattrat,
# listxattrat) are decided like their older forms: the write outside the
# workspace is denied as unrestricted, the canary has no new attribute.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
cmd='import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
val = ctypes.create_string_buffer(b"pwned")
args = struct.pack("QII", ctypes.addressof(val), 5, 0)  # xattr_args: value, size, flags
r = libc.syscall(463, -100, sys.argv[1].encode(), 0, b"user.cw_e94", args, len(args))
print("setxattrat ok" if r == 0 else "setxattrat failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd" "$H/.bashrc"
canary_intact "$H/.bashrc" && { grep -q 'setxattrat failed 38' "$O/bare.out" && skip "setxattrat not in this kernel"; grep -q 'setxattrat failed 95' "$O/bare.out" && skip "no user xattrs on the file system of $T"; esc_control_failed "bare setxattrat did not change the canary: $(cat "$O/bare.out")"; }
rm -f "$H/.bashrc"; canary_make "$H/.bashrc"  # a new inode: no attribute left from the control
under verify -- "$PY" -c "$cmd" "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "setxattrat wrote an extended attribute on $H/.bashrc, outside the workspace, under --profile verify ($(canary_diff "$H/.bashrc"))"
expect_denied unrestricted
exit 0
