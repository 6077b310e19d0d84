#!/bin/sh
# E57 (blocking opens): opening a FIFO for writing blocks until a reader
# comes. If capwatch performs the open itself on its event-loop thread, it
# blocks with it: every other notification of the tree, and --timeout,
# stall. Pass: the run ends by --timeout 1 (or the open is answered); a
# stalled capwatch runs until ESC_TIMEOUT's 30 s. (It was --timeout 3 and
# a bare control of 3 s: issue 16 item 7.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkfifo "$W/fifo"
# Bare control: the same open really blocks: timeout(1) had to kill it
# (124), after half a second.
timeout 0.5 sh -c "echo x > '$W/fifo'" 2>/dev/null
[ $? = 124 ] || esc_control_failed "opening the FIFO did not block bare"
start=$(date +%s)
ESC_TIMEOUT=30 under verify --timeout 1 -- sh -c "echo x > '$W/fifo'"
took=$(( $(date +%s) - start ))
[ "$took" -le 15 ] || esc_bypass "a blocking FIFO open stalled capwatch for ${took}s despite --timeout 1"
report_has 'outcome["kind"] == "timed_out"'
