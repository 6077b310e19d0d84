#!/bin/sh
# git under verify (issue 17 item 8; contract section 2): ordinary
# repository writes (objects, refs, the index, logs) are workspace writes,
# so status, add, commit and branch work; what makes git run code stays
# protected_metadata: .git/config, hooks, info/attributes.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
command -v git >/dev/null 2>&1 || skip "git is not installed"
cw_workdir
cd "$W" || fail "cd $W"
export HOME="$T" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
git init -q . || fail "git init (bare, before the run)"
echo one > a.txt
git add a.txt && git commit -qm one || fail "the first commit (bare)"
envs="--env-pass HOME --env-pass GIT_CONFIG_NOSYSTEM --env-pass GIT_AUTHOR_NAME --env-pass GIT_AUTHOR_EMAIL --env-pass GIT_COMMITTER_NAME --env-pass GIT_COMMITTER_EMAIL"
# shellcheck disable=SC2086
cw --profile verify $envs --report "$O/r.json" -- sh -c '
	set -e
	git status --short >/dev/null
	echo two >> a.txt
	git add a.txt
	git commit -qm two
	git branch topic
	git log --oneline | wc -l' >"$O/out" 2>"$O/err"
[ "$rc" = 0 ] || { cat "$O/out" "$O/err" >&2; fail "status/add/commit/branch under verify: exit $rc"; }
[ "$(cat "$O/out")" = 2 ] || fail "the commit is not in the log: $(cat "$O/out")"
git rev-parse -q --verify refs/heads/topic >/dev/null || fail "the branch was not made"
report_assert "$O/r.json" "outcome['kind'] == 'success'" "len(d['denials']) == 0"
# Code git would run: config (core.pager, aliases, filters), a hook.
before=$(cat .git/config)
# shellcheck disable=SC2086
cw --profile verify $envs --report "$O/c.json" -- git config core.pager 'touch pwned' >"$O/c.out" 2>&1
[ "$(cat .git/config)" = "$before" ] || fail "the command rewrote .git/config under verify"
report_assert "$O/c.json" "any(x['capability']['kind'] == 'protected_metadata' and x['capability']['scope'].startswith('$W/.git/config') for x in d['denials'])"
# shellcheck disable=SC2086
cw --profile verify --report "$O/h.json" -- sh -c 'printf "#!/bin/sh\ntouch pwned\n" > .git/hooks/pre-commit' >"$O/h.out" 2>&1
[ ! -e .git/hooks/pre-commit ] || fail "the command wrote a hook under verify"
report_assert "$O/h.json" "any(x['capability']['kind'] == 'protected_metadata' and x['capability']['scope'] == '$W/.git/hooks/pre-commit' for x in d['denials'])"
exit 0
