#!/bin/sh
# The command gets a sanitized environment: an arbitrary variable from the
# caller does not reach it unless passed with --env-pass; PATH and HOME do.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

INTEG_TOKEN_7B=s3cr3t-value
export INTEG_TOKEN_7B
cw --report "$O/a.json" -- sh -c 'printf "%s|%s|%s\n" "${INTEG_TOKEN_7B-unset}" "${HOME-unset}" "${PATH:+path}"' >"$O/a.out"
expect_rc 0 "sanitized environment"
[ "$(cat "$O/a.out")" = "unset|$HOME|path" ] || fail "sanitized environment: got '$(cat "$O/a.out")', expected 'unset|$HOME|path'"
cw -- env >"$O/env.out"
expect_rc 0 "capwatch -- env"
! grep -q s3cr3t-value "$O/env.out" || fail "the variable's value reached the command"

cw --env-pass INTEG_TOKEN_7B --report "$O/b.json" -- sh -c 'printf "%s\n" "${INTEG_TOKEN_7B-unset}"' >"$O/b.out"
expect_rc 0 "--env-pass INTEG_TOKEN_7B"
[ "$(cat "$O/b.out")" = s3cr3t-value ] || fail "--env-pass: got '$(cat "$O/b.out")'"
report_assert "$O/b.json" "outcome['kind'] == 'success'" "not denials()"
exit 0
