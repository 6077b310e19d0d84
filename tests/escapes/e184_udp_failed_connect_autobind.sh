#!/bin/sh
# E184 (red team 20, F2): a UDP connect() the kernel refuses still
# autobinds the socket to the wildcard (inet_dgram_connect ->
# inet_autobind, before the protocol's connect fails). The address is
# loopback (isolated_loopback, allowed by verify), capwatch performs the
# connect, and the socket was left on 0.0.0.0:PORT ([::]:PORT), open to
# every interface: (A) an AF_INET socket given [::1]:9 (EAFNOSUPPORT),
# (B) an IPV6_V6ONLY socket given [::ffff:127.0.0.1]:9 (ENETUNREACH).
# Now a never-bound datagram socket is bound by capwatch to the loopback
# address of the destination's kind before it connects it to a loopback
# destination (as before a loopback send, e126). The other host is a
# second network namespace joined by a veth pair (esc_veth_peer): its
# datagrams to the port, on the veth addresses, are the hits; bare they
# arrive (positive control). Under verify the connect fails with the
# kernel's errno as bare, and (C) a connect that works still does: the
# socket is on 127.0.0.1, as bare, and its datagram arrives.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
ip -6 addr show dev lo | grep -q '::1' || skip "no IPv6 on lo"

cat >"$T/fail.py" <<'PY'
import ctypes, os, socket, struct, sys, time
case, sent = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
def sin6(addr, port):  # a raw sockaddr_in6: Python would not pass one to an AF_INET socket
    return struct.pack("!HHI16sI", 0, port, 0, socket.inet_pton(socket.AF_INET6, addr), 0)
if case == "A":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a = bytearray(sin6("::1", 9)); a[0:2] = struct.pack("=H", socket.AF_INET6)
elif case == "B":
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    a = bytearray(sin6("::ffff:127.0.0.1", 9)); a[0:2] = struct.pack("=H", socket.AF_INET6)
else:
    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    r.bind(("127.0.0.1", 0))
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    a = bytearray(struct.pack("=H", socket.AF_INET) + struct.pack("!H", r.getsockname()[1]) +
                  socket.inet_aton("127.0.0.1") + bytes(8))
buf = ctypes.create_string_buffer(bytes(a), len(a))
rc = libc.connect(s.fileno(), buf, len(a))
print("connect", rc, ctypes.get_errno() if rc < 0 else 0, flush=True)
name = s.getsockname()
print("bound", name[0], flush=True)
print("PORT", name[1], flush=True)
if case == "C":
    s.send(b"LOCAL")
    r.settimeout(2)
    print("RECEIVED", r.recv(100), flush=True)
    sys.exit(0)
for _ in range(200):  # the peer sends, then marks SENT (10 s at most)
    if os.path.exists(sent): break
    time.sleep(0.05)
s.setblocking(False)
try:
    while True: print("RECEIVED", s.recv(100), flush=True)
except BlockingIOError:
    print("queue empty", flush=True)
PY
# run bare|verify CASE: the hits are in the run's output. The peer's
# datagrams come from another namespace over the veth: each is queued
# before the next is sent, and the tree looks at its queue after SENT.
run() {
	rm -f "$O/sent"
	if [ "$1" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	(	i=0
		while ! grep -q '^PORT' "$_o" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		p=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$_o")
		if [ -n "$p" ] && [ "$p" != 0 ]; then
			for k in 1 2 3; do peer "$CW_PY" "$ESC_SRC/peer_send.py" "$p" "$VETH_ADDR" "$VETH_ADDR6"; sleep 0.1; done
		fi
		: >"$O/sent" ) &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then ESC_TIMEOUT=30 bare "$PY" "$T/fail.py" "$2" "$O/sent"
	else under verify -- "$PY" "$T/fail.py" "$2" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	[ "$1" = bare ] && cp "$O/bare.out" "$O/bare.$2.out"
	grep -q "RECEIVED b'C2-FROM-PEER'" "$_o"
}
bad=
for c in A B; do
	run bare $c || esc_control_failed "($c) bare, the socket got nothing from the peer: $(cat "$O/bare.$c.out")"
	want=$(grep '^connect' "$O/bare.$c.out")
	esc_log "($c) bare: $want, $(grep bound "$O/bare.$c.out"), $(grep -c C2-FROM-PEER "$O/bare.$c.out") from the peer"
	if run verify $c; then
		bad="$bad; ($c) after a refused loopback connect the socket is on $(grep bound "$OUT") and received $(grep -c C2-FROM-PEER "$OUT") datagrams from the peer under verify"
	fi
	grep -qx "$want" "$OUT" || fail "($c) under verify the connect did not fail as bare ($want): $(cat "$OUT")"
	esc_log "($c) under verify: $(grep '^connect' "$OUT"), $(grep bound "$OUT"), $(grep -c C2-FROM-PEER "$OUT") from the peer"
done
# (C) a loopback connect that works: bound to 127.0.0.1 as bare, and used.
bare "$PY" "$T/fail.py" C "$O/sent"
grep -q "^bound 127.0.0.1" "$O/bare.out" && grep -q "RECEIVED b'LOCAL'" "$O/bare.out" ||
	esc_control_failed "(C) bare connected send: $(cat "$O/bare.out")"
under verify -- "$PY" "$T/fail.py" C "$O/sent"
grep -q '^connect 0 0' "$OUT" && grep -q "^bound 127.0.0.1" "$OUT" && grep -q "RECEIVED b'LOCAL'" "$OUT" ||
	fail "(C) a loopback connect and send did not work under verify as bare: $(cat "$OUT")"
report_has "used('isolated_loopback') and not denials()"
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
