#!/bin/sh
# E45: delegated spawn through a session service (systemd --user, tmux,
# screen, at: a daemon outside capwatch that runs what it is sent). The
# stand-in is a unix-socket service in the test's temp dir that runs each
# received line with /bin/sh; its effect is a marker file it creates.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir -p "$T/run/tmux-0"
sink_start unix "$T/run/tmux-0/default" exec
cmd="import socket; s=socket.socket(socket.AF_UNIX); s.connect('$T/run/tmux-0/default'); s.sendall(b'touch $T/spawned\n')"
bare "$PY" -c "$cmd"
sleep 0.5
[ -e "$T/spawned" ] || esc_control_failed "the bare request did not make the service spawn: $(cat "$O/bare.out")"
rm -f "$T/spawned"
sink_reset
under verify -- "$PY" -c "$cmd"
sleep 0.5
[ -e "$T/spawned" ] && esc_bypass "the service outside capwatch ran a command for the sandbox"
[ "$(sink_hits)" = 0 ] || esc_bypass "the service got a connection: $(cat "$SINK_LOG")"
expect_denied process_control "'unix:$T/run/tmux-0/default'"
