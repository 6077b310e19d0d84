#!/bin/sh
# Extended attributes capwatch sets for the command are set with the
# command's capabilities, not capwatch's: a command started by root runs
# with Docker's default set (privs.c), without CAP_SYS_ADMIN, so the kernel
# refuses it trusted.* and security.* names (EPERM), as it does on a
# symlink, which capwatch leaves to the kernel. Before, capwatch set them
# on regular files with its own CAP_SYS_ADMIN (found by cpython.sh:
# test_shutil's test_copyxattr_symlinks set trusted.foo on the file, then
# failed on the link). user.* names work as bare.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
[ "$(id -u)" = 0 ] || skip "needs root (the command's reduced capability set)"
cw_workdir
cat >"$T/x.py" <<'EOF2'
import os
caps = int([l for l in open("/proc/self/status") if l.startswith("CapEff:")][0].split()[1], 16)
print("sys_admin", bool(caps & (1 << 21)))
open("f", "w").close()
os.symlink("f", "l")
for name in ("trusted.cw", "security.cw", "user.cw"):
    for p, follow in (("f", True), ("l", False)):
        try:
            os.setxattr(p, name, b"1", follow_symlinks=follow)
            print(name, p, "set")
        except OSError as e:
            print(name, p, "errno", e.errno)
    fd = os.open("f", os.O_RDONLY)
    try:
        os.setxattr(fd, name, b"2")
        print(name, "fd set")
    except OSError as e:
        print(name, "fd errno", e.errno)
    os.close(fd)
EOF2
cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/x.py" >"$O/out" 2>"$O/err"
cat "$O/out" >&2
grep -q '^sys_admin False$' "$O/out" || skip "the command keeps CAP_SYS_ADMIN here"
grep -q '^user.cw f set$' "$O/out" || skip "this file system has no user.* attributes"
for name in trusted.cw security.cw; do
	for how in "f" "l" "fd"; do
		grep -q "^$name $how errno 1\$" "$O/out" || fail "$name on $how: not EPERM without CAP_SYS_ADMIN"
	done
done
report_assert "$O/r.json" "denials() == []"
exit 0
