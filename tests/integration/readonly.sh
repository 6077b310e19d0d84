#!/bin/sh
# --profile readonly: every write into the workspace is denied at runtime.
# Real effect: the workspace is byte-for-byte unchanged and the command sees
# EACCES ("Permission denied") and fails with its own exit status. Report:
# enforcement_denied naming workspace_write and the resolved path; trace: an
# "op" event with decision "deny" for that path.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

echo keep > existing
echo aaa > a
mkdir sub
echo inner > sub/inner
before=$(snapshot "$W")

n=0
# deny_case WANT_RC SCOPE_PY CMD...: SCOPE_PY is a python value (string or R(..)).
deny_case() {
	want=$1 scope=$2; shift 2
	n=$((n + 1))
	r=$O/r$n.json t=$O/t$n.jsonl
	cw --profile readonly --report "$r" --trace "$t" -- "$@" >"$O/out$n" 2>"$O/err$n"
	cat "$O/err$n" >&2
	expect_rc "$want" "readonly: $*"
	grep -q 'Permission denied' "$O/err$n" || fail "readonly: $*: no EACCES message on stderr"
	after=$(snapshot "$W")
	[ "$before" = "$after" ] || fail "readonly: $*: the workspace changed:
$before
---
$after"
	report_assert "$r" \
		"d['schema'] == 'capwatch.report/v1'" \
		"d['profile'] == 'readonly'" \
		"outcome['state'] == 'denied'" \
		"denied_run()" \
		"outcome['exit']['code'] == $want" \
		"kind(denial['capability']) == 'workspace_write'" \
		"_m($scope, denial['capability']['scope'])" \
		"denial['source'] == 'configured_policy'" \
		"outcome['enforcement']['level'] == 'enforce'" \
		"len(denials('workspace_write', $scope)) >= 1" \
		"all(e.get('pid') and e.get('syscall') for e in denials())" \
		"not changes()"
	trace_assert "$t" \
		"header['schema'] == 'capwatch.trace/v1'" \
		"len(ops('workspace_write', 'deny', $scope)) >= 1" \
		"all(e['errno'] == 'EACCES' for e in ops('workspace_write', 'deny'))"
}

deny_case 2 "'$W/f'" sh -c 'echo x > f'
deny_case 1 "'$W/existing'" rm existing
deny_case 1 "R('$W/(a|b)')" mv a b
deny_case 1 "'$W/d'" mkdir d
deny_case 1 "'$W/new'" touch new
deny_case 1 "'$W/sub/inner'" rm -r sub
deny_case 1 "'$W/existing'" truncate -s 0 existing
deny_case 2 "'$W/existing'" sh -c ': > existing'
deny_case 1 "'$W/existing'" chmod 777 existing
deny_case 1 "'$W/existing'" chown 1:1 existing
deny_case 1 "'$W/existing'" touch -d 2001-01-01 existing
deny_case 1 "R('$W/(existing|hard)')" ln existing hard
deny_case 1 "'$W/sym'" ln -s existing sym
deny_case 1 "'$W/fifo'" mkfifo fifo
deny_case 1 "'$W/sub'" rmdir sub

# The run's context is recorded as given.
report_assert "$O/r1.json" \
	"d['workingDirectory'] == '$W'" \
	"d['workspaceRoots'] == ['$W']" \
	"d['command']['name'] == 'sh'" \
	"d['command']['args'] == ['-c', 'echo x > f']"

# Reads stay allowed under readonly: same command shape, no denial.
cw --profile readonly --report "$O/ok.json" -- cat existing >"$O/cat.out" || fail "readonly: cat existing: exit $rc"
[ "$(cat "$O/cat.out")" = keep ] || fail "readonly: cat existing printed something else"
report_assert "$O/ok.json" "outcome['kind'] == 'success'" "outcome['state'] == 'completed'" \
	"outcome['exit']['code'] == 0" "not denials()"

# --observe: the same decisions are taken and recorded, nothing is denied.
cw --profile readonly --observe --report "$O/obs.json" --trace "$O/obs.jsonl" -- sh -c 'echo x > f; rm existing'
expect_rc 0 "readonly --observe: write and delete"
[ "$(cat f)" = x ] && [ ! -e existing ] || fail "readonly --observe: the writes did not happen"
report_assert "$O/obs.json" \
	"outcome['enforcement']['level'] == 'observe'" \
	"outcome['exit']['code'] == 0" \
	"len(denials('workspace_write', '$W/f')) >= 1" \
	"len(denials('workspace_write', '$W/existing')) >= 1" \
	"all(e['enforced'] is False for e in denials())"
trace_assert "$O/obs.jsonl" \
	"ops('workspace_write', resolved='$W/f')" \
	"all(e['enforced'] is False and e['errno'] is None for e in ops('workspace_write'))"
exit 0
