#!/bin/sh
# E46: abstract unix sockets (X11, D-Bus, containerd-shim) need no file.
# The listener lives in this test's private network namespace (abstract
# names are per netns), under a random name.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
name="cwtest-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
sink_start abstract "$name"
cmd="import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0$name'); s.sendall(b'hello')"
bare "$PY" -c "$cmd"
sink_wait || esc_control_failed "bare connect did not reach @$name: $(cat "$O/bare.out")"
sink_reset
for prof in readonly verify; do
	under $prof -- "$PY" -c "$cmd"
	sink_flush
	[ "$(sink_hits)" = 0 ] || esc_bypass "$prof: @$name got a connection: $(cat "$SINK_LOG")"
	expect_denied process_control "R('unix:@.*')"
done
