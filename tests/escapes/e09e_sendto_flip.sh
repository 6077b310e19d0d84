#!/bin/sh
# E09 (sendto): the sendto() sockaddr is rewritten by a second thread
# between 127.0.0.1:PORT (loopback, allowed by verify) and 203.0.113.7
# (external: ask, denied without a terminal). capwatch sends the datagram
# itself from its copy of the address. UDP sink on 203.0.113.7 in a private
# netns. Pass = no datagram reaches the sink in $CW_RACE_SECONDS.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e09e_net_flip
sink_start udp 8091
# The bare race needs both threads running at once: up to three tries
# (of 0.5 s: race_sink_bare_secs).
for try in 1 2 3; do
	bare "$ESC_BIN/e09e_net_flip" sendto "$(race_sink_bare_secs)" "$SINK_ADDR" 8091
	sink_wait && break
done
[ "$(sink_hits)" -gt 0 ] || esc_control_failed "bare flipper never reached the sink: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out"), sink lines $(sink_hits)"
sink_reset
under verify -- "$ESC_BIN/e09e_net_flip" sendto "$RACE" "$SINK_ADDR" 8091
sink_flush
esc_log "under capwatch, ${RACE}s: $(race_line "$OUT"); sink lines $(sink_hits)"
[ "$(sink_hits)" = 0 ] || esc_bypass "sendto() with a flipped sockaddr reached $SINK_ADDR:8091 under --profile verify: $(race_line "$OUT"), sink recorded $(sink_hits)"
race_need_ok
trace_has "any(e.get('verified') is True for e in ops(syscall='sendto', decision='allow'))"
