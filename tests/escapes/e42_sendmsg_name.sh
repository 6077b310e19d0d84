#!/bin/sh
# E42: sendmsg() with msg_name: the destination is two pointers deep
# (msghdr -> msg_name).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sink_start udp 5353
cmd="import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendmsg([b'm'], [], 0, ('$SINK_ADDR', 5353))"
bare "$PY" -c "$cmd"
sink_wait || esc_control_failed "bare sendmsg did not reach the UDP sink: $(cat "$O/bare.out")"
sink_reset
under readonly -- "$PY" -c "$cmd"
sink_flush
[ "$(sink_hits)" = 0 ] || esc_bypass "sendmsg datagram reached the sink under capwatch: $(cat "$SINK_LOG")"
expect_denied external_network "'$SINK_ADDR:5353'"
report_has 'denials("external_network")[0]["syscall"] == "sendmsg"'
