#!/bin/sh
# E44: a pathname unix socket of an unsandboxed daemon outside the
# workspace (docker.sock, SSH_AUTH_SOCK, X11): process_control.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir "$T/run"
sink_start unix "$T/run/daemon.sock"
cmd="import socket; s=socket.socket(socket.AF_UNIX); s.connect('$T/run/daemon.sock'); s.sendall(b'GET /containers')"
bare "$PY" -c "$cmd"
sleep 0.2
sink_wait || esc_control_failed "bare connect did not reach the daemon: $(cat "$O/bare.out")"
sink_reset
for prof in readonly verify; do
	under $prof -- "$PY" -c "$cmd"
	sleep 0.3
	[ "$(sink_hits)" = 0 ] || esc_bypass "$prof: the daemon outside the workspace got a connection: $(cat "$SINK_LOG")"
	expect_denied process_control "'unix:$T/run/daemon.sock'"
done
