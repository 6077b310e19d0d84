#!/bin/sh
# Signals reach the command: Ctrl-C (SIGINT to the foreground process group)
# is seen by the command, whose own exit status comes back; SIGTERM to
# capwatch ends the whole tree and still yields a report (kind cancelled).
# Only the process group and PIDs this test created are signalled.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
MARK=987656
ours() { [ -r "/proc/$1/cmdline" ] && [ "$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" != Z ] \
	&& tr '\0' ' ' < "/proc/$1/cmdline" | grep -q "$MARK"; }
cleanup() {
	[ -s "$W/sleeper.pid" ] && ours "$(cat "$W/sleeper.pid")" && kill -KILL "$(cat "$W/sleeper.pid")"
	rm -rf "$T"
}
trap cleanup EXIT

# wait_file F: up to 10 s.
wait_file() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; [ -s "$1" ]; }

# Ctrl-C: capwatch leads its own session and process group (setsid does not
# fork here: a background job of a non-interactive shell is no group leader).
setsid timeout -k 5 60 "$CAPWATCH" --report "$O/int.json" -- sh -c "
	trap 'echo got-int > int.marker; exit 5' INT
	echo ready > ready
	i=0; while [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
	exit 9" </dev/null &
grp=$!
wait_file ready || { kill -KILL -$grp; fail "the command did not start"; }
kill -INT -$grp || fail "could not signal the process group $grp"
wait $grp
rc=$?
expect_rc 5 "SIGINT to the foreground group (Ctrl-C)"
[ -e int.marker ] || fail "the command did not see SIGINT"
report_assert "$O/int.json" "outcome['exit']['code'] == 5"

# SIGTERM to capwatch alone.
timeout -k 5 60 "$CAPWATCH" --report "$O/term.json" -- sh -c "echo \$\$ > sleeper.pid; exec sleep $MARK" </dev/null &
cwpid=$!
wait_file sleeper.pid || fail "the command did not start"
kill -TERM $cwpid
start=$(date +%s)
wait $cwpid
rc=$?
[ $(( $(date +%s) - start )) -le 15 ] || fail "capwatch took more than 15 s to stop after SIGTERM"
[ "$rc" != 0 ] || fail "capwatch exited 0 after SIGTERM"
i=0; while ours "$(cat sleeper.pid)" && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
! ours "$(cat sleeper.pid)" || fail "the command survived SIGTERM to capwatch"
report_assert "$O/term.json" "outcome['kind'] == 'cancelled'" "outcome['state'] == 'cancelled'"
exit 0
