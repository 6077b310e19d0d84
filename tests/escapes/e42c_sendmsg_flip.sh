#!/bin/sh
# E42 (race): sendmsg()'s msg_name pointer, and one sendmmsg() message's,
# flipped by a second thread between a loopback sockaddr (allowed by
# verify) and 203.0.113.7 (denied); and sendmsg() on a socket connected to
# loopback whose msg_name flips between NULL (no address to decide) and
# 203.0.113.7. capwatch decides and sends its own
# copy of every header, name and payload. UDP sink on 203.0.113.7 in a
# private netns. Pass = no datagram reaches the sink in $CW_RACE_SECONDS
# for either call.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e09e_net_flip
sink_start udp 8092
for call in sendmsg sendmmsg sendmsgnull; do
	sink_reset
	for try in 1 2 3 4 5; do
		bare "$ESC_BIN/e09e_net_flip" $call "$(race_sink_bare_secs)" "$SINK_ADDR" 8092
		sink_wait && break
	done
	[ "$(sink_hits)" -gt 0 ] || esc_control_failed "$call: bare flipper never reached the sink: $(race_line "$O/bare.out")"
	esc_log "$call bare: $(race_line "$O/bare.out"), sink lines $(sink_hits)"
	sink_reset
	under verify -- "$ESC_BIN/e09e_net_flip" $call "$RACE" "$SINK_ADDR" 8092
	sink_flush
	esc_log "$call under capwatch, ${RACE}s: $(race_line "$OUT"); sink lines $(sink_hits)"
	[ "$(sink_hits)" = 0 ] || esc_bypass "$call with a flipped msg_name reached $SINK_ADDR:8092 under --profile verify: $(race_line "$OUT"), sink recorded $(sink_hits)"
	race_need_ok
	[ $call = sendmsgnull ] || trace_has "any(e.get('verified') is True for e in ops(syscall='$call', decision='allow'))"
done
