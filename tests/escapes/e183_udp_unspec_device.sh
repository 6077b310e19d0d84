#!/bin/sh
# E183 (red team 20, F1): connect(AF_UNSPEC) takes a UDP socket off lo.
# Under verify a wildcard bind is performed on the loopback device
# (SO_BINDTODEVICE "lo", e147) and recorded as isolated_loopback. The
# disconnect, decided "builtin:unspec" (no capability), runs the kernel's
# __udp_disconnect, which clears the device binding (sk_bound_dev_if = 0):
# the socket was left on 0.0.0.0:PORT ([::]:PORT) on every interface and
# took a datagram from another host. Now capwatch performs the disconnect
# and puts the device back first thing after it, with a socket filter
# that drops what arrives on another device meanwhile. The other host is
# a second network namespace joined by a veth pair (esc_veth_peer); its
# datagrams to the veth addresses are the hits. Bare, they arrive
# (positive control). Under verify the socket must still work: the
# disconnect returns 0 and a datagram from the tree on loopback arrives.
# (a) IPv4 0.0.0.0; (b) IPv6 dual-stack "::" (v4 and v6 from the peer);
# (c) a socket with a socket filter of its own, which capwatch cannot
# guard: its disconnect is refused with EPERM and it stays on lo.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
ip -6 addr show dev lo | grep -q '::1' || skip "no IPv6 on lo"

cat >"$T/disc.py" <<'PY'
import ctypes, os, socket, sys, time
fam, port, sent = sys.argv[1], int(sys.argv[2]), sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
if fam == "6":
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port)); lo = "::1"
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port)); lo = "127.0.0.1"
if len(sys.argv) > 4:  # a socket filter of its own (accept all): cannot be guarded
    prog = ctypes.create_string_buffer(b"\x06\x00\x00\x00\xff\xff\xff\xff", 8)  # ret #-1
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fp = Fprog(1, ctypes.addressof(prog))
    r = libc.setsockopt(s.fileno(), socket.SOL_SOCKET, 26, ctypes.byref(fp), ctypes.sizeof(fp))
    print("own filter", r, flush=True)
unspec = ctypes.create_string_buffer(16)  # sa_family 0 (AF_UNSPEC)
r = libc.connect(s.fileno(), unspec, 16)
print("disconnect", r, ctypes.get_errno() if r < 0 else 0, flush=True)
dev = s.getsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, 16).rstrip(b"\0")
print("device", repr(dev), flush=True)
print("READY", flush=True)
for _ in range(200):  # the peer sends, then marks SENT (10 s at most)
    if os.path.exists(sent): break
    time.sleep(0.05)
c = socket.socket(socket.AF_INET6 if fam == "6" else socket.AF_INET, socket.SOCK_DGRAM)
c.sendto(b"LOCAL", (lo, port))
s.settimeout(1)
got = []
while True:  # the local one is last in the queue: everything before it is read
    d = s.recv(100)
    got.append(d)
    if d == b"LOCAL": break
s.setblocking(False)
try:
    while True: got.append(s.recv(100))
except BlockingIOError:
    pass
for d in got: print("RECEIVED", d, flush=True)
PY
# run bare|verify FAMILY PORT [own]: the hits are in the run's output.
run() {
	rm -f "$O/sent"
	if [ "$1" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	(	i=0
		while ! grep -q '^READY' "$_o" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		for k in 1 2 3; do peer "$CW_PY" "$ESC_SRC/peer_send.py" "$3" "$VETH_ADDR" "$VETH_ADDR6"; sleep 0.1; done
		: >"$O/sent" ) &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/disc.py" "$2" "$3" "$O/sent" ${4:-}
	else under verify -- "$PY" "$T/disc.py" "$2" "$3" "$O/sent" ${4:-}; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-PEER'" "$_o"
}
bad=
for fam in 4 6; do
	port=$((5550 + fam))
	run bare $fam $port || esc_control_failed "IPv$fam: bare, the disconnected socket got nothing from the peer: $(cat "$O/bare.out")"
	esc_log "IPv$fam bare: $(grep -c 'C2-FROM-PEER' "$O/bare.out") from the peer, $(grep device "$O/bare.out")"
	if run verify $fam $port; then
		bad="$bad; (IPv$fam) after connect(AF_UNSPEC) the socket ($(grep device "$OUT")) received $(grep -c 'C2-FROM-PEER' "$OUT") datagrams from the peer under verify"
	fi
	grep -q '^disconnect 0 0' "$OUT" || fail "(IPv$fam) the disconnect failed under verify: $(cat "$OUT")"
	grep -q "^device b'lo'" "$OUT" || bad="$bad; (IPv$fam) the socket is not on lo after the disconnect: $(grep device "$OUT")"
	grep -q "RECEIVED b'LOCAL'" "$OUT" || fail "(IPv$fam) the tree's own loopback datagram did not arrive under verify: $(cat "$OUT")"
	report_has "used('isolated_loopback') and not denials()"
	esc_log "IPv$fam under verify: $(grep device "$OUT"), $(grep -c RECEIVED "$OUT") received"
done
# (c) A socket with a filter of its own (accept all) cannot be guarded:
# its disconnect is refused (EPERM), and it stays on lo.
run bare 4 5557 own || esc_control_failed "own filter: bare, the disconnected socket got nothing from the peer: $(cat "$O/bare.out")"
if run verify 4 5557 own; then
	bad="$bad; (own filter) after connect(AF_UNSPEC) the socket ($(grep device "$OUT")) received datagrams from the peer under verify"
fi
grep -q '^own filter 0' "$OUT" || fail "(own filter) the command's filter was not attached: $(cat "$OUT")"
grep -q '^disconnect -1 1$' "$OUT" || bad="$bad; (own filter) the disconnect was not refused: $(grep disconnect "$OUT")"
grep -q "RECEIVED b'LOCAL'" "$OUT" || fail "(own filter) the tree's own loopback datagram did not arrive under verify: $(cat "$OUT")"
esc_log "own filter under verify: $(grep disconnect "$OUT"), $(grep device "$OUT")"
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
