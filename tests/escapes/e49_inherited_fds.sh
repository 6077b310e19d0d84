#!/bin/sh
# E49: descriptors inherited from the launcher: fd 3 opened for append on a
# file outside the workspace before capwatch starts. capwatch must not pass
# it on (close_range at start).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
bare sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" && esc_control_failed "bare write to the inherited fd 3 failed"
canary_make "$H/.bashrc"
under readonly -- sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "the command wrote $H/.bashrc through an inherited fd 3"
# capwatch's own report descriptor (--report-fd) must not reach the command.
N=$((N + 1)); R=$O/report$N.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile readonly --report-fd 5 -- sh -c 'echo "{\"forged\": 1}" >&5' 5>"$R" >"$OUT" 2>&1
head -c 20 "$R" | grep -q forged && esc_bypass "the command wrote into capwatch's report descriptor"
report_has 'd["schema"] == "capwatch.report/v1"'
