#!/bin/sh
# E85: ioctl(FS_IOC_SETFLAGS, FS_APPEND_FL) on a file opened O_RDONLY: an
# inode flag change (append-only; FS_IMMUTABLE_FL alike) on a file outside
# the workspace, through a read-only descriptor and an ioctl capwatch does
# not look at. The user's file can no longer be rewritten or removed.
# Capability sought: CAP_LINUX_IMMUTABLE and a metadata write outside the
# workspace (unrestricted).
# Expected after the fix: EPERM (Docker's default set has no
# CAP_LINUX_IMMUTABLE; the ioctl on an outside file is unrestricted); the
# flag is not set. The test clears the flag it set, at exit.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
command -v lsattr >/dev/null && command -v chattr >/dev/null || skip "e2fsprogs (lsattr/chattr) not installed"
F=$H/notes.txt
trap 'chattr -a -i "$F" 2>/dev/null; esc_cleanup' EXIT
printf 'keep\n' >"$F"
chattr +a "$F" 2>/dev/null && chattr -a "$F" || skip "the file system of $T does not support FS_APPEND_FL"
cmd='import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
flags = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, b"\0" * 8)[:4])[0]
try:
    fcntl.ioctl(fd, 0x40086602, struct.pack("q", flags | 0x20))  # FS_IOC_SETFLAGS |= FS_APPEND_FL
    print("setflags ok")
except OSError as e:
    print("setflags failed", e.errno)'
has_a() { lsattr -d "$F" 2>/dev/null | cut -d' ' -f1 | grep -q a; }
bare "$PY" -c "$cmd" "$F"
has_a || esc_control_failed "bare FS_IOC_SETFLAGS did not make $F append-only: $(cat "$O/bare.out")"
chattr -a "$F"
under verify -- "$PY" -c "$cmd" "$F"
if has_a; then chattr -a "$F"; esc_bypass "FS_IOC_SETFLAGS through an O_RDONLY descriptor made the outside file $F append-only under --profile verify"; fi
# Refused: EACCES with an unrestricted denial (capwatch decides the flag
# ioctl as a metadata write on the object, like fchmod), or EPERM from the
# kernel (no CAP_LINUX_IMMUTABLE).
grep -q 'setflags failed \(1\|13\)$' "$OUT" || esc_bypass "FS_IOC_SETFLAGS was not refused: $(cat "$OUT")"
if grep -q 'setflags failed 13$' "$OUT"; then
	report_has 'any(x["syscall"] == "ioctl" and x["capability"]["kind"] == "unrestricted" for x in d["denials"])'
fi
exit 0
