#!/bin/sh
# Protected metadata (contract section 2): the report and trace files of the
# run, the profile file, .capwatch/ and .git internals cannot be written by
# the command under verify, even inside the workspace; under observe such a
# write is allowed but flagged.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

# The report and trace files, inside the workspace.
cw --profile verify --report "$W/r.json" --trace "$W/t.jsonl" -- \
	sh -c 'echo "{\"schema\": \"forged\"}" > r.json; echo "{\"type\":\"summary\"}" >> t.jsonl' 2>"$O/rt.err"
cat "$O/rt.err" >&2
expect_rc 2 "verify: overwrite the run's own report"
report_assert "$W/r.json" \
	"d['schema'] == 'capwatch.report/v1'" \
	"denied_run()" \
	"kind(denial['capability']) == 'protected_metadata'" \
	"len(denials('protected_metadata', '$W/r.json')) >= 1" \
	"denial['capability']['scope'] == '$W/t.jsonl'"
trace_assert "$W/t.jsonl" "summary.get('events') is not None" \
	"len([e for e in ev if e.get('type') == 'summary']) == 1" \
	"len(ops('protected_metadata', 'deny', '$W/r.json')) >= 1"

# The profile file in use.
printf '{"name": "mine", "extends": "verify"}\n' > prof.json
cp prof.json "$O/prof.before"
cw --profile "$W/prof.json" --report "$O/p.json" -- sh -c 'echo "{\"name\": \"x\", \"extends\": \"observe\"}" > prof.json'
expect_rc 2 "profile file: overwrite the profile in use"
cmp prof.json "$O/prof.before" || fail "the profile file was modified"
report_assert "$O/p.json" "d['profile'] == 'mine'" \
	"kind(denial['capability']) == 'protected_metadata'" "denial['capability']['scope'] == '$W/prof.json'"

# .capwatch/ and .git/ internals.
mkdir -p .capwatch .git/refs/heads
echo ref: refs/heads/main > .git/HEAD
cw --profile verify --report "$O/c.json" -- sh -c 'echo x > .capwatch/config.json'
expect_rc 2 "verify: write into .capwatch/"
[ ! -e .capwatch/config.json ] || fail ".capwatch/config.json was created"
report_assert "$O/c.json" "kind(denial['capability']) == 'protected_metadata'" \
	"denial['capability']['scope'] == '$W/.capwatch/config.json'"
# What makes git run code is protected (config, hooks, info/attributes);
# refs, HEAD, objects and the index are ordinary repository writes
# (contract section 2: tests/integration/git_verify.sh runs real git).
mkdir -p .git/info
cw --profile verify --report "$O/g.json" -- sh -c 'echo "[core] pager = x" > .git/config; echo "* filter=x" > .git/info/attributes' 2>/dev/null
[ "$rc" != 0 ] || fail "verify: writing what makes git run code succeeded"
[ ! -e .git/config ] && [ ! -e .git/info/attributes ] || fail ".git/config or info/attributes was written"
report_assert "$O/g.json" "denials('protected_metadata', '$W/.git/config')" \
	"denials('protected_metadata', '$W/.git/info/attributes')"
cw --profile verify --report "$O/g2.json" -- sh -c 'echo deadbeef > .git/refs/heads/main' 2>/dev/null
expect_rc 0 "verify: an ordinary repository write (a ref)"
report_assert "$O/g2.json" "not denials()"

# A file merely named like metadata elsewhere is an ordinary workspace file.
cw --profile verify --report "$O/n.json" -- sh -c 'mkdir -p doc && echo x > doc/git-notes.txt && echo y > capwatch.txt'
expect_rc 0 "verify: ordinary files with metadata-like names"
report_assert "$O/n.json" "not denials()"

# observe: allowed, flagged.
cw --profile observe --report "$O/o.json" --trace "$O/o.jsonl" -- sh -c 'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit'
expect_rc 0 "observe: write a git hook"
[ -e .git/hooks/pre-commit ] || fail "observe: the hook was not written"
report_assert "$O/o.json" "not denials()" "used('protected_metadata', '$W/.git/hooks/pre-commit')"
trace_assert "$O/o.jsonl" \
	"ops('protected_metadata', 'allow', '$W/.git/hooks/pre-commit')" \
	"all(e.get('flagged') is True for e in ops('protected_metadata', 'allow', '$W/.git/hooks/pre-commit'))"
exit 0
