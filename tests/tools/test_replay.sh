#!/bin/sh
# replay re-decides a recorded run under other profiles and says what changes.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
"$GEN" build verify >"$T/b.jsonl"

# the trace's own profile: nothing changes
run_cw "$T/out" "$T/err" replay "$T/b.jsonl"
expect_rc 0 "replay under the recorded profile"
has "$T/out" "would change: 0"
has "$T/out" "recorded under \"verify\") under \"verify\""
has "$T/out" "never happened"

# readonly: the workspace writes and the loopback connect become denials
run_cw "$T/out" "$T/err" replay --profile readonly "$T/b.jsonl"
expect_rc 1 "replay under readonly"
has "$T/out" "pid 102 openat workspace_write /ws/out/a.o: allow -> deny (readonly:workspace_write:default)"
has "$T/out" "pid 102 openat workspace_write /ws/out/b.o: allow -> deny (readonly:workspace_write:default)"
has "$T/out" "connect isolated_loopback 127.0.0.1:8080: allow -> deny (readonly:isolated_loopback:default)"
has "$T/out" "allow -> deny: 3"
# scratch and /dev/null need no capability under any profile
hasnt "$T/out" "/tmp/cw-scratch"
hasnt "$T/out" "/dev/null"
# reads stay allowed
hasnt "$T/out" "filesystem_read /usr/include"

# observe: what verify refused would now be allowed
run_cw "$T/out" "$T/err" replay --profile observe "$T/b.jsonl"
expect_rc 1 "replay under observe"
has "$T/out" "openat unrestricted /etc/hosts: deny -> allow (observe:unrestricted:default)"
has "$T/out" "/home/u/.ssh/id_rsa: deny -> allow (observe:filesystem_read_secret:default)"
has "$T/out" "connect external_network 203.0.113.7:80: deny -> allow"
has "$T/out" "what followed is unknown"
has "$T/out" "deny -> allow: 3"

# an ask is an unanswered ask without a terminal: it denies
"$GEN" build observe >"$T/o.jsonl"
run_cw "$T/out" "$T/err" replay --profile verify "$T/o.jsonl"
expect_rc 1 "replay of an observe run under verify"
has "$T/out" "connect external_network 203.0.113.7:80: allow -> ask (verify:external_network:default)"
has "$T/out" "allow -> deny: 3"
# ...unless --approve-risk, as in a run
run_cw "$T/out" "$T/err" replay --approve-risk --profile verify "$T/o.jsonl"
hasnt "$T/out" "203.0.113.7:80"
has "$T/out" "allow -> deny: 2"

# none: the command would not even start
run_cw "$T/out" "$T/err" replay --profile none "$T/b.jsonl"
expect_rc 1 "replay under none"
has "$T/out" "execve process_spawn /usr/bin/sh: allow -> deny (none:process_spawn:default)"
has "$T/out" "would not start at all"

# a profile file, and --report writes a section 4 report of the replay
cat >"$T/p.json" <<'P'
{"name": "nonet", "extends": "verify", "capabilities": {"isolated_loopback": "deny"}}
P
run_cw "$T/out" "$T/err" replay --profile "$T/p.json" --report "$T/r.json" "$T/b.jsonl"
expect_rc 1 "replay under a profile file"
has "$T/out" "isolated_loopback 127.0.0.1:8080: allow -> deny (nonet:isolated_loopback:default)"
[ "$(json_get "$T/r.json" 'd["schema"]')" = "capwatch.report/v1" ] || fail "report schema"
[ "$(json_get "$T/r.json" 'd["profile"]')" = "nonet" ] || fail "report profile"
[ "$(json_get "$T/r.json" 'd["outcome"]["kind"]')" = "enforcement_denied" ] || fail "report outcome"
[ "$(json_get "$T/r.json" 'len(d["processes"])')" = 5 ] || fail "report processes"
json_get "$T/r.json" '[x for x in d["denials"]]' | grep -q "127.0.0.1:8080" || fail "report denial"
validate report "$T/r.json"
# the fixtures themselves follow the trace schema
validate trace "$T/b.jsonl" lines

# a bad profile file: exit 125 with file:line
printf '{"name": "x",\n "capabilities": {"netwrk": "deny"}}\n' >"$T/bad.json"
run_cw "$T/out" "$T/err" replay --profile "$T/bad.json" "$T/b.jsonl"
expect_rc 125 "bad profile"
has "$T/err" "bad.json:2:"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "bad profile: more than one line of error"

# --help
run_cw "$T/out" "$T/err" replay --help
expect_rc 0 "replay --help"
has "$T/out" "Usage: capwatch replay"
has "$T/out" "Exit status"
exit 0
