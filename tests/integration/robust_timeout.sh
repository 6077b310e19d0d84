#!/bin/sh
# Issue 14, item 4: --timeout holds when capwatch's own threads are stuck.
#  A. The command holds a fanotify permission event on a file and opens
#     it: capwatch, which performs the open, waits for an answer that
#     never comes (the old timer was read by the event loop, which waited
#     for the stuck thread forever). Needs CAP_SYS_ADMIN: skipped alone.
#  B. The trace goes to a FIFO whose reader never reads: capwatch blocks
#     in the trace write with the run's lock held, and cannot come back
#     even once the tree is dead; the watchdog writes the minimal report.
# Pass: each run ends in about the timeout (3 s; at most 10) with status
# 124 and a valid report of kind timed_out, and nothing of the tree (a
# setsid'd grandchild included) is left.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
SC=$top_srcdir/tests/unit/schema_check.py
MARK=987655
ours() {
	[ -r "/proc/$1/cmdline" ] || return 1
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ "$st" != Z ] || return 1
	tr '\0' ' ' < "/proc/$1/cmdline" | grep -q "sleep $MARK" 2>/dev/null
}
RD=
cleanup() {
	[ -n "$RD" ] && kill "$RD" 2>/dev/null
	for f in "$W/gc.pid"; do
		[ -s "$f" ] && ours "$(cat "$f")" && kill -KILL "$(cat "$f")"
	done
	rm -rf "$T"
}
trap cleanup EXIT
valid() {
	"$PYTHON3" "$SC" --report "$1"
	case $? in
		0) ;;
		77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
		*) fail "$1 does not validate" ;;
	esac
}

# A. fanotify
start=$(date +%s)
cw --timeout 3 --profile verify --report "$O/fan.json" -- "$CW_PY" \
	"$top_srcdir/tests/integration/robust/fanstall.py" 2>"$O/fan.err"
took=$(( $(date +%s) - start ))
if [ "$rc" = 77 ]; then
	echo "# A skipped: $(cat "$O/fan.err")" >&2
else
	[ -e armed ] || fail "A: the fanotify mark was not set up: $(cat "$O/fan.err")"
	expect_rc 124 "A: --timeout 3 with capwatch stuck in a fanotify permission event"
	[ "$took" -le 10 ] || fail "A: took ${took}s for --timeout 3"
	valid "$O/fan.json"
	report_assert "$O/fan.json" 'outcome["kind"] == "timed_out"' 'outcome["state"] == "cancelled"'
	! grep -q "the open returned" "$O/fan.err" || fail "A: the command went on"
fi
rm -f armed victim

# B. a trace FIFO nobody reads
mkfifo "$O/trace.fifo" || fail "mkfifo"
( exec 7<"$O/trace.fifo"; exec sleep 60 ) &
RD=$!
start=$(date +%s)
cw --timeout 3 --profile verify --report "$O/fifo.json" --trace "$O/trace.fifo" -- sh -c "
	(setsid sh -c 'echo \$\$ > gc.pid; exec sleep $MARK' &)
	i=0; while [ \$i -lt 3000 ]; do cat /dev/null; i=\$((i+1)); done
	exec sleep $MARK" </dev/null 2>"$O/fifo.err"
took=$(( $(date +%s) - start ))
expect_rc 124 "B: --timeout 3 with capwatch stuck writing its trace"
[ "$took" -le 10 ] || fail "B: took ${took}s for --timeout 3"
valid "$O/fifo.json"
report_assert "$O/fifo.json" 'outcome["kind"] == "timed_out"' \
	'"event loop was blocked" in outcome["enforcement"]["downgradeReason"]'
[ -s gc.pid ] || fail "B: the setsid'd grandchild did not start"
i=0
while ours "$(cat gc.pid)" && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done
! ours "$(cat gc.pid)" || fail "B: the setsid'd grandchild survived the timeout"
exit 0
