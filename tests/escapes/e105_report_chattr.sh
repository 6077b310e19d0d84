#!/bin/sh
# E105: FS_IOC_SETFLAGS on capwatch's own report file. The test creates the
# report file (it owns it) and passes it with --report; the command opens
# it read-only and sets FS_IMMUTABLE_FL (or FS_APPEND_FL), so capwatch's
# final write of the report fails: the run ends without its authoritative
# result. (E67 covers writes to the report; this is a flag, through an
# ioctl on an O_RDONLY descriptor.)
# Capability sought: protected_metadata (the report file) via
# CAP_LINUX_IMMUTABLE.
# Expected after the fix: the ioctl fails EPERM (no CAP_LINUX_IMMUTABLE in
# Docker's default set; the report is protected), the report is written,
# non-empty valid JSON. The test clears any flag it set, at exit.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
command -v lsattr >/dev/null && command -v chattr >/dev/null || skip "e2fsprogs (lsattr/chattr) not installed"
RF=$O/report$((N + 1)).json
trap 'chattr -i -a "$O"/*.json "$T/f" 2>/dev/null; esc_cleanup' EXIT
: >"$T/f"
chattr +i "$T/f" 2>/dev/null && chattr -i "$T/f" || skip "the file system of $T does not support FS_IMMUTABLE_FL"
cmd='import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
flags = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, b"\0" * 8)[:4])[0]
try:
    fcntl.ioctl(fd, 0x40086602, struct.pack("q", flags | 0x10))  # FS_IMMUTABLE_FL
    print("setflags ok")
except OSError as e:
    print("setflags failed", e.errno)'
has_i() { lsattr -d "$1" 2>/dev/null | cut -d' ' -f1 | grep -q i; }
bare "$PY" -c "$cmd" "$T/f"
has_i "$T/f" || esc_control_failed "bare FS_IOC_SETFLAGS did not make $T/f immutable: $(cat "$O/bare.out")"
chattr -i "$T/f"
: >"$RF"
under_any verify -- "$PY" -c "$cmd" "$RF"
[ "$R" = "$RF" ] || fail "report path mismatch: $R vs $RF"
was_i=no; has_i "$RF" && was_i=yes
chattr -i -a "$RF" 2>/dev/null
report_ok || { cat "$OUT" >&2; esc_bypass "capwatch's report was made immutable by the command (immutable: $was_i): no report (exit $rc)"; }
[ "$was_i" = no ] || esc_bypass "the command set FS_IMMUTABLE_FL on capwatch's report file"
# EACCES with a protected_metadata denial (the report is a protected
# file), or the kernel's EPERM.
grep -q 'setflags failed \(1\|13\)$' "$OUT" || esc_bypass "FS_IOC_SETFLAGS on the report file was not refused: $(cat "$OUT")"
exit 0
