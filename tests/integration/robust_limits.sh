#!/bin/sh
# Issue 14, item 2: capwatch started under a low soft RLIMIT_FSIZE (4 KiB)
# and RLIMIT_NOFILE (64) writes its whole trace (megabytes) and report:
# it ignores SIGXFSZ and raises its own soft limits to the hard ones. The
# command still gets the limits capwatch was started with, and its own
# oversized write still dies of SIGXFSZ as it does bare.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
command -v prlimit >/dev/null 2>&1 || skip "prlimit(1) not found"

CMD='ulimit -f; ulimit -n; head -c 10000 /dev/zero > big; echo head=$?; i=0; while [ $i -lt 300 ]; do cat /dev/null; i=$((i+1)); done; exit 7'
prlimit --fsize=4096:unlimited --nofile=64:4096 sh -c "$CMD" > "$O/bare.out" 2>/dev/null
bare=$?
[ "$bare" = 7 ] || fail "bare run: status $bare"
grep -q '^head=153$' "$O/bare.out" || fail "bare: head was not killed by SIGXFSZ: $(cat "$O/bare.out")"
rm -f big

cw_lim() { timeout -k 5 120 prlimit --fsize=4096:unlimited --nofile=64:4096 "$CAPWATCH" "$@"; rc=$?; }
cw_lim --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- sh -c "$CMD" > "$O/cw.out" 2>"$O/cw.err"
[ "$rc" != 153 ] || fail "capwatch itself was killed by SIGXFSZ"
expect_rc 7 "the command's own status"
diff "$O/bare.out" "$O/cw.out" >&2 || fail "the command did not get the limits capwatch was started with (or SIGXFSZ's default action)"
[ "$(stat -c %s big)" = 4096 ] || fail "the command's file is not cut at its own limit"
tsize=$(stat -c %s "$O/t.jsonl")
[ "$tsize" -gt 100000 ] || fail "the trace is only $tsize bytes: capwatch kept the 4 KiB limit"
report_assert "$O/r.json" 'outcome["kind"] == "application_failure"' 'outcome["exit"]["code"] == 7' \
	'len(procs()) >= 300'
trace_assert "$O/t.jsonl" 'summary.get("type") == "summary"' 'len(execs()) >= 300'
SC=$top_srcdir/tests/unit/schema_check.py
"$PYTHON3" "$SC" --report "$O/r.json" --trace "$O/t.jsonl"
case $? in
	0) ;;
	77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
	*) fail "report or trace does not validate" ;;
esac
! grep -q "^capwatch:.*\(failed\|File too large\)" "$O/cw.err" || fail "capwatch reported a failure: $(cat "$O/cw.err")"
exit 0
