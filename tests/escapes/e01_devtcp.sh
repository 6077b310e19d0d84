#!/bin/sh
# E01: bash's /dev/tcp builtin opens a TCP connection with no network
# program exec'd. capwatch must decide at connect(), whatever the binary.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
command -v bash >/dev/null || skip "bash not installed"
sink_start tcp 8080

bare bash -c "exec 3<>/dev/tcp/$SINK_ADDR/8080; printf 'E01\n' >&3"
sink_wait || esc_control_failed "bare bash /dev/tcp did not reach the sink: $(cat "$O/bare.out")"
sink_reset

under readonly -- bash -c "exec 3<>/dev/tcp/$SINK_ADDR/8080; printf 'E01\n' >&3"
sleep 0.3
[ "$(sink_hits)" = 0 ] || esc_bypass "the sink recorded a connection under capwatch --profile readonly: $(cat "$SINK_LOG")"
expect_denied external_network "'$SINK_ADDR:8080'"
report_has 'denials("external_network")[0]["syscall"] == "connect"'
