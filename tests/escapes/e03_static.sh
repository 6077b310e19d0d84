#!/bin/sh
# E03: a statically linked program (no dynamic loader: no LD_PRELOAD
# library, raw libc syscalls). Enforcement lives in seccomp and ptrace,
# which linking does not affect.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e03_static
file "$ESC_BIN/e03_static" 2>/dev/null | grep -q 'dynamically linked' && fail "e03_static is not static"
canary_make "$H/.bashrc"
sink_start tcp 8085
bare "$ESC_BIN/e03_static" "$H/.bashrc" "$SINK_ADDR" 8085
canary_intact "$H/.bashrc" && esc_control_failed "bare static write did not change the canary: $(cat "$O/bare.out")"
sink_wait || esc_control_failed "bare static connect did not reach the sink"
canary_make "$H/.bashrc"; sink_reset
under readonly -- "$ESC_BIN/e03_static" "$H/.bashrc" "$SINK_ADDR" 8085
sink_flush
canary_intact "$H/.bashrc" || esc_bypass "static binary wrote $H/.bashrc under --profile readonly"
[ "$(sink_hits)" = 0 ] || esc_bypass "static binary reached the sink under --profile readonly"
expect_denied unrestricted "'$H/.bashrc'"
expect_denied external_network "'$SINK_ADDR:8085'"
