#!/bin/sh
# --timeout kills the whole supervised tree, including a setsid'd, orphaned
# grandchild that would otherwise sleep forever. capwatch exits 124 in
# bounded time and the report says timed_out. Only PIDs this test created
# are ever signalled (by the cleanup, if capwatch failed to kill them).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

MARK=987654   # sleep duration that identifies our sleepers in /proc/PID/cmdline
# ours PID: the process is alive (not a zombie) and is one of our sleepers.
ours() {
	[ -r "/proc/$1/cmdline" ] || return 1
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ "$st" != Z ] || return 1
	tr '\0' ' ' < "/proc/$1/cmdline" | grep -q "sleep $MARK" 2>/dev/null
}
cleanup() {
	for f in "$W/gc.pid" "$W/child.pid"; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		if ours "$p"; then kill -KILL "$p"; fi
	done
	rm -rf "$T"
}
trap cleanup EXIT

# The tree: sh -> (subshell -> setsid sh -> exec sleep) orphaned in its own
# session, plus a foreground child sleeping too.
start=$(date +%s)
cw --timeout 2 --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- sh -c "
	(setsid sh -c 'echo \$\$ > gc.pid; exec sleep $MARK' &)
	sh -c 'echo \$\$ > child.pid; exec sleep $MARK'
	echo survived > after
" </dev/null
end=$(date +%s)
expect_rc 124 "--timeout 2"
[ $((end - start)) -le 20 ] || fail "--timeout 2 took $((end - start)) s"
[ -s gc.pid ] && [ -s child.pid ] || fail "the tree did not start (no pid files)"
[ ! -e after ] || fail "the foreground sleeper was not killed by signal"
# Allow a moment for init (or capwatch as subreaper) to reap.
i=0
while { ours "$(cat gc.pid)" || ours "$(cat child.pid)"; } && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
! ours "$(cat child.pid)" || fail "the child (pid $(cat child.pid)) survived --timeout"
! ours "$(cat gc.pid)" || fail "the setsid'd grandchild (pid $(cat gc.pid)) survived --timeout"

report_assert "$O/r.json" \
	"outcome['kind'] == 'timed_out'" \
	"outcome['state'] in ('cancelled', 'failed')" \
	"'exit' in outcome" \
	"not denials()"
trace_assert "$O/t.jsonl" "summary['type'] == 'summary'" "summary['outcome']['kind'] == 'timed_out'"

# A command that finishes in time is not affected by --timeout.
cw --timeout 30 --report "$O/ok.json" -- sh -c 'exit 5'
expect_rc 5 "--timeout 30 with a quick command"
report_assert "$O/ok.json" "outcome['kind'] == 'application_failure'" "outcome['exit']['code'] == 5"
exit 0
