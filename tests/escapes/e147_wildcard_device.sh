#!/bin/sh
# E147: a server bound to the wildcard under verify, reached from another
# host. verify denies host_visible_binding and allows isolated_loopback;
# capwatch performs such a bind on the wildcard the server asked for, on
# a socket it first restricted to the loopback device (SO_BINDTODEVICE
# lo, issue 17 item 10). The other host is a second network namespace
# joined by a veth pair (esc_veth_peer): its connects, to the veth
# addresses (IPv4 and IPv6), are the hits. Bare, the same servers are
# reached from there (positive control). Under verify the server must
# still work for the tree: a dual-stack "::" server (IPV6_V6ONLY=0)
# accepts a client on 127.0.0.1 and one on ::1, and getsockname() says
# "::" (0.0.0.0 for the IPv4 one), as bare.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
ip -6 addr show dev lo | grep -q '::1' || skip "no IPv6 on lo"
cat >"$T/srv.py" <<'PYEOF'
import socket, sys, time
fam = sys.argv[1]
if fam == "v6":
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", 0))
else:
    s = socket.socket()
    s.bind(("0.0.0.0", 0))
s.listen(8)
print("NAME", s.getsockname()[0], flush=True)
print("PORT", s.getsockname()[1], flush=True)
s.settimeout(1)
end = time.time() + 30
while time.time() < end:
    try:
        c, peer = s.accept()
    except socket.timeout:
        continue
    data = c.recv(16)
    c.sendall(b"ok")
    c.close()
    if data == b"stop":
        break
    print("ACCEPT", peer[0], flush=True)
PYEOF
# conn ADDR PORT [WORD]: prints hit when the server answered.
cat >"$T/conn.py" <<'PYEOF'
import socket, sys
try:
    c = socket.create_connection((sys.argv[1], int(sys.argv[2])), 2)
    c.settimeout(2)
    c.sendall(sys.argv[3].encode() if len(sys.argv) > 3 else b"hi")
    print("hit" if c.recv(2) == b"ok" else "miss")
except OSError as e:
    print("miss", e)
PYEOF
# wait_port OUT PID: the port the server printed, "" when it ended first.
wait_port() {
	i=0
	while ! grep -q '^PORT [0-9]' "$1" 2>/dev/null && [ $i -lt 300 ] && kill -0 "$2" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	sed -n 's/^PORT \([0-9][0-9]*\)$/\1/p' "$1"
}
one() { "$PY" "$T/conn.py" "$@" | cut -d' ' -f1; }
stop() { "$PY" "$T/conn.py" "$1" "$2" stop >/dev/null; }
for fam in v6 v4; do
	if [ $fam = v6 ]; then want="::" lo=::1; else want=0.0.0.0 lo=127.0.0.1; fi
	# Bare: reached from the peer through the veth (both families for "::").
	"$PY" "$T/srv.py" $fam >"$O/bare.$fam.out" 2>&1 &
	p=$!; esc_bg_started $p
	port=$(wait_port "$O/bare.$fam.out" $p)
	[ -n "$port" ] || esc_control_failed "$fam: bare server printed no port: $(cat "$O/bare.$fam.out")"
	r4=$(peer "$PY" "$T/conn.py" "$VETH_ADDR" "$port" | cut -d' ' -f1)
	r6=hit
	[ $fam = v6 ] && r6=$(peer "$PY" "$T/conn.py" "$VETH_ADDR6" "$port" | cut -d' ' -f1)
	stop $lo "$port"; wait $p
	[ "$r4" = hit ] && [ "$r6" = hit ] || esc_control_failed "$fam: bare server not reached from the peer (v4 $r4, v6 $r6)"
	grep -qx "NAME $want" "$O/bare.$fam.out" || esc_control_failed "$fam: bare getsockname: $(cat "$O/bare.$fam.out")"
	esc_log "$fam bare: peer v4 $r4, v6 $r6"
	# Under verify.
	N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	timeout -k 5 60 "$CAPWATCH" --profile verify --report "$R" --trace "$TR" -- "$PY" "$T/srv.py" $fam >"$OUT" 2>&1 &
	p=$!; esc_bg_started $p
	port=$(wait_port "$OUT" $p)
	[ -n "$port" ] || fail "$fam: the server under verify printed no port: $(cat "$OUT")"
	r4=$(peer "$PY" "$T/conn.py" "$VETH_ADDR" "$port" | cut -d' ' -f1)
	r6=miss
	[ $fam = v6 ] && r6=$(peer "$PY" "$T/conn.py" "$VETH_ADDR6" "$port" | cut -d' ' -f1)
	l4=$(one 127.0.0.1 "$port")
	l6=hit
	[ $fam = v6 ] && l6=$(one ::1 "$port")
	stop $lo "$port"; wait $p
	esc_log "$fam under verify: peer v4 $r4, v6 $r6; local 127.0.0.1 $l4, ::1 $l6; $(grep NAME "$OUT")"
	[ "$r4" = miss ] && [ "$r6" = miss ] || esc_bypass "$fam: a wildcard server under --profile verify was reached from another namespace through the veth (v4 $r4, v6 $r6)"
	[ "$l4" = hit ] && [ "$l6" = hit ] || fail "$fam: the server under verify did not serve the tree's own clients (127.0.0.1 $l4, ::1 $l6): $(cat "$OUT")"
	grep -qx "NAME $want" "$OUT" || fail "$fam: getsockname under verify is not '$want': $(cat "$OUT")"
	[ "$(grep -c '^ACCEPT' "$OUT")" = "$( [ $fam = v6 ] && echo 2 || echo 1)" ] || fail "$fam: accepts under verify: $(cat "$OUT")"
	report_has "used('isolated_loopback') and not denials()"
done
