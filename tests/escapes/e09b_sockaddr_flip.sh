#!/bin/sh
# E09 (sockaddr): the connect() address is rewritten by a second thread
# between a loopback address (allowed by verify) and 203.0.113.7 (external,
# denied). Sink on 203.0.113.7 and a loopback listener, in a private netns.
# Pass = no connection reaches the sink in $CW_RACE_SECONDS.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e09b_sockaddr_flip
sink_start tcp 8087
lo_log=$SINK_LOG
"$PY" "$ESC_SRC/sink.py" tcp 8087 "$O/lo.log" "$O/lo.ready" 127.0.0.1 &
esc_bg_started $!
i=0; while [ ! -e "$O/lo.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
canary_make "$O/unused"
# The bare race needs both threads running at once; on a loaded 2-CPU
# machine one short run can miss, so the control gets up to three tries.
for try in 1 2 3; do
	bare "$ESC_BIN/e09b_sockaddr_flip" "$(race_bare_secs)" "$SINK_ADDR" 8087
	sink_flush
	[ "$(race_hits "$O/bare.out")" -gt 0 ] && [ "$(sink_hits)" -gt 0 ] && break
done
[ "$(race_hits "$O/bare.out")" -gt 0 ] && [ "$(sink_hits)" -gt 0 ] || esc_control_failed "bare flipper never reached the sink: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
sink_reset
under verify -- "$ESC_BIN/e09b_sockaddr_flip" "$RACE" "$SINK_ADDR" 8087
sink_flush
h=$(race_hits "$OUT")
esc_log "under capwatch, ${RACE}s: $(race_line "$OUT"); sink lines $(sink_hits)"
[ "${h:-0}" = 0 ] && [ "$(sink_hits)" = 0 ] || esc_bypass "connect() with a flipped sockaddr reached $SINK_ADDR:8087 under --profile verify: $(race_line "$OUT"), sink recorded $(sink_hits)"
race_need_ok
