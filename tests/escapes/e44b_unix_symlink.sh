#!/bin/sh
# E44 (aliased): the same daemon socket reached through a symlink inside
# the workspace. connect() follows symlinks; a decision on the string
# sees a workspace socket (isolated_loopback, allowed by verify).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir "$T/run"
sink_start unix "$T/run/daemon.sock"
ln -s "$T/run/daemon.sock" "$W/app.sock"
cmd="import socket; s=socket.socket(socket.AF_UNIX); s.connect('$W/app.sock'); s.sendall(b'GET /containers')"
bare "$PY" -c "$cmd"
sleep 0.2
sink_wait || esc_control_failed "bare connect through the symlink did not reach the daemon: $(cat "$O/bare.out")"
sink_reset
under verify -- "$PY" -c "$cmd"
sleep 0.3
[ "$(sink_hits)" = 0 ] || esc_bypass "connect('$W/app.sock') -> symlink -> $T/run/daemon.sock reached the daemon under --profile verify (decided as $(sed -n 's/.*"capability":"\([a-z_]*\)","secret.*"scope":"\(unix:[^"]*\)".*/\1 \2/p' "$TR" | head -1))"
expect_denied process_control "'unix:$T/run/daemon.sock'"
