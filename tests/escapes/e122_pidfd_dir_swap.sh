#!/bin/sh
# pidfd_send_signal(N) is decided on N's fdinfo "Pid:" line (proc.c,
# cw_pidfd_target) and then CONTINUEd. A thread dup2()s onto N, in turn, a
# pidfd of the program's own child (inside the tree) and a /proc/VICTIM
# directory opened for reading (an allowed read: /proc/PID directories of
# processes outside the tree open under verify), which the kernel accepts
# as a pidfd. The victim (a sleep started by this test) must survive.
# Runs with Landlock (ABI 6 scopes signals to the domain) and with
# --no-landlock (the supervisor's decision alone, as on kernels before
# 6.12, or when Landlock is off).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e122_pidfd_swap

victim_start sleep 1000
bare "$ESC_BIN/e122_pidfd_swap" "$(race_bare_secs)" "$VICTIM_PID"
sleep 0.2
victim_alive && esc_control_failed "bare: the victim survived: $(cat "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"

bad=
for opt in "" --no-landlock; do
	victim_start sleep 1000
	under verify $opt -- "$ESC_BIN/e122_pidfd_swap" "$RACE" "$VICTIM_PID"
	sleep 0.2
	esc_log "verify ${opt:-(landlock)}: $(race_line "$OUT") layers $(json_get "$R" 'd["outcome"]["enforcement"]["layers"]')"
	if [ -z "$(race_line "$OUT")" ]; then
		# The fix refuses the attack's setup: opening the directory
		# /proc/VICTIM of a process outside the tree is process_control
		# (fs_special.c), so the program stops before racing (no RACE
		# line). Anything else without a result is a broken run.
		# Under the tree's own PID namespace (CAPWATCH_KERNEL_READS=1)
		# its /proc has no directory for a process outside: ENOENT,
		# and no allow recorded for the victim or its directory.
		if esc_pidns; then
			grep -q "open /proc/$VICTIM_PID: No such file or directory" "$OUT" ||
				{ cat "$OUT" >&2; fail "no result under capwatch $opt"; }
			esc_none_allowed "$VICTIM_PID" "/proc/$VICTIM_PID"
		else
			grep -q "open /proc/$VICTIM_PID: Operation not permitted" "$OUT" ||
				{ cat "$OUT" >&2; fail "no result under capwatch $opt"; }
			expect_denied process_control "'$VICTIM_PID'"
		fi
	fi
	if ! victim_alive; then
		bad="$bad; verify ${opt:-with landlock}: the victim outside the tree was killed by pidfd_send_signal on a swapped /proc/PID descriptor ($(race_line "$OUT"))"
	fi
	esc_kill "$VICTIM_PID"
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
