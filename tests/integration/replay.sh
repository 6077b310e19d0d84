#!/bin/sh
# replay re-decides a recorded trace with the supervisor's own policy code
# (contract section 5): replayed under the profile it was recorded with,
# nothing changes; replayed under a stricter one, exactly the operations
# that profile denies are listed.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
cw_workdir
echo a > a
echo 'K=v' > .env
cat > work.py <<'PY'
import os, socket, subprocess
def attempt(f):
	try:
		f()
	except OSError:
		pass
attempt(lambda: open("a").read())
attempt(lambda: open("new.txt", "w").write("x"))
attempt(lambda: open(".env").read())
attempt(lambda: subprocess.run(["/bin/true"]))
attempt(lambda: socket.socket().connect(("203.0.113.7", 80)))
PY
for prof in readonly verify observe; do
	in_netns setsid -w timeout -k 5 60 "$CAPWATCH" --profile $prof --trace "$O/$prof.jsonl" --report "$O/$prof.json" \
		-- "$CW_PY" work.py </dev/null
	rm -f new.txt
	timeout 60 "$CAPWATCH" replay --profile $prof "$O/$prof.jsonl" >"$O/$prof.replay" 2>&1
	rc=$?
	cat "$O/$prof.replay" >&2
	expect_rc 0 "replay of a $prof trace under $prof"
	grep -q 'would change: 0 ' "$O/$prof.replay" || fail "replay under the recording profile ($prof) changes decisions"
done

# The observe run did everything; under readonly exactly these are denied.
timeout 60 "$CAPWATCH" replay --profile readonly --report "$O/rr.json" "$O/observe.jsonl" >"$O/or.replay" 2>&1
rc=$?
cat "$O/or.replay" >&2
expect_rc 1 "replay of an observe trace under readonly"
grep -q "workspace_write $W/new.txt: allow -> deny" "$O/or.replay" || fail "replay: the write to new.txt is not listed"
grep -q "filesystem_read $W/.env: allow -> deny" "$O/or.replay" || fail "replay: the secret read is not listed"
grep -q "external_network 203.0.113.7:80: allow -> deny" "$O/or.replay" || fail "replay: the connect is not listed"
! grep -q "filesystem_read $W/a:" "$O/or.replay" || fail "replay: an ordinary read is listed as changing"
# ... and the live readonly run denied the same things.
report_assert "$O/readonly.json" "denials('workspace_write', '$W/new.txt')" \
	"denials('filesystem_read', '$W/.env')" "denials('external_network', '203.0.113.7:80')"
report_assert "$O/rr.json" "d['schema'] == 'capwatch.report/v1'" "denials('workspace_write', '$W/new.txt')" \
	"denials('external_network', '203.0.113.7:80')"
exit 0
