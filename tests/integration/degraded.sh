#!/bin/sh
# enforcement_degraded (contract section 4): reported whenever a layer could
# not be applied -- ptrace already taken by a debugger, nested capwatch.
# What still works keeps working: under readonly the seccomp layer still
# denies the write.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

if command -v strace >/dev/null 2>&1; then
	# The portable back end needs ptrace, which strace holds.
	timeout -k 5 60 strace -f -o /dev/null "$CAPWATCH" --backend portable --report "$O/s.json" -- sh -c 'echo hi > f; echo done' >"$O/s.out" 2>"$O/s.err"
	rc=$?
	expect_rc 0 "under strace -f"
	[ "$(cat "$O/s.out")" = "done" ] && [ -f f ] || fail "under strace -f: the command did not run normally"
	grep -q '^capwatch: ' "$O/s.err" || fail "under strace -f: no capwatch: diagnostic about the degradation"
	report_assert "$O/s.json" \
		"outcome['kind'] == 'enforcement_degraded'" \
		"outcome['enforcement']['degraded'] is True" \
		"outcome['enforcement']['downgradeReason'] != ''" \
		"'ptrace' not in outcome['enforcement']['layers']" \
		"outcome['exit']['code'] == 0"
	rm -f f
	timeout -k 5 60 strace -f -o /dev/null "$CAPWATCH" --backend portable --profile readonly --report "$O/s2.json" -- sh -c 'echo hi > f' 2>/dev/null
	rc=$?
	expect_rc 2 "readonly under strace -f"
	[ ! -e f ] || fail "readonly under strace -f: the write happened"
	report_assert "$O/s2.json" "outcome['enforcement']['degraded'] is True" \
		"outcome['kind'] in ('enforcement_degraded', 'enforcement_denied')" \
		"len(denials('workspace_write', '$W/f')) >= 1"
	rm -f f
	# The kernel back end does not use ptrace: under a debugger it
	# loses nothing.
	if "$CAPWATCH" --backend kernel --report "$O/k0.json" -- true 2>/dev/null; then
		timeout -k 5 60 strace -f -o /dev/null "$CAPWATCH" --backend kernel --profile readonly --report "$O/s3.json" -- sh -c 'echo hi > f' 2>/dev/null
		rc=$?
		expect_rc 2 "readonly under strace -f, kernel back end"
		[ ! -e f ] || fail "kernel back end under strace -f: the write happened"
		report_assert "$O/s3.json" "outcome['enforcement']['degraded'] is False" \
			"denied_run()" \
			"len(denials('workspace_write', '$W/f')) >= 1"
	else
		echo "# no kernel back end here: its debugger case not run" >&2
	fi
else
	echo "# strace not installed: debugger case not run" >&2
fi

# Nested capwatch: the outer one (observe, so it lets the inner one try)
# holds the seccomp listener and ptrace; the inner one cannot apply those
# layers and must say so as enforcement_degraded.
cw --profile observe --report "$O/outer.json" -- "${CAPWATCH_REAL:-$CAPWATCH}" --profile verify --report "$O/inner.json" -- sh -c 'echo nested > g' 2>"$O/n.err"
cat "$O/n.err" >&2
report_assert "$O/inner.json" \
	"outcome['enforcement']['degraded'] is True" \
	"outcome['enforcement']['downgradeReason'] != ''" \
	"outcome['kind'] == 'enforcement_degraded'" \
	"'exit' in outcome"
exit 0
