#!/bin/sh
# Credential calls (contract: unrestricted unless the profile allows it).
# Calls that change nothing (setresuid(-1,-1,-1), setuid to the ids the
# command already has: what libraries do routinely) are let through; a real
# change is denied with EPERM and named in the report. The handler decides
# on the command's ids as /proc/TID/status gives them.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
uid=$(id -u) gid=$(id -g)
other=$((uid == 0 ? 1000 : 0))
cat >"$T/ids.py" <<EOF2
import os
os.setresuid(-1, -1, -1)
os.setresgid(-1, -1, -1)
os.setuid($uid)
os.setgid($gid)
os.setreuid($uid, $uid)
print("noop ok", flush=True)
try:
    os.setuid($other)
    print("changed to", os.getuid())
except OSError as e:
    print("change refused errno=%d" % e.errno)
EOF2
cw --profile readonly --report "$O/r.json" -- "$CW_PY" "$T/ids.py" >"$O/out" 2>"$O/err"
grep -q "^noop ok" "$O/out" || { cat "$O/out" "$O/err" >&2; fail "a credential call that changes nothing was refused"; }
grep -q "^change refused errno=1$" "$O/out" || { cat "$O/out" "$O/err" >&2; fail "setuid($other) was not refused with EPERM"; }
report_assert "$O/r.json" "len(denials('unrestricted')) == 1" \
	"denials('unrestricted')[0]['syscall'] == 'setuid'"
