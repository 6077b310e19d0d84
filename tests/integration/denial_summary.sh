#!/bin/sh
# A denied run says so on stderr (issue 17 item 12): one line with how many
# operations were denied, how many of them were tolerated, the one that
# explains the outcome (capability, scope, rule, next action) and where the
# report is; nothing under -q, nothing when nothing was denied.
#
# Which denial heads the report (issue 17 item 11): a denial is tolerated
# when its process went on and exited 0; a run whose denials were all
# tolerated is not enforcement_denied; of the others, one whose next action
# is request_approval comes first, then the latest.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"

# 1. The shell goes on after both refused redirections and exits 0: both
# denials tolerated, the run a success, and the line says so.
cw --profile readonly --report "$O/r.json" -- sh -c 'echo a > one; echo b > two; true' >"$O/out" 2>"$O/err"
expect_rc 0 "a command that tolerated its denials"
[ "$(grep -c '^capwatch: ' "$O/err")" = 1 ] || { cat "$O/err" >&2; fail "expected exactly one capwatch line on stderr"; }
grep -q "^capwatch: 2 operations denied by profile readonly, all tolerated (the process went on and succeeded); details in $O/r.json$" "$O/err" ||
	{ cat "$O/err" >&2; fail "the summary line does not say the denials were tolerated"; }
report_assert "$O/r.json" "len(d['denials']) == 2" "all(e['tolerated'] for e in d['denials'])" \
	"outcome['kind'] == 'success'" "outcome['state'] == 'completed'" "'denial' not in outcome"

# 2. The shell's own denial (it fails: exit 1 from touch) and touch's: none
# tolerated; the headline is the later one, touch's, with its own pid.
cw --profile readonly --report "$O/r2.json" -- sh -c 'echo a > one; touch two' >"$O/out" 2>"$O/err"
expect_rc 1 "touch refused"
grep -q "^capwatch: 2 operations denied by profile readonly; the one that explains the outcome: workspace_write $W/two (readonly:workspace_write:default), next action change_command; details in $O/r2.json$" "$O/err" ||
	{ cat "$O/err" >&2; fail "the summary line does not name the count, the headline and the report"; }
report_assert "$O/r2.json" "outcome['kind'] == 'enforcement_denied'" "not any(e['tolerated'] for e in d['denials'])" \
	"denial['capability']['scope'] == '$W/two'" "denial['syscall'] in ('open', 'openat')" \
	"real(denial['program']) == real('$(command -v touch)')"

# 3. A process that tolerated its denial and one that did not: only the
# failing one's heads the report, though it came first in time; the other
# is marked tolerated.
cw --profile readonly --report "$O/r3.json" -- sh -c 'sh -c "echo a > one; exit 0"; sh -c "echo b > two; exit 0"; touch three; exit 0' >"$O/out" 2>"$O/err"
expect_rc 0 "the outer shell exits 0"
report_assert "$O/r3.json" "outcome['kind'] == 'enforcement_denied'" \
	"denial['capability']['scope'] == '$W/three'" \
	"[e['tolerated'] for e in d['denials']] == [True, True, False]"
grep -q "^capwatch: 3 operations denied by profile readonly (2 tolerated); the one that explains the outcome: workspace_write $W/three" "$O/err" ||
	{ cat "$O/err" >&2; fail "the summary line does not count the tolerated denials"; }

# 4. One process: a denied read of a secret, then a connect that verify asks
# about (no terminal: denied, request_approval), then another secret read;
# it fails. The connect heads the report though it is neither first nor
# last: approving it may be all the run needs. In a private network
# namespace (nothing leaves the machine).
if unshare -n true 2>/dev/null; then
	printf 'TOKEN=x\n' > .env
	cat > client.py <<'PY'
import errno, socket, sys
for attempt in ("read", "connect", "read"):
    try:
        if attempt == "read":
            open(".env").read()
        else:
            s = socket.socket()
            s.settimeout(5)
            s.connect(("203.0.113.7", 443))
    except OSError as e:
        print(attempt, errno.errorcode.get(e.errno, e.errno))
sys.exit(1)
PY
	unshare -n sh -c 'ip link set lo up; exec "$@"' sh "$CAPWATCH" --profile verify --report "$O/r4.json" -- "$CW_PY" client.py \
		</dev/null >"$O/out" 2>"$O/err"
	grep -q '^connect EPERM$' "$O/out" || { cat "$O/out" "$O/err" >&2; fail "the connect was not refused with EPERM"; }
	report_assert "$O/r4.json" "outcome['kind'] == 'enforcement_denied'" \
		"kind(denial['capability']) == 'external_network'" "denial['nextAction'] == 'request_approval'" \
		"denial['recoverable'] is True" "len(denials('filesystem_read')) == 2" \
		"[e['nextAction'] for e in d['denials']] == ['change_command', 'request_approval', 'change_command']"
else
	echo "note: no network namespace: case 4 not run" >&2
fi

# 5. The command's own exec denied (policy_denied): the line names it.
prog=$(readlink -f /bin/true)
printf '{"name": "notrue", "extends": "verify", "capabilities": {"process_spawn": {"deny": ["%s"]}}}\n' "$prog" > "$O/notrue.json"
cw --profile "$O/notrue.json" --report "$O/r5.json" -- "$prog" >"$O/out" 2>"$O/err"
expect_rc 126 "the command's own exec denied ($(cat "$O/err"))"
grep -q "^capwatch: 1 operation denied by profile notrue; the one that explains the outcome: process_spawn " "$O/err" ||
	{ cat "$O/err" >&2; fail "a command denied at its own exec is not named on stderr"; }

# -q: no line; no report: say how to get one
cw -q --profile readonly --report "$O/q.json" -- sh -c 'echo a > one' >"$O/out" 2>"$O/err"
! grep -q '^capwatch: ' "$O/err" || fail "-q printed a capwatch line"
cw --profile readonly -- sh -c 'echo a > one' >"$O/out" 2>"$O/err"
grep -q "run with --report FILE for details$" "$O/err" || { cat "$O/err" >&2; fail "without a report the summary does not say how to get one"; }
cw --profile readonly --report "$O/ok.json" -- sh -c 'cat /etc/hostname >/dev/null' >"$O/out" 2>"$O/err"
expect_rc 0 "a run with nothing denied"
! grep -q '^capwatch: ' "$O/err" || { cat "$O/err" >&2; fail "a run with nothing denied printed a capwatch line"; }
exit 0
