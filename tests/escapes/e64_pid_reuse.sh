#!/bin/sh
# E64: PID reuse after a target dies with a notification pending: children
# that write-open a file outside the workspace are SIGKILLed at random
# moments while bursts of allowed children recycle PIDs. Pass: the canary
# is never opened. (Reuse of the very TID inside the decision window is
# likely, not forced; pid_max is reported.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e64_pid_reuse
canary_make "$H/.bashrc"
: >"$W/ok.txt"
bare "$ESC_BIN/e64_pid_reuse" 1 "$W/ok.txt" "$H/.bashrc"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare: no child reached the canary before its kill: $(race_line "$O/bare.out")"
canary_make "$H/.bashrc"
esc_log "pid_max $(cat /proc/sys/kernel/pid_max 2>/dev/null)"
under verify -- "$ESC_BIN/e64_pid_reuse" "$RACE" "$W/ok.txt" "$H/.bashrc"
race_verdict "$H/.bashrc" "a killed child's write-open of $H/.bashrc went through under --profile verify"
race_need_ok
