#!/bin/sh
# E57 (blocking opens): opening a FIFO for writing blocks until a reader
# comes. If capwatch performs the open itself on its event-loop thread, it
# blocks with it: every other notification of the tree, and --timeout,
# stall. Pass: the run ends by --timeout 3 (or the open is answered).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkfifo "$W/fifo"
# Bare control: the same open really blocks (3 s, then timeout kills it).
start=$(date +%s)
timeout 3 sh -c "echo x > '$W/fifo'" 2>/dev/null
[ $(( $(date +%s) - start )) -ge 2 ] || esc_control_failed "opening the FIFO did not block bare"
start=$(date +%s)
ESC_TIMEOUT=30 under verify --timeout 3 -- sh -c "echo x > '$W/fifo'"
took=$(( $(date +%s) - start ))
[ "$took" -le 15 ] || esc_bypass "a blocking FIFO open stalled capwatch for ${took}s despite --timeout 3"
report_has 'outcome["kind"] == "timed_out"'
