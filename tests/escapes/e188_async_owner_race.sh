#!/bin/sh
# E188 (red team 21): capwatch made the owner of a descriptor of the tree.
# capwatch turns O_ASYNC on itself, on its duplicate, after making the
# caller the owner; a pty with no session and no owner makes the caller of
# that call, capwatch, the owner instead (tty_fasync). A thread of the
# tree clearing the owner with F_SETOWN(0), continued by capwatch until
# 2026-12-07, landed between the two within a second: F_SETSIG(SIGSTOP)
# then stopped capwatch (its --timeout never fired, every notified call of
# the tree hung), F_SETSIG(SIGKILL) killed it (no report). Now every clear
# is performed by capwatch, and an owner that changed under capwatch's own
# call is set back and the call refused.
# Pass: capwatch ends the run itself, with its report, both signals; and
# the program ran to its end when its time is shorter than the timeout.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e188_async_owner_race
secs=${CW_RACE_SECONDS:-3}
[ "$secs" -gt 6 ] && secs=6
for sig in 19 9; do
	N=$((N + 1))
	R=$O/report$N.json OUT=$O/cw$N.out
	# No stdin terminal: a session of its own (the pty is the tree's).
	timeout -k 5 40 "$CAPWATCH" --profile readonly --timeout 10 --report "$R" -- \
		"$ESC_BIN/e188_async_owner_race" "$secs" "$sig" </dev/null >"$OUT" 2>&1
	rc=$?
	case $rc in
	124 | 137 | 143) esc_bypass "signal $sig: capwatch did not end the run itself (exit $rc): $(tr '\n' ' ' <"$OUT" | tail -c 400)" ;;
	esac
	[ -s "$R" ] || esc_bypass "signal $sig: capwatch wrote no report (exit $rc): $(tr '\n' ' ' <"$OUT" | tail -c 400)"
	grep -q '^ROUNDS [1-9]' "$OUT" || fail "signal $sig: the race did not run to its end (exit $rc): $(tr '\n' ' ' <"$OUT" | tail -c 400)"
	esc_log "signal $sig: $(grep ROUNDS "$OUT"), capwatch exit $rc"
done
exit 0
