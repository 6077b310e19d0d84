#!/bin/sh
# E57: notification flood (64 threads looping notified opens) while the
# main thread keeps trying to write a file outside the workspace; and a
# huge argv (about 1.5 MiB) to copy. capwatch must keep answering, never
# fail open, and still write a report.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e57_flood
canary_make "$H/.bashrc"
bare "$ESC_BIN/e57_flood" 64 1 "$H/.bashrc"
canary_intact "$H/.bashrc" && esc_control_failed "bare writes did not reach the canary: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e57_flood" 64 "$RACE" "$H/.bashrc"
race_verdict "$H/.bashrc" "a write outside the workspace went through during a notification flood"
grep -q 'flood=[1-9]' "$OUT" || fail "no flood happened: $(cat "$OUT")"
expect_denied unrestricted "'$H/.bashrc'"
# A huge argv.
big=$("$PY" -c "print(' '.join(['A' * 1000] * 1500))")
under verify -- sh -c 'echo "$#" args' sh $big
grep -q '^1500 args' "$OUT" || fail "the huge-argv command did not run: $(head -c 300 "$OUT")"
report_has 'outcome["kind"] == "success"'
