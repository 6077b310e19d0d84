#!/bin/sh
# capwatch's own exit statuses (contract section 1): 127 not found, 126 not
# executable, 125 for its own failures (bad profile file named file:line,
# unknown option, no command), --help exits 0 on stdout.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

# Not found: by path and through PATH.
cw --report "$O/nf.json" -- ./no-such-program 2>"$O/nf.err"
expect_rc 127 "capwatch -- ./no-such-program"
report_assert "$O/nf.json" "outcome['kind'] == 'executable_not_found'" "'exit' not in outcome"
cw --report "$O/nf2.json" -- no-such-program-integ-3f1 2>/dev/null
expect_rc 127 "capwatch -- no-such-program-integ-3f1 (PATH lookup)"
report_assert "$O/nf2.json" "outcome['kind'] == 'executable_not_found'" "'exit' not in outcome"

# Not executable.
printf '#!/bin/sh\necho ran > marker\n' > notexec.sh
chmod 644 notexec.sh
cw --report "$O/ne.json" -- ./notexec.sh 2>"$O/ne.err"
expect_rc 126 "capwatch -- ./notexec.sh (mode 644)"
[ ! -e marker ] || fail "a non-executable file was run"
report_assert "$O/ne.json" "'exit' not in outcome" "outcome['kind'] != 'success'"
cw --report "$O/dir.json" -- "$W" 2>/dev/null
expect_rc 126 "capwatch -- DIRECTORY"

# Bad profile files: one line on stderr naming file:line; the command does not run.
printf '{\n  "name": "bad",\n  "capabilities": {\n    "netwrk": "deny"\n  }\n}\n' > "$O/bad.json"
cw --profile "$O/bad.json" -- sh -c 'echo ran > marker' 2>"$O/bad.err"
expect_rc 125 "--profile with an unknown capability"
[ ! -e marker ] || fail "the command ran despite a bad profile"
cat "$O/bad.err" >&2
[ "$(wc -l < "$O/bad.err")" -eq 1 ] || fail "bad profile: expected one line on stderr, got $(wc -l < "$O/bad.err")"
grep -q "bad.json:4" "$O/bad.err" || fail "bad profile: the message does not name bad.json:4"
grep -q '^capwatch: ' "$O/bad.err" || fail "bad profile: the message is not prefixed capwatch:"
grep -q netwrk "$O/bad.err" || fail "bad profile: the message does not quote the bad value"

printf '{\n  "name": "syntax",\n  "capabilities": {\n    "workspace_write": allow\n  }\n}\n' > "$O/syntax.json"
cw --profile "$O/syntax.json" -- true 2>"$O/syntax.err"
expect_rc 125 "--profile with a JSON syntax error"
cat "$O/syntax.err" >&2
[ "$(wc -l < "$O/syntax.err")" -eq 1 ] || fail "syntax error: expected one line on stderr"
grep -q "syntax.json:4" "$O/syntax.err" || fail "syntax error: the message does not name syntax.json:4"

cw --profile "$O/missing-profile.json" -- true 2>"$O/miss.err"
expect_rc 125 "--profile naming a file that does not exist"
grep -q missing-profile.json "$O/miss.err" || fail "missing profile: the message does not name the file"
cw --profile no-such-builtin -- true 2>/dev/null
expect_rc 125 "--profile no-such-builtin"

# Outputs that cannot be written: capwatch fails (125) before the command runs.
cw --report "$T/no-such-dir/r.json" -- sh -c 'echo ran > marker' 2>"$O/rep.err"
expect_rc 125 "--report into a missing directory"
[ ! -e marker ] || fail "the command ran although the report cannot be written"
grep -q '^capwatch: .*no-such-dir' "$O/rep.err" || fail "--report failure: the message does not name the path"
cw --trace "$T/no-such-dir/t.jsonl" -- sh -c 'echo ran > marker' 2>/dev/null
expect_rc 125 "--trace into a missing directory"
[ ! -e marker ] || fail "the command ran although the trace cannot be written"
cw --report-fd 9 -- sh -c 'echo ran > marker' 2>/dev/null
expect_rc 125 "--report-fd naming a closed descriptor"
[ ! -e marker ] || fail "the command ran although the report descriptor is closed"
cw --workspace "$T/no-such-root" -- sh -c 'echo ran > marker' 2>/dev/null
expect_rc 125 "--workspace naming a missing directory"
[ ! -e marker ] || fail "the command ran with a missing workspace root"

# Usage errors.
cw --no-such-option -- true >"$O/uo.out" 2>"$O/uo.err"
expect_rc 125 "capwatch --no-such-option"
[ -s "$O/uo.err" ] || fail "unknown option: nothing on stderr"
[ ! -s "$O/uo.out" ] || fail "unknown option: usage went to stdout"
cw 2>/dev/null
expect_rc 125 "capwatch with no command"
cw --timeout abc -- true 2>/dev/null
expect_rc 125 "capwatch --timeout abc"

# --help: exit 0, on stdout, mentions the main options.
cw --help >"$O/help.out" 2>"$O/help.err"
expect_rc 0 "capwatch --help"
grep -q -- --profile "$O/help.out" && grep -q -- --report "$O/help.out" && grep -q -- --timeout "$O/help.out" \
	|| fail "--help does not list --profile, --report and --timeout on stdout"
[ ! -s "$O/help.err" ] || fail "--help wrote to stderr"

# capwatch profiles: the five built-in profiles.
cw profiles >"$O/prof.out"
expect_rc 0 "capwatch profiles"
for p in none readonly verify repair observe; do
	grep -qw "$p" "$O/prof.out" || fail "capwatch profiles does not list $p"
done
exit 0
