#!/bin/sh
# diff shows behaviour in NEW that BASE did not have.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
"$GEN" build verify >"$T/a.jsonl"
"$GEN" build2 verify >"$T/b.jsonl"
run_cw "$T/out" "$T/err" diff "$T/a.jsonl" "$T/b.jsonl"
expect_rc 1 "diff with something new"
has "$T/out" "new programs (1):"
has "$T/out" "/usr/bin/wget"
has "$T/out" "new network destinations (1):"
has "$T/out" "external_network 198.51.100.9:443 (example.org)"
has "$T/out" "new write locations (1):"
has "$T/out" "<workspace>/dist"
hasnt "$T/out" "/usr/bin/gcc"
hasnt "$T/out" "203.0.113.7"

# the same run in another checkout is nothing new
sed 's|/ws|/other/checkout|g' "$T/a.jsonl" >"$T/moved.jsonl"
grep -q '"roots":\["/other/checkout"\]' "$T/moved.jsonl" || fail "fixture: roots not moved"
run_cw "$T/out" "$T/err" diff "$T/a.jsonl" "$T/moved.jsonl"
expect_rc 0 "diff of the same run in another checkout"

run_cw "$T/out" "$T/err" diff "$T/a.jsonl" "$T/a.jsonl"
expect_rc 0 "diff of identical traces"
has "$T/out" "nothing new"

# the other way round: nothing is new in the smaller run
run_cw "$T/out" "$T/err" diff "$T/b.jsonl" "$T/a.jsonl"
expect_rc 0 "diff of a subset"

# a new capability kind
"$GEN" build observe >"$T/o.jsonl"
"$GEN" script observe >"$T/s.jsonl"
run_cw "$T/out" "$T/err" diff "$T/s.jsonl" "$T/o.jsonl"
expect_rc 1 "diff with a new kind"
has "$T/out" "new capability kinds"
has "$T/out" "filesystem_read_secret"
has "$T/out" "isolated_loopback"

# bad input: exit 2
run_cw "$T/out" "$T/err" diff "$T/a.jsonl" "$T/missing.jsonl"
expect_rc 2 "diff with a missing file"
has "$T/err" "missing.jsonl: No such file or directory"
run_cw "$T/out" "$T/err" diff "$T/a.jsonl"
expect_rc 125 "diff with one argument"
exit 0
