#!/bin/sh
# E63: signal-driven restarts: a 50 us interval timer with an SA_RESTART
# handler interrupts notified opens over and over. A denied open must stay
# denied on every restart; allowed ones must not multiply side effects.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e63_restart
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e63_restart" 1 "$W/ok.txt" "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare restarts: the canary was never opened: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"; : >"$W/ok.txt"
under verify -- "$ESC_BIN/e63_restart" "$RACE" "$W/ok.txt" "$H/.bashrc"
race_verdict "$H/.bashrc" "a denied open went through among signal restarts"
good=$(sed -n 's/.*good=\([0-9]*\).*/\1/p' "$OUT")
lines=$(wc -l <"$W/ok.txt")
[ "$good" = "$lines" ] || fail "allowed opens: the program saw $good, the file got $lines lines"
