#!/bin/sh
# E43: address aliasing: the IPv4-mapped IPv6 form of an external address
# on a dual-stack socket must count as that IPv4 address (external), not
# as something "local". Profile verify: loopback allowed, external not.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sink_start tcp 8083
for a in "::ffff:$SINK_ADDR" "::ffff:cb00:7107"; do
	cmd="import socket; s=socket.socket(socket.AF_INET6); s.connect(('$a', 8083)); s.sendall(b'alias')"
	sink_reset
	bare "$PY" -c "$cmd"
	sink_wait || esc_control_failed "bare connect to [$a] did not reach the sink: $(cat "$O/bare.out")"
	sink_reset
	under verify -- "$PY" -c "$cmd"
	sink_flush
	[ "$(sink_hits)" = 0 ] || esc_bypass "connect to [$a]:8083 reached the sink under capwatch --profile verify"
	report_has 'denied_run()' \
		'denials("external_network") and not used("isolated_loopback", R(".*8083"))'
done
