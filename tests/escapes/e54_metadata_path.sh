#!/bin/sh
# E54 (path variants): chmod, fchmodat, chown, lchown, utime(s)/utimensat,
# setxattr/lsetxattr/removexattr on a file outside the workspace (and one
# inside under readonly). Each changes metadata without opening for write.
# Every call has a file of its own (home/MODE/.bashrc, ws/MODE/src.c), so
# all calls run in one interpreter bare and in one capwatch run per
# profile; each file's canary and denial are then checked on their own.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/md.py" <<'PYEOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def chk(r, what):
    if r < 0: raise OSError(ctypes.get_errno(), what)
def one(mode, p):
    if mode == "chmod": os.chmod(p, 0o777)
    elif mode == "fchmodat": os.chmod(os.path.basename(p), 0o777, dir_fd=os.open(os.path.dirname(p), os.O_DIRECTORY))
    elif mode == "fchmodat2": chk(libc.syscall(452, -100, p.encode(), 0o777, 0), "fchmodat2")
    elif mode == "chown": os.chown(p, 1, 1)
    elif mode == "lchown": os.lchown(p, 1, 1)
    elif mode == "utime": os.utime(p, (0, 0))
    elif mode == "utimes": chk(libc.syscall(235, p.encode(), None), "utimes")
    elif mode == "setxattr": os.setxattr(p, "user.pwn", b"1")
    elif mode == "lsetxattr": os.setxattr(p, "user.pwn", b"1", follow_symlinks=False)
    elif mode == "removexattr": os.removexattr(p, "user.keep")
for arg in sys.argv[1:]:
    mode, p = arg.split(":", 1)
    try:
        one(mode, p)
        print(mode, p, "done", flush=True)
    except OSError as e:
        print(mode, p, "failed", e, flush=True)
PYEOF
MODES="chmod fchmodat fchmodat2 chown lchown utime utimes setxattr lsetxattr removexattr"
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
bare "$PY" "$T/md.py" $H_ARGS $W_ARGS
cp "$O/bare.out" "$O/bare.all"
SKIP=
for a in $H_ARGS $W_ARGS; do
	mode=${a%%:*} file=${a#*:}
	if canary_intact "$file"; then
		grep "^$mode $file " "$O/bare.all" | grep -q 'Operation not supported' && { SKIP="$SKIP $file"; continue; }  # no user xattrs here
		esc_control_failed "$mode: bare attack did not change $file: $(grep "^$mode $file " "$O/bare.all")"
	fi
done
# shellcheck disable=SC2086
mk $FILES
for run in "verify:unrestricted:$H_ARGS" "readonly:workspace_write:$W_ARGS"; do
	prof=${run%%:*} rest=${run#*:}; cap=${rest%%:*} args=${rest#*:}
	# shellcheck disable=SC2086
	under $prof -- "$PY" "$T/md.py" $args
	for a in $args; do
		mode=${a%%:*} file=${a#*:}
		case " $SKIP " in *" $file "*) continue ;; esac
		canary_intact "$file" || esc_bypass "$mode changed $file under --profile $prof ($(canary_diff "$file"))"
		expect_denied $cap "'$file'"
	done
done
