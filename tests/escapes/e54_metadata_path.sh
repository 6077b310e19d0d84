#!/bin/sh
# E54 (path variants): chmod, fchmodat, chown, lchown, utime(s)/utimensat,
# setxattr/lsetxattr/removexattr on a file outside the workspace (and one
# inside under readonly). Each changes metadata without opening for write.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/md.py" <<'PYEOF'
import ctypes, os, sys
mode, p = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
def chk(r, what):
    if r < 0: raise OSError(ctypes.get_errno(), what)
try:
    if mode == "chmod": os.chmod(p, 0o777)
    elif mode == "fchmodat": os.chmod(os.path.basename(p), 0o777, dir_fd=os.open(os.path.dirname(p), os.O_DIRECTORY))
    elif mode == "fchmodat2": chk(libc.syscall(452, -100, p.encode(), 0o777, 0), "fchmodat2")
    elif mode == "chown": os.chown(p, 1, 1)
    elif mode == "lchown": os.lchown(p, 1, 1)
    elif mode == "utime": os.utime(p, (0, 0))
    elif mode == "utimes": chk(libc.utimes(p.encode(), None) if False else libc.syscall(235, p.encode(), None), "utimes")
    elif mode == "setxattr": os.setxattr(p, "user.pwn", b"1")
    elif mode == "lsetxattr": os.setxattr(p, "user.pwn", b"1", follow_symlinks=False)
    elif mode == "removexattr": os.removexattr(p, "user.keep")
    print(mode, "done")
except OSError as e:
    print(mode, "failed", e)
PYEOF
mk() { rm -f "$1"; canary_make "$1"; chmod 600 "$1"; touch -d '2001-01-01' "$1"; "$PY" -c "import os,sys; os.setxattr(sys.argv[1], 'user.keep', b'1')" "$1" 2>/dev/null; canary_save "$1"; }
for mode in chmod fchmodat fchmodat2 chown lchown utime utimes setxattr lsetxattr removexattr; do
	for f in "$H/.bashrc:verify:unrestricted" "$W/src.c:readonly:workspace_write"; do
		file=${f%%:*}; rest=${f#*:}; prof=${rest%%:*}; cap=${rest#*:}
		mk "$file"
		bare "$PY" "$T/md.py" $mode "$file"
		if canary_intact "$file"; then
			grep -q 'Operation not supported' "$O/bare.out" && continue  # no user xattrs here
			esc_control_failed "$mode: bare attack did not change $file: $(cat "$O/bare.out")"
		fi
		mk "$file"
		under $prof -- "$PY" "$T/md.py" $mode "$file"
		canary_intact "$file" || esc_bypass "$mode changed $file under --profile $prof ($(canary_diff "$file"))"
		expect_denied $cap "'$file'"
	done
done
