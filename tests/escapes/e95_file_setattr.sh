#!/bin/sh
# E95: file_setattr(2) (Linux 6.17), a path-based FS_IOC_FSSETXATTR that
# capwatch's table does not list: inode flags (here FS_XFLAG_NODUMP, which
# needs no capability; with CAP_LINUX_IMMUTABLE also append/immutable) set
# on a file outside the workspace without opening it.
# Capability sought: a metadata write outside the workspace (unrestricted).
# Expected after the fix: file_setattr is decided like the other metadata
# calls (or refused as an unknown syscall): denied as unrestricted, the
# file's flags unchanged. The test clears the flag it set, at exit.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
command -v lsattr >/dev/null && command -v chattr >/dev/null || skip "e2fsprogs (lsattr/chattr) not installed"
F=$H/.bashrc
printf 'keep\n' >"$F"
trap 'chattr -d "$F" 2>/dev/null; esc_cleanup' EXIT
cmd='import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
p = sys.argv[1].encode()
fa = ctypes.create_string_buffer(24)  # struct file_attr v0: u64 xflags, 4 x u32
if libc.syscall(468, -100, p, fa, 24, 0) < 0:  # file_getattr
    print("file_getattr failed %d" % ctypes.get_errno()); sys.exit(0)
x = struct.unpack_from("Q", fa.raw)[0] | 0x80  # FS_XFLAG_NODUMP
struct.pack_into("Q", fa, 0, x)
r = libc.syscall(469, -100, p, fa, 24, 0)  # file_setattr
print("file_setattr ok" if r == 0 else "file_setattr failed %d" % ctypes.get_errno())'
has_d() { lsattr -d "$F" 2>/dev/null | cut -d' ' -f1 | grep -q d; }
bare "$PY" -c "$cmd" "$F"
has_d || { grep -q 'failed 38' "$O/bare.out" && skip "file_getattr/file_setattr not in this kernel"; esc_control_failed "bare file_setattr did not set nodump on $F: $(cat "$O/bare.out")"; }
chattr -d "$F"
under verify -- "$PY" -c "$cmd" "$F"
if has_d; then chattr -d "$F"; esc_bypass "file_setattr set an inode flag (nodump) on $F, outside the workspace, under --profile verify"; fi
expect_denied unrestricted
exit 0
