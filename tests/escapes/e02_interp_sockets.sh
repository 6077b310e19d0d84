#!/bin/sh
# E02: interpreter sockets (python, perl; gawk /inet when installed).
# Interpreters are not special: the decision is at connect().
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sink_start tcp 8081
n=0
run_one() { # LABEL CMD...
	label=$1; shift
	sink_reset
	bare "$@"
	sink_wait || esc_control_failed "$label: bare run did not reach the sink: $(cat "$O/bare.out")"
	sink_reset
	under readonly -- "$@"
	sink_flush
	[ "$(sink_hits)" = 0 ] || esc_bypass "$label: the sink recorded a connection under capwatch: $(cat "$SINK_LOG")"
	expect_denied external_network "'$SINK_ADDR:8081'"
	n=$((n + 1))
}
run_one python "$PY" -c "import socket; socket.create_connection(('$SINK_ADDR', 8081)).sendall(b'py')"
if command -v perl >/dev/null; then
	run_one perl perl -MIO::Socket::INET -e "IO::Socket::INET->new('$SINK_ADDR:8081') or exit 1"
fi
if command -v gawk >/dev/null; then
	run_one gawk gawk "BEGIN{s=\"/inet/tcp/0/$SINK_ADDR/8081\"; print \"x\" |& s; close(s)}"
fi
[ $n -ge 1 ] || fail "no interpreter ran"
