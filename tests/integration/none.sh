#!/bin/sh
# --profile none denies the command itself: it never starts (a marker it
# would create is absent), capwatch exits 126, the report says
# policy_denied and has no "exit".
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

cw --profile none --report "$O/r.json" --trace "$O/t.jsonl" -- sh -c 'echo ran > marker; echo ran' >"$O/out"
expect_rc 126 "--profile none"
[ ! -e marker ] || fail "--profile none: the command ran (marker exists)"
[ ! -s "$O/out" ] || fail "--profile none: the command printed: $(cat "$O/out")"
report_assert "$O/r.json" \
	"d['profile'] == 'none'" \
	"outcome['state'] == 'denied'" \
	"outcome['kind'] == 'policy_denied'" \
	"'exit' not in outcome" \
	"not procs() or all(not p.get('exe') or base(p.get('exe')) not in ('dash', 'sh') for p in procs())"
trace_assert "$O/t.jsonl" \
	"header['schema'] == 'capwatch.trace/v1'" \
	"summary['type'] == 'summary'" \
	"summary['outcome']['kind'] == 'policy_denied'" \
	"not execs()"

# Same through a profile file that extends none.
printf '{"name": "nothing", "extends": "none", "notes": "integration test"}\n' > "$O/nothing.json"
cw --profile "$O/nothing.json" --report "$O/r2.json" -- sh -c 'echo ran > marker'
expect_rc 126 "--profile FILE extending none"
[ ! -e marker ] || fail "profile extending none: the command ran"
report_assert "$O/r2.json" "outcome['kind'] == 'policy_denied'" "'exit' not in outcome"
exit 0
