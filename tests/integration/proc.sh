#!/bin/sh
# Signals: inside the supervised tree they are free; aimed at a process
# outside it they are process_control, denied (EPERM) by verify, and the
# target lives on. Only the sleeper this test started is ever signalled.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

sleep 987655 &
victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$T"' EXIT

cw --profile verify --report "$O/k.json" --trace "$O/k.jsonl" -- kill -TERM $victim 2>"$O/k.err"
cat "$O/k.err" >&2
expect_rc 1 "verify: kill -TERM a process outside the tree"
kill -0 $victim 2>/dev/null || fail "the process outside the tree was killed"
grep -q 'Operation not permitted' "$O/k.err" || fail "kill did not see EPERM"
report_assert "$O/k.json" \
	"outcome['kind'] == 'enforcement_denied'" \
	"kind(denial['capability']) == 'process_control'" \
	"str(denial['capability']['scope']) == '$victim'" \
	"len(denials('process_control')) >= 1"
trace_assert "$O/k.jsonl" \
	"[e for e in ops('process_control', 'deny') if e.get('target_pid') == $victim and e['errno'] == 'EPERM']"

# Inside the tree: a child killed by its parent.
cw --profile verify --report "$O/in.json" -- sh -c 'sleep 30 & p=$!; kill -TERM $p; wait $p; echo $?' >"$O/in.out"
expect_rc 0 "verify: signal a child inside the tree"
[ "$(cat "$O/in.out")" = 143 ] || fail "the child inside the tree was not killed by SIGTERM ($(cat "$O/in.out"))"
report_assert "$O/in.json" "not denials()"
kill -0 $victim 2>/dev/null || fail "the outside process died"
exit 0
