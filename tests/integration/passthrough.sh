#!/bin/sh
# capwatch is a drop-in: exit codes, death by signal (128+N), stdin, stdout
# and stderr pass through byte for byte; the report never goes to stdout
# (with --report, --report-fd or neither), and the command cannot write
# into the report through the report descriptor.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

for code in 0 3 42; do
	cw --report "$O/x$code.json" -- sh -c "exit $code" >"$O/x.out"
	expect_rc $code "sh -c 'exit $code'"
	[ ! -s "$O/x.out" ] || fail "exit $code: something on stdout: $(cat "$O/x.out")"
	report_assert "$O/x$code.json" "outcome['exit']['code'] == $code" \
		"outcome['kind'] == ('success' if $code == 0 else 'application_failure')" \
		"outcome['state'] == 'completed' if $code == 0 else True"
done

cw --report "$O/sig.json" -- sh -c 'kill -TERM $$'
expect_rc 143 "sh -c 'kill -TERM \$\$'"
report_assert "$O/sig.json" "outcome['exit'].get('signal') == 'SIGTERM'" "not denials()"
cw --report "$O/sig9.json" -- sh -c 'kill -KILL $$'
expect_rc 137 "sh -c 'kill -KILL \$\$'"
report_assert "$O/sig9.json" "outcome['exit'].get('signal') == 'SIGKILL'"

# Binary-ish data, no trailing newline.
"$CW_PY" -c 'import sys; sys.stdout.buffer.write(bytes((i * 7 + i // 256) % 256 for i in range(300000)))' > data
printf 'last line without newline' >> data
cat > emit.sh <<'SH'
head -c 100000 data
printf '\000\001\377tail-no-newline'
head -c 50000 data >&2
printf '\033[2Jerr-no-newline' >&2
exit 7
SH
sh emit.sh >"$O/bare.out" 2>"$O/bare.err"
[ $? = 7 ] || fail "bare emit.sh did not exit 7"
cw --quiet --report "$O/bin.json" -- sh emit.sh >"$O/cw.out" 2>"$O/cw.err"
expect_rc 7 "sh emit.sh"
cmp "$O/bare.out" "$O/cw.out" || fail "stdout differs from the bare run"
cmp "$O/bare.err" "$O/cw.err" || fail "stderr differs from the bare run (with --quiet)"
# Without --quiet, whatever capwatch adds on stderr is its own "capwatch:" lines.
cw --report "$O/bin2.json" -- sh emit.sh >"$O/cw2.out" 2>"$O/cw2.err"
expect_rc 7 "sh emit.sh (no --quiet)"
cmp "$O/bare.out" "$O/cw2.out" || fail "stdout differs from the bare run (no --quiet)"
"$CW_PY" - "$O/bare.err" "$O/cw2.err" <<'PY' || fail "stderr without --quiet: not the command's bytes plus capwatch: lines"
import sys
bare, got = (open(p, "rb").read() for p in sys.argv[1:3])
if got != bare:
	i = got.find(bare)
	extra = (got[:i] + got[i + len(bare):]) if i >= 0 else None
	if extra is None or any(l and not l.startswith(b"capwatch:") for l in extra.split(b"\n")):
		sys.exit(1)
PY

# --verbose: capwatch's own diagnostics, every line prefixed "capwatch:".
cw --verbose --profile readonly --report "$O/v.json" -- sh -c 'exec 2>/dev/null; echo x > f' 2>"$O/v.err"
expect_rc 2 "--verbose, a denied write"
[ -s "$O/v.err" ] || fail "--verbose printed nothing about a denial"
! grep -v '^capwatch: ' "$O/v.err" >&2 || fail "--verbose: lines on stderr without the capwatch: prefix"
cw --quiet --profile readonly --report "$O/q.json" -- sh -c 'exec 2>/dev/null; echo x > f' 2>"$O/q.err"
[ ! -s "$O/q.err" ] || fail "--quiet: capwatch printed on stderr: $(cat "$O/q.err")"

# stdin passes through (text and binary).
printf 'data\nmore' | cw --report "$O/in.json" -- cat >"$O/in.out"; rc=$?
expect_rc 0 "echo data | capwatch -- cat"
[ "$(cat "$O/in.out")" = "$(printf 'data\nmore')" ] || fail "stdin did not pass through"
cw --report "$O/in2.json" -- cat <data >"$O/in2.out"
expect_rc 0 "capwatch -- cat <data"
cmp data "$O/in2.out" || fail "binary stdin did not pass through"

# No --report at all: stdout is the command's only.
cw -- printf abc >"$O/norep.out"
expect_rc 0 "capwatch -- printf abc"
[ "$(cat "$O/norep.out")" = abc ] || fail "stdout without --report is '$(cat "$O/norep.out")', not 'abc'"

# Closed stdout/stderr: capwatch's own files must not land on fds 1/2 where
# the command would write into them; the command sees them closed, as bare.
printf 'PAYLOAD-ON-CLOSED-FD\n' > payload
sh -c 'cat payload; cat payload >&2' >&- 2>&-
bare=$?
cw --report "$O/closed.json" --trace "$O/closed.jsonl" -- sh -c 'cat payload; cat payload >&2' >&- 2>&-
expect_rc $bare "stdout and stderr closed"
! grep -q PAYLOAD "$O/closed.json" "$O/closed.jsonl" || fail "with stdout/stderr closed, the command wrote into the report or trace"
report_assert "$O/closed.json" "d['schema'] == 'capwatch.report/v1'"
trace_assert "$O/closed.jsonl" "summary['type'] == 'summary'"

# --report-fd 3, and the command cannot forge the report through fd 3.
cw --report-fd 3 -- printf xyz >"$O/fd.out" 3>"$O/fd.json"
expect_rc 0 "--report-fd 3"
[ "$(cat "$O/fd.out")" = xyz ] || fail "--report-fd 3: stdout is '$(cat "$O/fd.out")'"
report_assert "$O/fd.json" "d['schema'] == 'capwatch.report/v1'" "outcome['kind'] == 'success'"
printf '{"schema": "forged"}\nFORGED-BY-COMMAND\n' > forge
cw --report-fd 3 -- sh -c 'cat forge >&3; true' 3>"$O/fd2.json" 2>/dev/null
report_assert "$O/fd2.json" "d['schema'] == 'capwatch.report/v1'" "'FORGED-BY-COMMAND' not in text"
! grep -q FORGED "$O/fd2.json" || fail "the command wrote into the report descriptor"
exit 0
