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

# Not executable (126, like a shell or env(1)): there, but cannot run. The
# contract has no kind of its own for it; capwatch reports
# application_failure without "exit" (man capwatch, EXIT STATUS), so that
# the report tells it from not found (executable_not_found, 127) and from a
# policy denial (policy_denied, also 126).
not_executable() { # NAME WHAT: $rc and the report $O/NAME.json
	expect_rc 126 "$2"
	report_assert "$O/$1.json" "outcome['kind'] == 'application_failure'" \
		"outcome['state'] == 'failed'" "'exit' not in outcome" "'denial' not in outcome" \
		"denials() == []"
	[ ! -e marker ] || fail "$2: something ran"
	grep -q '^capwatch: .*cannot execute' "$O/$1.err" || fail "$2: no word on stderr"
}
printf '#!/bin/sh\necho ran > marker\n' > notexec.sh
chmod 644 notexec.sh
cw --report "$O/ne.json" -- ./notexec.sh 2>"$O/ne.err"
not_executable ne "capwatch -- ./notexec.sh (mode 644)"
cw --report "$O/dir.json" -- "$W" 2>"$O/dir.err"
not_executable dir "capwatch -- DIRECTORY"
# Through PATH: a match without x is 126, as in execvp(3).
mkdir pbin && cp notexec.sh pbin/notexec-integ-3f1 && chmod 644 pbin/notexec-integ-3f1
env PATH="$W/pbin" notexec-integ-3f1 2>/dev/null
[ "$?" = 126 ] || fail "bare env through PATH: not 126"
PATH="$W/pbin:$PATH" cw --report "$O/nep.json" -- notexec-integ-3f1 2>"$O/nep.err"
not_executable nep "capwatch -- notexec-integ-3f1 (PATH lookup, mode 644)"
# Found and executable, but the kernel refuses it: its "#!" interpreter has
# no x (EACCES from execve in the child, after capwatch's own look).
printf '#!%s/notexec.sh\necho ran > marker\n' "$W" > badinterp.sh
chmod 755 badinterp.sh
sh -c ./badinterp.sh 2>/dev/null
[ "$?" = 126 ] || fail "bare: ./badinterp.sh is not 126"
cw --report "$O/bi.json" -- ./badinterp.sh 2>"$O/bi.err"
not_executable bi "capwatch -- ./badinterp.sh (interpreter mode 644)"
# ...and a missing interpreter is not found, as for a shell (127).
printf '#!%s/no-such-interp\necho ran > marker\n' "$W" > nointerp.sh
chmod 755 nointerp.sh
cw --report "$O/ni.json" -- ./nointerp.sh 2>"$O/ni.err"
expect_rc 127 "capwatch -- ./nointerp.sh (interpreter missing)"
report_assert "$O/ni.json" "outcome['kind'] == 'executable_not_found'" "'exit' not in outcome"
[ ! -e marker ] || fail "./nointerp.sh: something ran"
# A file the kernel cannot run (ENOEXEC) and without "#!" is run by /bin/sh,
# as execvp(3), env(1) and timeout(1) do: it ran, with sh's own status.
printf 'echo ran > marker\nexit 3\n' > noshebang
chmod 755 noshebang
cw --report "$O/ns.json" -- ./noshebang 2>/dev/null
expect_rc 3 "capwatch -- ./noshebang"
[ -e marker ] || fail "./noshebang did not run through /bin/sh"
rm -f marker
report_assert "$O/ns.json" "outcome['kind'] == 'application_failure'" "outcome['exit']['code'] == 3"

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
