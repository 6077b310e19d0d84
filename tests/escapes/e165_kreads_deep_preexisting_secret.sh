#!/bin/sh
# Found while fixing e163 (2026-12-06), reads decided in the kernel
# (CAPWATCH_KERNEL_READS=1, opt-in): a .env that was already deeper than
# PATH_MAX when the run began. decide_read (supervisor/kernel.c) decides a
# read on the name the kernel gives the open file; past PATH_MAX there is
# none, and it fell back to the inode (cw_secret_ids_find) and the
# content. e150's .env was moved down during the run, so its inode was
# known; this one never had a name capwatch saw, and its read was allowed:
# read directly by a relative name from a cwd down there, and through
# /proc/self/fd of a write descriptor (e163's route). Held since: a file
# with no name and no known secret inode is read as a secret (fail closed;
# verify denies it). The portable back end decides on the whole name (e113):
# denied. Capability sought: filesystem_read of a secret (.env) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="E165_TOKEN=$$-hunter2"
# $W/x/ + 25 names of 200 bytes: deeper than PATH_MAX, made before the run.
"$PY" - "$W" "$SECRET" <<'PYEOF' || fail "setup"
import os, sys
os.chdir(sys.argv[1]); os.mkdir("x"); os.chdir("x")
for i in range(25):
    os.mkdir("d" * 200); os.chdir("d" * 200)
open(".env", "w").write(sys.argv[2] + "\n")
PYEOF
cat >"$T/deep.py" <<'PYEOF'
import os
os.chdir("x")
for i in range(25):
    os.chdir("d" * 200)
try:
    print("direct:", open(".env").read().strip())
except OSError as e:
    print("direct refused", e.errno)
try:
    w = os.open(".env", os.O_WRONLY)
    print("reopen:", os.read(os.open("/proc/self/fd/%d" % w, os.O_RDONLY), 100).decode().strip())
except OSError as e:
    print("reopen refused", e.errno)
PYEOF
cd "$W" || fail "cd $W"
bare "$PY" "$T/deep.py"
[ "$(grep -c "$SECRET" "$O/bare.out")" = 2 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	under verify "$@" -- "$PY" "$T/deep.py"
	grep -q "$SECRET" "$OUT" && esc_bypass "$_w: a .env deeper than PATH_MAX before the run was read: $(grep "$SECRET" "$OUT" | tr '\n' ' ')"
	[ "$(grep -c refused "$OUT")" = 2 ] || fail "$_w: both reads should be refused: $(cat "$OUT")"
	expect_denied filesystem_read
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): $(grep refused "$OUT" | tr '\n' ' ')"
}
esc_each_backend check
cd /
exit 0
