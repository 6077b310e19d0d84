#!/bin/sh
# Kernel back end (red team 17): programs the command has just made and
# runs are never taken for strangers, nor are their children.
#
# A program that forks and exits at once is often exiting (its memory,
# and so /proc/PID/exe, already gone) when capwatch reads its exec event:
# it was taken for one still running with its image unreadable and
# stopped, its image was never counted as allowed, and the child it had
# forked was then killed as running "an image fanotify allowed no process
# of the tree" (2-5 of 600 in each run under CAPWATCH_KERNEL_READS=1).
# Here four loops each copy such a program to a new file of the
# workspace and run it, 150 times; every child must make its file, and
# nothing may be stopped or recorded as an unidentified image.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cw --backend kernel --report "$O/probe.json" -- true 2>"$O/probe.err" ||
	skip "no kernel back end here: $(cat "$O/probe.err")"
P=$top_builddir/tests/integration/src/fork_exit
[ -x "$P" ] || fail "missing helper $P (make check builds it)"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
cat >"$O/prof.json" <<P
{"name": "fresh", "extends": "verify", "capabilities": {"process_spawn": {"default": "deny",
 "allow": ["/usr/bin/*", "/bin/*", "$ld", "$W/bin/*"]}}}
P
cat >"$O/loops.sh" <<S
P=$P
loop() {
	i=0
	while [ \$i -lt 150 ]; do
		i=\$((i + 1))
		cp "\$P" "bin/v\$1.\$i" && "bin/v\$1.\$i" made "\$1.\$i" || echo "FAILED v\$1.\$i: \$?"
	done
}
loop 1 & loop 2 & loop 3 & loop 4 &
wait
echo LOOPS-DONE
S
for mode in default kreads; do
	rm -rf bin made && mkdir bin made
	if [ $mode = kreads ]; then
		CAPWATCH_KERNEL_READS=1 cw --backend kernel --profile "$O/prof.json" --report "$O/$mode.json" \
			-- /bin/sh "$O/loops.sh" >"$O/$mode.out" 2>&1
	else
		cw --backend kernel --profile "$O/prof.json" --report "$O/$mode.json" \
			-- /bin/sh "$O/loops.sh" >"$O/$mode.out" 2>&1
	fi
	grep -q LOOPS-DONE "$O/$mode.out" || { cat "$O/$mode.out" >&2; fail "$mode: the loops did not end (exit $rc)"; }
	if grep -q FAILED "$O/$mode.out"; then
		grep -E 'FAILED|capwatch' "$O/$mode.out" | head -20 >&2
		fail "$mode: $(grep -c FAILED "$O/$mode.out") of 600 fresh programs failed"
	fi
	n=$(ls made | wc -l)
	[ "$n" = 600 ] || { grep capwatch "$O/$mode.out" | head -10 >&2; fail "$mode: $n of 600 children made their file"; }
	grep -q 'stopped: its image' "$O/$mode.out" && { grep capwatch "$O/$mode.out" | head -10 >&2; fail "$mode: a process was stopped"; }
	expect_rc 0 "$mode"
	report_assert "$O/$mode.json" "not [e for e in d.get('denials') or [] if e.get('rule') == 'builtin:exec-unidentified']" \
		"outcome['kind'] == 'success'"
done
exit 0
