#!/bin/sh
# E39: inbound exposure: bind 0.0.0.0, and listen() without bind, which
# autobinds to 0.0.0.0:<ephemeral>. The test (outside capwatch) plays the
# remote client from another network namespace, through a veth pair
# (esc_veth_peer): its successful connect to the exposed port is the hit.
# (A client in this namespace reaches every local address through lo,
# which a server capwatch restricts to lo takes: that is not the network.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
cat >"$T/srv.py" <<'PYEOF'
import socket, sys
s = socket.socket()
if sys.argv[1] == "bind":
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 8084))
try:
    s.listen(1)
except OSError as e:
    print("listen failed", e, flush=True); sys.exit(3)
print("PORT", s.getsockname()[1], flush=True)
s.settimeout(30)
try:
    s.accept()
except OSError:
    pass
PYEOF
# client OUTFILE: wait for "PORT n" (or the attacker's exit), connect from
# outside the sandbox; prints "hit" when the connection is accepted.
# PID (a child of this shell, not reaped while client() runs in a command
# substitution) is running: neither gone nor a zombie.
running() { st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1); [ -n "$st" ] && [ "$st" != Z ]; }
# client OUT PID: also stops waiting when the listener ended without a
# port (a refused bind is a traceback).
client() {
	i=0
	while ! grep -q '^PORT [0-9][0-9]*$\|listen failed' "$1" 2>/dev/null && [ $i -lt 600 ] &&
		running "$2"; do sleep 0.1; i=$((i + 1)); done
	port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$1")
	# (the line may land just after the loop saw the listener's state)
	[ -n "$port" ] || { sleep 0.5; port=$(sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$1"); }
	[ -n "$port" ] || { echo "no port"; return 0; }
	peer "$PY" -c "import socket,sys; socket.create_connection(('$VETH_ADDR', $port), 2); print('hit')" 2>/dev/null || echo miss
	# A listener that was not reachable from outside (capwatch bound it on
	# loopback) would wait in accept() for its 30 s: let it go now.
	"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $port), 2)" >/dev/null 2>&1 || true
}
for mode in bind autobind; do
	"$PY" "$T/srv.py" "$mode" >"$O/bare.out" 2>&1 &
	p=$!; esc_bg_started $p
	res=$(client "$O/bare.out" $p); wait $p
	[ "$res" = hit ] || esc_control_failed "$mode: bare listener was not reachable ($res): $(cat "$O/bare.out")"
	N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	timeout -k 5 60 "$CAPWATCH" --profile readonly --report "$R" --trace "$TR" -- "$PY" "$T/srv.py" "$mode" >"$OUT" 2>&1 &
	p=$!; esc_bg_started $p
	res=$(client "$OUT" $p); wait $p
	[ "$res" = hit ] && esc_bypass "$mode: a listener inside capwatch --profile readonly accepted a connection from outside ($(cat "$OUT"))"
	expect_denied host_visible_binding
done
