#!/bin/sh
# Issue 5: a setuid program inside the tree is an ordinary program
# (no_new_privs): it gains no privileges, so the loader is not in secure
# mode and honours LD_PRELOAD for it ("preload": "present"); without
# no_new_privs the loader would drop LD_PRELOAD for a setuid program.
# Needs root (to become an unprivileged user) and a setuid-root program.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_tmpdir
. "$top_srcdir/tests/preload/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to run capwatch as an unprivileged user"
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not installed"
SUID=
for p in /usr/bin/mount /bin/mount /usr/bin/su /bin/su; do
	if [ -u "$p" ] && [ "$(stat -c %u "$p")" = 0 ]; then SUID=$p; break; fi
done
[ -n "$SUID" ] || skip "no setuid-root program found"
chmod 755 "$T"
D=$T/u
mkdir "$D" && chmod 777 "$D" || fail "mkdir $D"
# Every directory up to the binary and the library must be searchable by
# the unprivileged user.
setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$PL_LIB" ||
	skip "the build tree is not readable by uid 65534"
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CAPWATCH" ||
	skip "capwatch is not executable by uid 65534"

# mount --version: a setuid-root program that needs no privilege to answer.
(cd "$D" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$D" TMPDIR="$D" \
	"$CAPWATCH" --report "$D/r.json" -- "$SUID" --version) >"$D/out" 2>&1 ||
	[ "$(basename "$SUID")" != mount ] || fail "capwatch -- $SUID --version failed: $(cat "$D/out")"

"$CW_PY" - "$D/r.json" "$SUID" <<'PYEOF' || fail "report checks"
import json, os, sys
r = json.load(open(sys.argv[1]))
prog = os.path.realpath(sys.argv[2])
ps = [p for p in r["processes"] if p["exe"] and os.path.realpath(p["exe"]) == prog]
if not ps or ps[0]["preload"] != "present":
    print("FAIL: setuid program preload:", [p["preload"] for p in ps], file=sys.stderr)
    sys.exit(1)
PYEOF
exit 0
