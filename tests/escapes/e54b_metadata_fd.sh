#!/bin/sh
# E54 (descriptor variants): fchmod, fchown, fsetxattr, fremovexattr and
# futimens on an O_RDONLY descriptor (ownership suffices, no write access
# needed). Targets: a file outside the workspace (verify) and one inside
# (readonly). Every call has a file of its own (home/MODE/.bashrc,
# ws/MODE/src.c), so all calls run in one interpreter bare and in one
# capwatch run per profile; each file's canary is then checked on its own.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/mdf.py" <<'PYEOF'
import os, sys
for arg in sys.argv[1:]:
    mode, p = arg.split(":", 1)
    try:
        fd = os.open(p, os.O_RDONLY)
        if mode == "fchmod": os.fchmod(fd, 0o777)
        elif mode == "fchown": os.fchown(fd, 1, 1)
        elif mode == "fsetxattr": os.setxattr(fd, "user.pwn", b"1")
        elif mode == "fremovexattr": os.removexattr(fd, "user.keep")
        elif mode == "futimens": os.utime(fd, (0, 0))
        os.close(fd)
        print(mode, p, "done", flush=True)
    except OSError as e:
        print(mode, p, "failed", e, flush=True)
PYEOF
MODES="fchmod fchown fsetxattr fremovexattr futimens"
# mk FILE...: fresh canaries (mode 600, an old mtime, user.keep set).
mk() {
	for _f in "$@"; do
		rm -f "$_f"; mkdir -p "${_f%/*}"; canary_make "$_f"; chmod 600 "$_f"; touch -d '2001-01-01' "$_f"
	done
	"$PY" -c "import os,sys
for p in sys.argv[1:]:
    try: os.setxattr(p, 'user.keep', b'1')
    except OSError: pass" "$@"
	for _f in "$@"; do canary_save "$_f"; done
}
H_ARGS= W_ARGS= FILES=
for mode in $MODES; do
	H_ARGS="$H_ARGS $mode:$H/$mode/.bashrc" W_ARGS="$W_ARGS $mode:$W/$mode/src.c"
	FILES="$FILES $H/$mode/.bashrc $W/$mode/src.c"
done
# shellcheck disable=SC2086
mk $FILES
# shellcheck disable=SC2086
bare "$PY" "$T/mdf.py" $H_ARGS $W_ARGS
cp "$O/bare.out" "$O/bare.all"
SKIP=
for a in $H_ARGS $W_ARGS; do
	mode=${a%%:*} file=${a#*:}
	if canary_intact "$file"; then
		grep "^$mode $file " "$O/bare.all" | grep -q 'Operation not supported' && { SKIP="$SKIP $file"; continue; }
		esc_control_failed "$mode: bare attack did not change $file: $(grep "^$mode $file " "$O/bare.all")"
	fi
done
# shellcheck disable=SC2086
mk $FILES
open=
for run in "verify:$H_ARGS" "readonly:$W_ARGS"; do
	prof=${run%%:*} args=${run#*:}
	# shellcheck disable=SC2086
	under $prof -- "$PY" "$T/mdf.py" $args
	for a in $args; do
		mode=${a%%:*} file=${a#*:}
		case " $SKIP " in *" $file "*) continue ;; esac
		canary_intact "$file" || open="$open $mode($file,$prof)"
	done
done
[ -n "$open" ] && esc_bypass "metadata changed through an O_RDONLY descriptor:$open"
exit 0
