#!/bin/sh
# E41: UDP sendto() without connect(): the destination is in the sendto
# arguments (an address pointer), decided per datagram.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sink_start udp 53
cmd="import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'q', ('$SINK_ADDR', 53))"
bare "$PY" -c "$cmd"
sink_wait || esc_control_failed "bare sendto did not reach the UDP sink: $(cat "$O/bare.out")"
sink_reset
under readonly -- "$PY" -c "$cmd"
sink_flush
[ "$(sink_hits)" = 0 ] || esc_bypass "UDP datagram reached the sink under capwatch: $(cat "$SINK_LOG")"
expect_denied external_network "'$SINK_ADDR:53'"
report_has 'denials("external_network")[0]["syscall"] == "sendto"'
