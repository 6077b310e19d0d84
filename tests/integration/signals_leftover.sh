#!/bin/sh
# capwatch can be stopped after the command exited while its descendants
# live on (issue 17 item 2): TERM, INT and HUP reach what is left of the
# tree; whatever ignores them (a background job of sh ignores SIGINT) is
# killed 2 s later, and the run ends as `cancelled` with a report.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
for sig in TERM INT HUP; do
	rm -f "$W/bg.pid"
	"$CAPWATCH" --report "$O/$sig.json" -- sh -c 'sleep 300 & echo $! > "$1"; exit 0' sh "$W/bg.pid" \
		>"$O/$sig.out" 2>"$O/$sig.err" &
	cwpid=$!
	i=0
	while [ ! -s "$W/bg.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$W/bg.pid" ] || { kill -9 "$cwpid"; fail "$sig: the command never started its background job"; }
	bg=$(cat "$W/bg.pid")
	sleep 0.5 # the command has exited; capwatch waits for the sleep
	kill -0 "$cwpid" 2>/dev/null || fail "$sig: capwatch ended before the background job did"
	kill -"$sig" "$cwpid"
	i=0
	while kill -0 "$cwpid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$cwpid" 2>/dev/null; then
		kill -9 "$cwpid"; wait "$cwpid" 2>/dev/null
		fail "$sig: capwatch was still running 10 s after SIG$sig"
	fi
	wait "$cwpid"
	# The job's pid in this test's numbering: the report's (the number
	# the command printed is its PID namespace's under
	# CAPWATCH_KERNEL_READS=1).
	bg=$(json_get "$O/$sig.json" "[p['pid'] for p in d['processes'] if p.get('argv') == ['sleep', '300']][0]") ||
		fail "$sig: the report lists no background job"
	# Gone, or a zombie its new parent has yet to reap; a pid of another
	# program (reused meanwhile) is not it.
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$bg/status" 2>/dev/null)
	[ "$(tr '\0' ' ' <"/proc/$bg/cmdline" 2>/dev/null)" = "sleep 300 " ] || state=
	[ -z "$state" ] || [ "$state" = Z ] || { kill -9 "$bg"; fail "$sig: the background job survived the run (state $state)"; }
	report_assert "$O/$sig.json" "outcome['kind'] == 'cancelled'" "outcome['state'] == 'cancelled'"
done
exit 0
