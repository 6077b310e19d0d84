#!/bin/sh
# capwatch profiles lists what each built-in profile grants (contract section 3).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
run_cw "$T/out" "$T/err" profiles
expect_rc 0 "profiles"
row() { grep "^$1 " "$T/out" | tr -s ' ' | sed 's/ *$//'; }
[ "$(row "capability")" = "capability none readonly verify repair observe" ] || fail "header: $(row capability)"
# rows typed from the contract's table
[ "$(row "filesystem_read (not secret)")" = "filesystem_read (not secret) deny allow allow allow allow" ] || fail "fs read"
[ "$(row "filesystem_read (secret)")" = "filesystem_read (secret) deny deny deny deny allow, flagged" ] || fail "secret"
[ "$(row workspace_write)" = "workspace_write deny deny allow allow allow" ] || fail "workspace_write"
[ "$(row protected_metadata)" = "protected_metadata deny deny deny deny allow, flagged" ] || fail "protected"
[ "$(row process_spawn)" = "process_spawn deny allow allow allow allow" ] || fail "spawn"
[ "$(row isolated_loopback)" = "isolated_loopback deny deny allow deny allow" ] || fail "loopback"
[ "$(row host_visible_binding)" = "host_visible_binding deny deny deny deny allow" ] || fail "binding"
[ "$(row external_network)" = "external_network deny deny ask deny allow" ] || fail "external"
[ "$(row process_control)" = "process_control deny deny deny deny allow" ] || fail "control"
[ "$(row environment)" = "environment deny deny deny deny allow" ] || fail "environment"
[ "$(row unrestricted)" = "unrestricted deny deny deny deny allow" ] || fail "unrestricted"

run_cw "$T/out" "$T/err" profiles verify
expect_rc 0 "profiles verify"
[ "$(json_get "$T/out" 'd["name"]')" = verify ] || fail "profiles verify: name"
"$PYTHON3" -c 'import json,sys; c=json.load(open(sys.argv[1]))["capabilities"]; v=c["external_network"]; assert (v if isinstance(v,str) else v["default"])=="ask"' "$T/out" || fail "verify external_network"

# a file that extends a built-in: printed expanded
printf '{"name": "ci", "extends": "readonly", "capabilities": {"workspace_write": {"default": "deny", "allow": ["/ws/out/**"]}}}\n' >"$T/ci.json"
run_cw "$T/out" "$T/err" profiles "$T/ci.json"
expect_rc 0 "profiles FILE"
has "$T/out" "/ws/out/**"
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "extends" not in d; c=d["capabilities"]["process_spawn"]; assert (c if isinstance(c,str) else c["default"])=="allow"' "$T/out" || fail "not expanded"

run_cw "$T/out" "$T/err" profiles nosuch
expect_rc 125 "unknown profile"
has "$T/err" "unknown profile \"nosuch\""
# A name that looks like a file is reported as a missing file.
run_cw "$T/out" "$T/err" profiles missing.json
expect_rc 125 "a missing profile file"
has "$T/err" "missing.json: no such file"
run_cw "$T/out" "$T/err" profiles --help
expect_rc 0 "profiles --help"
has "$T/out" "Usage: capwatch profiles"
exit 0
