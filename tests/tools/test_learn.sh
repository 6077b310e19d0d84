#!/bin/sh
# learn writes a least-privilege profile that cw_profile_parse accepts and
# under which a replay of the same trace denies nothing.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e

# a run under the observe profile: everything was allowed
"$GEN" build observe >"$T/o.jsonl"
run_cw "$T/l.json" "$T/err" learn "$T/o.jsonl"
expect_rc 0 "learn"
# valid JSON in the profile format, accepted by cw_profile_parse
"$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/l.json" || fail "not JSON"
validate profile "$T/l.json"
run_cw "$T/out" "$T/err" profiles "$T/l.json"
expect_rc 0 "cw_profile_parse rejects the learned profile: $(cat "$T/err")"
# replayed over its own trace: nothing changes, nothing is denied
run_cw "$T/out" "$T/err" replay --profile "$T/l.json" "$T/o.jsonl"
expect_rc 0 "replay under the learned profile"
has "$T/out" "would change: 0"
# generalisation: headers in a tree, objects in one directory, workspace root
has "$T/l.json" '"/usr/include/**"'
has "$T/l.json" '"/ws/out/*"'
has "$T/l.json" '"/ws/**"'
has "$T/l.json" '"/proc/*/status"'
# exact where it matters: secrets, programs, addresses
has "$T/l.json" '"~/.ssh/id_rsa"'
has "$T/l.json" '"/usr/bin/gcc"'
has "$T/l.json" '"203.0.113.7:80"'
has "$T/l.json" '"127.0.0.1:8080"'
# notes say why
has "$T/l.json" '"seen 2 times: gcc"'
# least privilege: what was not seen is denied
get() { json_get "$T/l.json" "$1"; }
[ "$(get 'd["capabilities"]["process_control"]["default"]')" = deny ] || fail "process_control not denied"
[ "$(get 'd["capabilities"]["workspace_write"]["default"]')" = deny ] || fail "workspace_write default"
# ...so a different run is denied: the learned profile is narrower than observe
"$GEN" build2 observe >"$T/o2.jsonl"
run_cw "$T/out" "$T/err" replay --profile "$T/l.json" "$T/o2.jsonl"
expect_rc 1 "replay of another run under the learned profile"
has "$T/out" "/usr/bin/wget: allow -> deny"
has "$T/out" "198.51.100.9:443: allow -> deny"

# learning while enforcing: --observe with a base profile records denials
# that were not enforced; learn includes them
"$GEN" build verify observe >"$T/vo.jsonl"
run_cw "$T/l2.json" "$T/err" learn "$T/vo.jsonl"
expect_rc 0 "learn from an --observe run"
has "$T/l2.json" '"/etc/hosts"'
run_cw "$T/out" "$T/err" replay --profile "$T/l2.json" "$T/vo.jsonl"
has "$T/out" "allow -> deny: 0"
hasnt "$T/out" "-> deny ("

# an enforced run: what was refused is not learned, and a replay takes the
# recorded decisions again
"$GEN" build verify >"$T/v.jsonl"
run_cw "$T/l3.json" "$T/err" learn "$T/v.jsonl"
expect_rc 0 "learn from an enforced run"
hasnt "$T/l3.json" '"/etc/hosts"'
# the refused ask stays an ask (it prompts where there is a terminal)
[ "$(json_get "$T/l3.json" 'd["capabilities"]["external_network"]["ask"][0]')" = "203.0.113.7:80" ] || fail "ask kept"
has "$T/l3.json" "include-denied"
run_cw "$T/out" "$T/err" replay --profile "$T/l3.json" "$T/v.jsonl"
expect_rc 0 "replay of an enforced run under its learned profile"

# --base: extends the base and adds only what it lacks
run_cw "$T/l4.json" "$T/err" learn --base verify --name ci "$T/vo.jsonl"
expect_rc 0 "learn --base"
[ "$(json_get "$T/l4.json" 'd["extends"]')" = verify ] || fail "extends"
[ "$(json_get "$T/l4.json" 'd["name"]')" = ci ] || fail "name"
validate profile "$T/l4.json"
has "$T/l4.json" '"/etc/hosts"'
hasnt "$T/l4.json" '"/usr/include/**"'
run_cw "$T/out" "$T/err" replay --profile "$T/l4.json" "$T/vo.jsonl"
has "$T/out" "allow -> deny: 0"

# a base whose deny list matches what the run did: the entry is dropped in
# the learned profile (materialised without it), so nothing is denied
cat >"$T/base.json" <<'B'
{"name": "strict", "extends": "verify",
 "capabilities": {"workspace_write": {"deny": ["/ws/out/*", "/ws/secret/**"]},
                  "filesystem_read": {"deny": ["/usr/include/**"]}}}
B
(cd "$T" && "$CW" learn --base base.json o.jsonl >"$T/l7.json" 2>"$T/err") || { cat "$T/err" >&2; fail "learn --base FILE"; }
validate profile "$T/l7.json"
[ "$(json_get "$T/l7.json" 'd["extends"]')" = base.json ] || fail "extends a file"
[ "$(json_get "$T/l7.json" 'd["capabilities"]["workspace_write"]["deny"]')" = "['/ws/secret/**']" ] || fail "deny entry kept/dropped"
[ "$(json_get "$T/l7.json" 'd["capabilities"]["filesystem_read"]["deny"]')" = "[]" ] || fail "read deny entry dropped"
has "$T/l7.json" 'dropped the base'"'"'s deny entry \"/ws/out/*\": the run needed it'
(cd "$T" && "$CW" replay --profile l7.json o.jsonl >"$T/out" 2>"$T/err") || { cat "$T/out" "$T/err" >&2; fail "replay under a learned profile extending a file"; }
has "$T/out" "would change: 0"

# paths that are not UTF-8 or hold glob characters still match exactly
"$GEN" bytes observe >"$T/by.jsonl"
run_cw "$T/l5.json" "$T/err" learn "$T/by.jsonl"
expect_rc 0 "learn with odd bytes"
has "$T/l5.json" '"/srv/star\\*dir/q\\?.txt"'
has "$T/l5.json" '"/opt/caf?/??.txt"'
# both ends of the rename are learned (the trace's scope names one)
[ "$(json_get "$T/l5.json" 'd["capabilities"]["workspace_write"]["allow"]')" = "['/ws/**']" ] || fail "rename ends"
has "$T/l5.json" '"seen 2 times: mv"'
run_cw "$T/out" "$T/err" replay --profile "$T/l5.json" "$T/by.jsonl"
expect_rc 0 "replay with odd bytes"

# every kind of scope: environment names, a pid (not scopable), a unix
# socket, a wildcard bind, a syscall
"$GEN" misc observe >"$T/m.jsonl"
run_cw "$T/l6.json" "$T/err" learn "$T/m.jsonl"
expect_rc 0 "learn of every scope kind"
validate profile "$T/l6.json"
c() { json_get "$T/l6.json" "d['capabilities']$1"; }
[ "$(c "['environment']['allow']")" = "['CI', 'GITHUB_TOKEN']" ] || fail "environment names"
[ "$(c "['process_control']['default']")" = allow ] || fail "a signal outside the tree needs the default"
has "$T/l6.json" "pids cannot be scoped"
[ "$(c "['process_control']['allow']")" = "['unix:/var/run/docker.sock']" ] || fail "unix socket"
[ "$(c "['host_visible_binding']['allow']")" = "['0.0.0.0:8080']" ] || fail "bind"
[ "$(c "['unrestricted']['allow']")" = "['mount']" ] || fail "syscall"
run_cw "$T/out" "$T/err" replay --profile "$T/l6.json" "$T/m.jsonl"
expect_rc 0 "replay of every scope kind under its learned profile"

# A failed PATH probe (an exec of a name that is not there) is the
# kernel's ENOENT, not a program the command ran: learn must not allow it
# (issue 17 item 14).
mkdir -p "$T/probe" && cd "$T/probe"
run_cw "$T/out" "$T/err" --report "$T/probe.json" --trace "$T/probe.jsonl" -- \
	"$PYTHON3" -c 'import os, sys
try:
    os.execv("/nonexistent-cw-dir/true", ["true"])
except OSError as e:
    sys.exit(0 if e.errno == 2 else 1)'
expect_rc 0 "an exec of a missing program fails with ENOENT"
run_cw "$T/out" "$T/err" learn "$T/probe.jsonl"
expect_rc 0 "learn from a run with a failed PATH probe"
"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
ps = d["capabilities"]["process_spawn"]
allow = ps.get("allow", []) if isinstance(ps, dict) else []
sys.exit(1 if any("nonexistent-cw-dir" in a for a in allow) else 0)' "$T/out" || fail "learn allowed an exec that failed with ENOENT"
cd "$T"

run_cw "$T/out" "$T/err" learn --help
expect_rc 0 "learn --help"
has "$T/out" "Usage: capwatch learn"
exit 0
