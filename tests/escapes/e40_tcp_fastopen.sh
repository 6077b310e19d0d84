#!/bin/sh
# E40: TCP Fast Open: sendto(MSG_FASTOPEN) on an unconnected stream socket
# connects without any connect() call.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sysctl -qw net.ipv4.tcp_fastopen=3 2>/dev/null || :
sink_start tcp 8082
cmd="import socket; s=socket.socket(); s.sendto(b'tfo', socket.MSG_FASTOPEN, ('$SINK_ADDR', 8082)); s.recv(1)"
bare "$PY" -c "$cmd"
sleep 0.2
sink_wait || esc_control_failed "bare MSG_FASTOPEN sendto did not reach the sink: $(cat "$O/bare.out")"
sink_reset
under readonly -- "$PY" -c "$cmd"
sleep 0.3
[ "$(sink_hits)" = 0 ] || esc_bypass "MSG_FASTOPEN connection reached the sink under capwatch: $(cat "$SINK_LOG")"
expect_denied external_network "'$SINK_ADDR:8082'"
