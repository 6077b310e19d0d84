#!/bin/sh
# E54 (descriptor variants): fchmod, fchown, fsetxattr, fremovexattr and
# futimens on an O_RDONLY descriptor (ownership suffices, no write access
# needed). Targets: a file outside the workspace (verify) and one inside
# (readonly).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/mdf.py" <<'PYEOF'
import os, sys
mode, p = sys.argv[1], sys.argv[2]
fd = os.open(p, os.O_RDONLY)
try:
    if mode == "fchmod": os.fchmod(fd, 0o777)
    elif mode == "fchown": os.fchown(fd, 1, 1)
    elif mode == "fsetxattr": os.setxattr(fd, "user.pwn", b"1")
    elif mode == "fremovexattr": os.removexattr(fd, "user.keep")
    elif mode == "futimens": os.utime(fd, (0, 0))
    print(mode, "done")
except OSError as e:
    print(mode, "failed", e)
PYEOF
mk() { rm -f "$1"; canary_make "$1"; chmod 600 "$1"; touch -d '2001-01-01' "$1"; "$PY" -c "import os,sys; os.setxattr(sys.argv[1], 'user.keep', b'1')" "$1" 2>/dev/null; canary_save "$1"; }
open=
for mode in fchmod fchown fsetxattr fremovexattr futimens; do
	for f in "$H/.bashrc:verify" "$W/src.c:readonly"; do
		file=${f%%:*}; prof=${f#*:}
		mk "$file"
		bare "$PY" "$T/mdf.py" $mode "$file"
		if canary_intact "$file"; then
			grep -q 'Operation not supported' "$O/bare.out" && continue
			esc_control_failed "$mode: bare attack did not change $file: $(cat "$O/bare.out")"
		fi
		mk "$file"
		under $prof -- "$PY" "$T/mdf.py" $mode "$file"
		canary_intact "$file" || open="$open $mode($file,$prof)"
	done
done
[ -n "$open" ] && esc_bypass "metadata changed through an O_RDONLY descriptor:$open"
exit 0
