#!/bin/sh
# A denied run says so on stderr (issue 17 item 12): one line with how many
# operations were denied, the first (capability, scope, rule, next action)
# and where the report is; nothing under -q, nothing when nothing was denied.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
cw --profile readonly --report "$O/r.json" -- sh -c 'echo a > one; echo b > two; true' >"$O/out" 2>"$O/err"
[ "$(grep -c '^capwatch: ' "$O/err")" = 1 ] || { cat "$O/err" >&2; fail "expected exactly one capwatch line on stderr"; }
grep -q "^capwatch: 2 operations denied by profile readonly; first: workspace_write $W/one (readonly:workspace_write:default), next action change_command; details in $O/r.json$" "$O/err" ||
	{ cat "$O/err" >&2; fail "the summary line does not name the count, the first denial and the report"; }
report_assert "$O/r.json" "len(d['denials']) == 2"
cw -q --profile readonly --report "$O/q.json" -- sh -c 'echo a > one' >"$O/out" 2>"$O/err"
! grep -q '^capwatch: ' "$O/err" || fail "-q printed a capwatch line"
cw --profile readonly -- sh -c 'echo a > one' >"$O/out" 2>"$O/err"
grep -q "run with --report FILE for details$" "$O/err" || { cat "$O/err" >&2; fail "without a report the summary does not say how to get one"; }
cw --profile readonly --report "$O/ok.json" -- sh -c 'cat /etc/hostname >/dev/null' >"$O/out" 2>"$O/err"
expect_rc 0 "a run with nothing denied"
! grep -q '^capwatch: ' "$O/err" || { cat "$O/err" >&2; fail "a run with nothing denied printed a capwatch line"; }
exit 0
