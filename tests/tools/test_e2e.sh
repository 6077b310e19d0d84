#!/bin/sh
# End to end: record a real run, learn a profile from it, run again under the
# learned profile: nothing is denied.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
[ "$CW" = "$CAPWATCH" ] || skip "capwatch does not dispatch subcommands yet"
cd "$T"
set +e
"$CAPWATCH" --profile verify --trace "$T/t.jsonl" -- sh -c 'echo hi > f; cat f' >"$T/out1" 2>"$T/err1"
rc=$?
set -e
if [ ! -s "$T/t.jsonl" ]; then
	cat "$T/err1" >&2
	skip "the supervisor did not record a trace (exit $rc)"
fi
[ "$rc" -eq 0 ] || { cat "$T/err1" >&2; fail "the recorded run failed (exit $rc)"; }
[ "$(cat "$T/out1")" = hi ] || fail "the recorded run printed: $(cat "$T/out1")"
run_cw "$T/l.json" "$T/err" learn "$T/t.jsonl"
expect_rc 0 "learn from a real trace"
run_cw "$T/out" "$T/err" replay --profile "$T/l.json" "$T/t.jsonl"
expect_rc 0 "replay of a real trace under its learned profile"
rm -f "$T/f"
set +e
"$CAPWATCH" --profile "$T/l.json" --trace "$T/t2.jsonl" --report "$T/r.json" -- sh -c 'echo hi > f; cat f' \
	>"$T/out2" 2>"$T/err2"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$T/err2" >&2; fail "the run under the learned profile failed (exit $rc)"; }
[ "$(cat "$T/out2")" = hi ] || fail "the second run printed: $(cat "$T/out2")"
[ "$(json_get "$T/r.json" 'len(d["denials"])')" = 0 ] || { cat "$T/r.json" >&2; fail "denials under the learned profile"; }
# the other tools read what the supervisor wrote
run_cw "$T/out" "$T/err" explain "$T/t.jsonl"
expect_rc 0 "explain of a real trace"
has "$T/out" "/usr/bin/cat: cat f [exit 0]"
run_cw "$T/out" "$T/err" explain "$T/r.json"
expect_rc 0 "explain of a real report"
has "$T/out" "/usr/bin/cat: cat f [exit 0]"
run_cw "$T/out" "$T/err" export --format chrome "$T/t.jsonl"
expect_rc 0 "export of a real trace"
"$PYTHON3" -c 'import json,sys; assert json.load(open(sys.argv[1]))["traceEvents"]' "$T/out" || fail "chrome export of a real trace"
# and the second run is nothing new compared with the first
run_cw "$T/out" "$T/err" diff "$T/t.jsonl" "$T/t2.jsonl"
expect_rc 0 "diff of two runs of the same command"
exit 0
