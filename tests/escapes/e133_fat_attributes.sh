#!/bin/sh
# An ioctl capwatch knows nothing of, on a file outside the workspace: a
# vfat file's DOS attributes (FAT_IOCTL_SET_ATTRIBUTES, type 'r', needs only
# a descriptor, here opened read-only) set to hidden+system+read-only. The
# filter passes the ioctl types of the common file systems in the kernel;
# any other type on a regular file or directory of another file system is
# refused ENOTTY and recorded as unrestricted (issue 14 item 4: unknown
# ioctls on files are refused). Setup (root, private mount ns): a vfat image
# in the test's temp dir mounted on $H.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
command -v mkfs.vfat >/dev/null 2>&1 || skip "mkfs.vfat (dosfstools) not installed"
command -v losetup >/dev/null 2>&1 || skip "losetup not installed"
dd if=/dev/zero of="$T/fat.img" bs=1M count=4 2>/dev/null || fail "image"
mkfs.vfat "$T/fat.img" >/dev/null 2>&1 || skip "mkfs.vfat failed"
LOOP=$(losetup -f --show "$T/fat.img" 2>/dev/null) || skip "no loop device"
trap 'umount -l "$H" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; esc_cleanup' EXIT
rm -rf "$H" && mkdir -p "$H"
mount -t vfat "$LOOP" "$H" || skip "cannot mount vfat"
cat >"$T/fat.py" <<'PY'
import fcntl, os, struct, sys
p = sys.argv[1]
fd = os.open(p, os.O_RDONLY)
GET, SET = 0x80047210, 0x40047211
try:
    fcntl.ioctl(fd, SET, struct.pack("I", 0x07))  # read-only, hidden, system
except OSError as e:
    print("set failed", e.errno)
a = struct.unpack("I", fcntl.ioctl(fd, GET, b"\0" * 4))[0]
print("attrs", a)
PY
echo data >"$H/notes.txt"
bare "$PY" "$T/fat.py" "$H/notes.txt"
grep -q "^attrs 7$" "$O/bare.out" || esc_control_failed "bare: the attributes were not set: $(cat "$O/bare.out")"
"$PY" -c 'import fcntl, os, struct, sys; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.ioctl(fd, 0x40047211, struct.pack("I", 0))' "$H/notes.txt" ||
	fail "could not clear the attributes"
under verify -- "$PY" "$T/fat.py" "$H/notes.txt"
grep -q "^attrs 7$" "$OUT" && esc_bypass "an unknown ioctl set DOS attributes on $H/notes.txt under verify"
grep -q "^set failed 25$" "$OUT" || esc_bypass "FAT_IOCTL_SET_ATTRIBUTES was not refused ENOTTY: $(cat "$OUT")"
report_has 'any(x["syscall"] == "ioctl" and x["capability"]["kind"] == "unrestricted" for x in d["denials"])'
exit 0
