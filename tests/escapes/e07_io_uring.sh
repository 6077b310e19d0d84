#!/bin/sh
# E07: io_uring: IORING_OP_OPENAT and IORING_OP_CONNECT run without any
# open/connect syscall for seccomp to see. io_uring_setup must be denied.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e07_io_uring
[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 2 ] && skip "io_uring disabled (kernel.io_uring_disabled=2)"
canary_make "$H/.bashrc"
sink_start tcp 8086
bare "$ESC_BIN/e07_io_uring" open "$H/.bashrc"
[ "$rc" = 3 ] && skip "io_uring unavailable: $(cat "$O/bare.out")"
canary_intact "$H/.bashrc" && esc_control_failed "bare io_uring OPENAT did not change the canary: $(cat "$O/bare.out")"
bare "$ESC_BIN/e07_io_uring" connect "$SINK_ADDR" 8086
sink_wait || esc_control_failed "bare io_uring CONNECT did not reach the sink: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"; sink_reset
under readonly -- "$ESC_BIN/e07_io_uring" open "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "io_uring OPENAT wrote $H/.bashrc under --profile readonly"
expect_denied unrestricted "'io_uring_setup'"
under verify -- "$ESC_BIN/e07_io_uring" connect "$SINK_ADDR" 8086
sink_flush
[ "$(sink_hits)" = 0 ] || esc_bypass "io_uring CONNECT reached the sink under --profile verify"
expect_denied unrestricted "'io_uring_setup'"
