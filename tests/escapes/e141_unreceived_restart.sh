#!/bin/sh
# E141: restart_unreceived (793d4db) restarts a blocking call that a
# signal interrupted while it waited for capwatch to receive it, through
# a handler without SA_RESTART: a FIFO open under --observe that bare
# fails with EINTR when its alarm comes goes on sleeping past the alarm
# (here until a writer comes 300 ms later; with none, until --timeout).
# The handler sees the kernel's restart (rax == __NR_openat in its
# context), which bare never shows for a call already in the kernel. The
# window is capwatch's receive latency, widened here by eight threads
# that keep it busy with long-path opens; the previous binary gave EINTR.
# Fixed: under --observe only the calls whose bodies never sleep are
# restarted (ptrace.c restart_unreceived).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e141_unreceived_restart
P=$ESC_BIN/e141_unreceived_restart
mkfifo "$W/f" || fail "mkfifo"
: >"$W/plain"
# 50 trials in make check, 100 in make check-long (CW_LONG=1): the defect
# restarted 18-25 opens in 100 (3e4c59a), so 50 trials miss it with a
# chance of about 0.8^50, 1 in 70,000; with the fix taken out again
# (2026-12-06) 32 and 33 of 50 restarted. Eight threads keep capwatch busy
# for every trial: 100 took 18 s of a loaded make -j2 check (issue 16
# item 7).
TRIALS=${E141_TRIALS:-50}
[ -n "${CW_LONG:-}" ] && [ -z "${E141_TRIALS:-}" ] && TRIALS=100

val() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" "$2"; }

bare "$P" "$W/f" "$W/plain" 400 50
cat "$O/bare.out" >&2
[ "$(val restarted "$O/bare.out")" = 0 ] || esc_control_failed "bare: a restarted openat: $(cat "$O/bare.out")"
[ "$(val eintr "$O/bare.out")" -ge 45 ] || esc_control_failed "bare: the alarm did not interrupt the FIFO open: $(cat "$O/bare.out")"

under verify --observe --backend portable --timeout 100 -- "$P" "$W/f" "$W/plain" 400 "$TRIALS"
cat "$OUT" >&2
grep -q "^trials $TRIALS " "$OUT" || fail "the program did not finish its trials (exit $rc)"
r=$(val restarted "$OUT") s=$(val slept_through "$OUT")
# Restarted: never (the defect). Slept through without a restart: the
# signal came before the open began (ptrace delivers it later than bare),
# a legitimate order that the previous binary showed too (1-2 in 100 on
# a quiet machine, more under load); a bound, not zero: a fifth of them.
[ "${r:-0}" = 0 ] && [ "${s:-0}" -le $((TRIALS / 5)) ] ||
	fail "--observe: $s of $TRIALS alarm-bounded FIFO opens slept past their SIGALRM (no SA_RESTART), $r of them restarted by the kernel; bare: none"
exit 0
