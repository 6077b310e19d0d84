#!/bin/sh
# Approvals through the approval socket (--approval-socket), answered by the
# example client tools/approval_client.py. Everything runs inside a private
# network namespace: an allowed connect to 203.0.113.7 fails ENETUNREACH, a
# denied one EPERM.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
cw_workdir
CLIENT="$top_srcdir/tools/approval_client.py"
DST=203.0.113.7:80

# net2.py: two connects to $DST, one after the other; prints both errnos.
cat > net2.py <<'PY'
import errno, socket, sys
out = []
for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2):
	s = socket.socket()
	s.settimeout(10)
	try:
		s.connect(("203.0.113.7", 80))
		out.append("CONNECTED")
	except OSError as e:
		out.append(errno.errorcode.get(e.errno, str(e.errno)))
	s.close()
print(" ".join(out))
PY

# run_with_client NAME CLIENT-ARGS -- CAPWATCH-ARGS: the client and capwatch
# in one netns; capwatch in its own session with no terminal, so only the
# socket can answer.
run_with_client() {
	name=$1; shift
	cargs=""
	while [ "$1" != "--" ]; do cargs="$cargs '$1'"; shift; done
	shift
	S=$O/$name.sock
	rm -f "$O/$name.log"
	# Once capwatch is gone its socket is too: a client that had not
	# connected yet (readonly never asks, and ends before the client
	# starts) would only wait out its 30 s connect timeout. One that did
	# has had every answer it gave read, and ends on the socket's EOF.
	in_netns sh -c "
		$CW_PY '$CLIENT' '$S' --log '$O/$name.log' $cargs &
		cl=\$!
		setsid -w timeout -k 5 60 '$CAPWATCH' --approval-socket '$S' --report '$O/$name.json' --trace '$O/$name.jsonl' \"\$@\" </dev/null
		rc=\$?; kill \$cl 2>/dev/null; wait; exit \$rc" sh "$@"
	rc=$?
}

# 1. allow once: exactly the first connect goes through, the second is denied.
run_with_client once --sequence allow,deny -- -- "$CW_PY" net2.py >"$O/once.out"
expect_rc 0 "allow once"
[ "$(cat "$O/once.out")" = "ENETUNREACH EPERM" ] || fail "allow once: connects saw '$(cat "$O/once.out")', expected 'ENETUNREACH EPERM'"
[ "$(wc -l <"$O/once.log")" = 2 ] || fail "allow once: the client got $(wc -l <"$O/once.log") requests, expected 2"
"$CW_PY" - "$O/once.log" <<'PY' || fail "allow once: request fields"
import json, sys
for l in open(sys.argv[1]):
	r = json.loads(l)
	assert r["capability"] == "external_network" and r["scope"] == "203.0.113.7:80", r
	assert r["operation"] == "connect" and r["pid"] > 0 and "python" in r["program"], r
	assert isinstance(r["id"], int), r
PY
report_assert "$O/once.json" \
	"len(d['approvals']) == 1" \
	"d['approvals'][0]['how'] == 'socket' and d['approvals'][0]['for'] == 'once'" \
	"d['approvals'][0]['capability']['scope'] == '$DST' and d['approvals'][0]['count'] == 1" \
	"len(denials('external_network', '$DST')) == 1" \
	"denials('external_network', '$DST')[0]['source'] == 'approval'" \
	"denied_run()" \
	"denial['source'] == 'approval'"
trace_assert "$O/once.jsonl" \
	"len(ops('external_network', 'allow', '$DST')) == 1" \
	"ops('external_network', 'allow', '$DST')[0]['rule'] == 'approval:socket:once'" \
	"ops('external_network', 'allow', '$DST')[0]['source_of_decision'] == 'approval'" \
	"len(ops('external_network', 'deny', '$DST')) == 1" \
	"ops('external_network', 'deny', '$DST')[0]['errno'] == 'EPERM'"

# 2. allow with remember: asked once, both connects go through.
run_with_client run --allow "external_network:203.0.113.7:*" --remember -- -- "$CW_PY" net2.py >"$O/run.out"
expect_rc 0 "allow for the run"
[ "$(cat "$O/run.out")" = "ENETUNREACH ENETUNREACH" ] || fail "allow for the run: connects saw '$(cat "$O/run.out")'"
[ "$(wc -l <"$O/run.log")" = 1 ] || fail "allow for the run: the client was asked $(wc -l <"$O/run.log") times, expected once"
report_assert "$O/run.json" "not denials()" \
	"len(d['approvals']) == 1 and d['approvals'][0]['for'] == 'run' and d['approvals'][0]['count'] == 2"

# 3. deny with remember: asked once, both denied.
run_with_client never --remember -- -- "$CW_PY" net2.py >"$O/never.out"
[ "$(cat "$O/never.out")" = "EPERM EPERM" ] || fail "deny for the run: connects saw '$(cat "$O/never.out")'"
[ "$(wc -l <"$O/never.log")" = 1 ] || fail "deny for the run: the client was asked $(wc -l <"$O/never.log") times, expected once"

# 4. A client that disconnects with the question open: deny.
run_with_client drop --drop -- -- "$CW_PY" net2.py 1 >"$O/drop.out"
[ "$(cat "$O/drop.out")" = "EPERM" ] || fail "dropped client: connect saw '$(cat "$O/drop.out")'"
report_assert "$O/drop.json" "'went away' in denial['reason']" "denial['nextAction'] == 'request_approval'"

# 5. No client at all: denied when --approval-timeout passes.
start=$(date +%s)
in_netns setsid -w timeout -k 5 60 "$CAPWATCH" --approval-socket "$O/none.sock" --approval-timeout 1 \
	--report "$O/none.json" -- "$CW_PY" net2.py 1 </dev/null >"$O/none.out"
[ "$(cat "$O/none.out")" = "EPERM" ] || fail "no client: connect saw '$(cat "$O/none.out")'"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "no client: the timeout did not end the wait"
report_assert "$O/none.json" "'no answer in time' in denial['reason']"
[ ! -e "$O/none.sock" ] || fail "the approval socket was left behind"

# 6. The rest of the tree goes on while one connect waits: the client
#    answers only after another process of the tree created a file.
run_with_client conc --sequence allow --wait-for "$W/marker" -- -- sh -c \
	"'$CW_PY' net2.py 1 > n.out & sleep 0.3; echo x > marker; wait"
[ "$(cat n.out)" = "ENETUNREACH" ] || fail "concurrent: connect saw '$(cat n.out)' (was the loop blocked?)"

# 7. The profile's deny is never asked: readonly denies external_network.
run_with_client ro --allow "*" -- --profile readonly -- "$CW_PY" net2.py 1 >"$O/ro.out"
[ "$(cat "$O/ro.out")" = "EPERM" ] || fail "readonly: connect saw '$(cat "$O/ro.out")'"
[ ! -s "$O/ro.log" ] || fail "readonly: the client was asked about a denied operation"
report_assert "$O/ro.json" "not d['approvals']"
# 8. A file operation waits too (the handler runs again on the answer):
#    workspace_write asks for *.lock; the first create is allowed, the second denied.
cat > "$T/lock.json" <<'J'
{"name": "locks", "extends": "verify",
 "capabilities": {"workspace_write": {"ask": ["**/*.lock"]}}}
J
run_with_client lock --sequence allow,deny -- --profile "$T/lock.json" -- sh -c \
	'echo one > a.lock; echo "a:$?"; echo two > b.lock 2>/dev/null; echo "b:$?"; echo free > c.txt'
[ "$(cat a.lock)" = one ] || fail "lock: the allowed create did not happen"
[ ! -e b.lock ] || fail "lock: the denied create happened"
[ "$(cat c.txt)" = free ] || fail "lock: an unasked write failed"
[ "$(wc -l <"$O/lock.log")" = 2 ] || fail "lock: the client was asked $(wc -l <"$O/lock.log") times, expected 2"
report_assert "$O/lock.json" \
	"len(d['approvals']) == 1 and d['approvals'][0]['capability']['scope'] == '$W/a.lock'" \
	"len(denials('workspace_write', '$W/b.lock')) == 1"
trace_assert "$O/lock.jsonl" \
	"[e['errno'] for e in ops('workspace_write', 'deny', '$W/b.lock')] == ['EACCES']"

# 10. The operation changed while it waited: a deny is for the call,
#     whatever its bytes say now. A thread opens p.lock (asked about);
#     another thread rewrites the name to q.lock once the question is out
#     (the client logs it before it answers), then lets the client answer
#     "deny". The handler runs again on the answer and reads q.lock: the
#     call still fails EACCES, neither name is created, nothing is asked
#     again, and the denial of p.lock is in the report (e143: at 2766b13
#     the rewritten name was decided on its own and asked anew).
cat > swap.py <<'PY'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None, use_errno=True)
name = ctypes.create_string_buffer(b"p.lock")
log, marker = sys.argv[1], sys.argv[2]
def swap():
	end = time.time() + 20
	while time.time() < end and not (os.path.exists(log) and os.path.getsize(log) > 0):
		time.sleep(0.01)
	ctypes.memmove(name, b"q.lock", 6)
	open(marker, "w").close()
t = threading.Thread(target=swap)
t.start()
fd = libc.open(name, os.O_WRONLY | os.O_CREAT, 0o644)
t.join()
print("fd" if fd >= 0 else "errno %d" % ctypes.get_errno())
PY
rm -f "$W/swapped" "$W/swap.log"
in_netns sh -c "
	$CW_PY '$CLIENT' '$O/swap.sock' --log '$W/swap.log' --sequence deny,allow --wait-for '$W/swapped' &
	setsid -w timeout -k 5 60 '$CAPWATCH' --approval-socket '$O/swap.sock' --report '$O/swap.json' \
		--profile '$T/lock.json' -- '$CW_PY' swap.py '$W/swap.log' '$W/swapped' </dev/null
	rc=\$?; wait; exit \$rc" >"$O/swap.out"
[ "$(cat "$O/swap.out")" = "errno 13" ] || fail "changed operation: open saw '$(cat "$O/swap.out")', expected EACCES (errno 13)"
[ ! -e p.lock ] && [ ! -e q.lock ] || fail "changed operation: a file was created after the deny: $(ls ./*.lock)"
"$CW_PY" - "$W/swap.log" "$W" <<'PY' || fail "changed operation: the client was not asked exactly once, about p.lock"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["scope"] for r in rs] == [sys.argv[2] + "/p.lock"], rs
PY
report_assert "$O/swap.json" \
	"len(denials('workspace_write', '$W/p.lock')) == 1" \
	"denials('workspace_write', '$W/p.lock')[0]['rule'] == 'approval:socket:once'" \
	"not d['approvals']"

# 9. The socket is protected metadata: the command cannot remove or replace it.
setsid -w timeout -k 5 60 "$CAPWATCH" --approval-socket "$W/appr.sock" --report "$O/prot.json" -- \
	sh -c 'rm -f appr.sock 2>/dev/null; test -S appr.sock && echo kept' </dev/null >"$O/prot.out"
[ "$(cat "$O/prot.out")" = kept ] || fail "the command removed the approval socket"
report_assert "$O/prot.json" "len(denials('protected_metadata', '$W/appr.sock')) == 1"
[ ! -e "$W/appr.sock" ] || fail "the approval socket in the workspace was left behind"

"$CW_PY" "$top_srcdir/tests/approval/schema_check.py" "$top_srcdir/schemas" "$O"/*.json "$O"/*.jsonl || fail "reports or traces do not match their schemas"
exit 0
