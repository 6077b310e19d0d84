#!/bin/sh
# E142: an alarm()-bounded blocking connect (the classic timeout) never
# times out under --profile verify --backend portable: capwatch performs
# the connect on a worker thread (net.c connect_worker) and the caller
# waits killably (WAIT_KILLABLE_RECV), so SIGALRM (no SA_RESTART) does not
# end it; only --timeout does. Bare, and under --observe (continued), the
# connect fails with EINTR after 1 s. Not from 793d4db (its parent
# behaves the same); capwatch(1) "Signals" names only the FIFO open.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e142_connect_alarm
P=$ESC_BIN/e142_connect_alarm
bare "$P" 4999
grep -q '^connect: eintr ' "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"
under verify --observe --backend portable --timeout 20 -- "$P" 4999
grep -q '^connect: eintr ' "$OUT" || { cat "$OUT" >&2; fail "--observe: the alarm did not end the connect"; }
under verify --backend portable --timeout 8 -- "$P" 4999
grep -q '^connect: eintr ' "$OUT" || { cat "$OUT" >&2; fail "verify: SIGALRM did not end the blocking connect (bare: EINTR after 1 s; exit $rc)"; }
exit 0
