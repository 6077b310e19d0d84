#!/bin/sh
# Issue 14, item 1: an AF_UNIX address longer than a sockaddr_un (111 and
# 128 bytes, a sun_path with no NUL) given to connect, sendto, sendmsg and
# bind. The kernel answers EINVAL; capwatch used to copy the path into a
# 109-byte buffer and abort (fortify), leaving an empty report. A path of
# exactly 108 bytes without a NUL is legal and must work as it does bare.
# Pass: the same output as the bare run, the command's exit status, a
# non-empty report that validates, no abort.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
PROG=$top_srcdir/tests/integration/robust/unixlen.py

# The bare run: what the kernel says (also checks the workspace path is
# short enough for a 108-byte name under it).
[ ${#W} -lt 100 ] || skip "workspace path too long for a 108-byte socket name: $W"
"$CW_PY" "$PROG" > "$O/bare.out" 2>&1 || fail "bare run failed: $(cat "$O/bare.out")"
grep -q '^128 connect Invalid argument$' "$O/bare.out" || fail "bare: unexpected $(cat "$O/bare.out")"
grep -q "^108 received \[b'hi', b'x'\]$" "$O/bare.out" || fail "bare: 108-byte path: $(cat "$O/bare.out")"
rm -f "$W"/s*

cw --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- "$CW_PY" "$PROG" > "$O/cw.out" 2>"$O/cw.err"
[ "$rc" -lt 128 ] || fail "capwatch died (status $rc): $(tail -3 "$O/cw.err")"
! grep -q "buffer overflow\|stack smashing" "$O/cw.err" || fail "capwatch aborted: $(cat "$O/cw.err")"
expect_rc 0 "the command's own status"
diff "$O/bare.out" "$O/cw.out" >&2 || fail "under capwatch the calls answered differently than bare"
[ -s "$O/r.json" ] || fail "the report is empty"
report_assert "$O/r.json" 'outcome["kind"] == "success"'
SC=$top_srcdir/tests/unit/schema_check.py
"$PYTHON3" "$SC" --report "$O/r.json" --trace "$O/t.jsonl"
case $? in
	0) ;;
	77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
	*) fail "report or trace does not validate" ;;
esac
# The 108-byte name was decided on its full path.
trace_assert "$O/t.jsonl" 'any(e.get("syscall") == "bind" and "s"*40 in str(e) for e in ops())'
exit 0
