#!/bin/sh
# ioctls of a type the filter does not pass (issue 14 item 4): refused with
# ENOTTY (what the kernel says here too: hugetlbfs in a private mount
# namespace, an ext4 workspace file, /dev/null; vfat's attributes in e133,
# where the kernel would have applied them) and recorded as unrestricted,
# whatever the descriptor is (the number can be dup2'ed over).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
[ "$(id -u)" = 0 ] || skip "mounting hugetlbfs needs root"
if [ -z "${CW_IOCTL_MNTNS:-}" ]; then
	unshare -m true 2>/dev/null || skip "no private mount namespace"
	CW_IOCTL_MNTNS=1 exec unshare -m --propagation private "$0" "$@"
fi
cw_workdir
cd "$W" || fail "cd $W"
mkdir -p "$T/huge"
mount -t hugetlbfs none "$T/huge" 2>/dev/null || skip "cannot mount hugetlbfs"
trap 'umount -l "$T/huge" 2>/dev/null; rm -rf "$T"' EXIT
: >"$T/huge/f" || skip "cannot create a file on hugetlbfs"
echo data >"$W/plain.txt"
cat >"$T/i.py" <<'PY'
import errno, fcntl, os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, 0x40047211, b"\0" * 4)  # type 'r' (vfat's)
        print(p, "ok")
    except OSError as e:
        print(p, errno.errorcode[e.errno])
PY
"$CW_PY" "$T/i.py" "$T/huge/f" "$W/plain.txt" /dev/null >"$O/bare.out" 2>&1
cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/i.py" "$T/huge/f" "$W/plain.txt" /dev/null >"$O/out" 2>"$O/err"
cat "$O/out" >&2
cmp -s "$O/bare.out" "$O/out" || { diff "$O/bare.out" "$O/out" >&2; fail "answers differ from bare"; }
report_assert "$O/r.json" \
	"len([x for x in d['denials'] if x['syscall'] == 'ioctl' and x['capability']['kind'] == 'unrestricted']) == 3"
# A passed type (FS_IOC_GETFLAGS, 'f') on the same file is not refused.
cw --profile verify --report "$O/r2.json" -- "$CW_PY" -c 'import fcntl, os, sys; fcntl.ioctl(os.open(sys.argv[1], os.O_RDONLY), 0x80086601, b"\0" * 8); print("ok")' "$W/plain.txt" >"$O/out2" 2>&1
grep -q '^ok$' "$O/out2" || { cat "$O/out2" >&2; fail "FS_IOC_GETFLAGS was refused"; }
report_assert "$O/r2.json" "len(d['denials']) == 0"
exit 0
