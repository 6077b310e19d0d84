#!/bin/sh
# E186 (red team 20, F3): a send with no address (write(), send(),
# sendmsg without msg_name) on a never-bound, unconnected UDP socket makes
# the kernel autobind it to 0.0.0.0:PORT (inet_send_prepare ->
# inet_autobind) before it fails EDESTADDRREQ: from then on the socket
# receives from every interface, a port open to the network that no
# decided bind opened (host_visible_binding, denied by verify). write()
# is not notified at all, so seccomp never sees the call; capwatch's own
# sends (e126, e184) bind to loopback only when they are given an address.
# The other host is a second network namespace joined by a veth pair
# (esc_veth_peer); its datagrams to the port, on the veth addresses, are
# the hits. Bare, they arrive (positive control); under verify they must
# not. (a) write() on AF_INET; (b) write() on a dual-stack AF_INET6
# socket.
#
# The kernel back end's ingress guard (a cgroup BPF program, SECURITY.md
# "The ingress guard") drops them; the report counts them
# (stats.ingress.dropped). Its own positive controls, under a profile
# that allows the network: (c) the peer's replies to an allowed addressed
# sendto from a never-bound socket (autobound to the wildcard, as in (a))
# arrive; (d) the peer's datagrams to an allowed wildcard bind arrive.
# E186_BACKEND (default kernel) is the back end; the portable back end
# has no such layer: e186p runs this test under it, KNOWN OPEN
# (KNOWN-OPEN.md).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
ip -6 addr show dev lo | grep -q '::1' || skip "no IPv6 on lo"
BK=${E186_BACKEND:-kernel}
if [ "$BK" = kernel ]; then
	[ "${CW_BACKEND:-kernel}" = kernel ] || skip "the portable back end's case is e186p (known open)"
	"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
		skip "no kernel back end here: $(cat "$O/probe.out")"
	guard=$("$CW_PY" -c 'import json, sys
e = json.load(open(sys.argv[1]))["outcome"]["enforcement"]
print("on" if any("bpf-ingress" in l for l in e["layers"]) else "degraded: " + e["downgradeReason"] if e["degraded"] else "off")' "$O/probe.json")
	case $guard in
	on) ;;
	off) skip "capwatch was built without BPF (libbpf-dev, clang, bpftool): no ingress guard" ;;
	*) fail "the kernel back end runs without its ingress guard: $guard" ;;
	esac
fi

cat >"$T/unaddr.py" <<'PY'
import ctypes, os, socket, struct, sys, time
fam, sent = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_INET if fam == "4" else socket.AF_INET6, socket.SOCK_DGRAM)
if fam != "4":
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
if fam == "short6":
    # sendto [::1]:9 with a 24-byte sockaddr_in6 (no sin6_scope_id, which
    # the kernel takes): loopback, so capwatch binds the socket to [::1]
    # first; taken for external, it was left to autobind [::] and marked
    # for the network (red team 27, F1)
    sa = struct.pack("=HHI16s", socket.AF_INET6, socket.htons(9), 0, socket.inet_pton(socket.AF_INET6, "::1"))
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.sendto(s.fileno(), b"x", 1, 0, ctypes.create_string_buffer(sa, 24), 24)
    print("write", "ok" if r == 1 else "errno %d" % ctypes.get_errno(), flush=True)
else:
    try:
        os.write(s.fileno(), b"x")
        print("write ok", flush=True)
    except OSError as e:
        print("write errno", e.errno, flush=True)
name = s.getsockname()
print("bound", name[0], flush=True)
print("PORT", name[1], flush=True)
for _ in range(200):  # the peer sends, then marks SENT (10 s at most)
    if os.path.exists(sent): break
    time.sleep(0.05)
s.setblocking(False)
try:
    while True: print("RECEIVED", s.recv(100), flush=True)
except (BlockingIOError, ConnectionRefusedError):
    print("queue empty", flush=True)
PY
# run bare|verify FAMILY: the hits are in the run's output.
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
	if [ "$1" = bare ]; then bare "$PY" "$T/unaddr.py" "$2" "$O/sent"
	else under "$1" --backend "$BK" -- "$PY" "$T/unaddr.py" "$2" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-PEER'" "$_o"
}
bad=
for fam in 4 6 short6; do
	run bare $fam || esc_control_failed "IPv$fam: bare, the socket got nothing from the peer: $(cat "$O/bare.out")"
	esc_log "IPv$fam bare: $(grep write "$O/bare.out"), $(grep bound "$O/bare.out"), $(grep -c C2-FROM-PEER "$O/bare.out") from the peer"
	if run verify $fam; then
		bad="$bad; (IPv$fam) after a $(grep write "$OUT") the socket is on $(grep bound "$OUT") and received $(grep -c C2-FROM-PEER "$OUT") datagrams from the peer under verify"
	fi
	esc_log "IPv$fam under verify: $(grep write "$OUT"), $(grep bound "$OUT"), $(grep -c C2-FROM-PEER "$OUT") from the peer"
	[ "$BK" = kernel ] && [ "$fam" != short6 ] && [ -z "$bad" ] && report_has 'd["stats"]["ingress"]["dropped"] >= 1'
	[ "$BK" = kernel ] && [ -z "$bad" ] && report_has 'd["stats"]["ingress"]["marked"] == 0'
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
[ "$BK" = kernel ] || exit 0

# (c) and (d): what the profile allows still gets through the guard.
# host_visible_binding: every scope allowed, but not by default, so the
# guard is on (a default of allow takes it off: (e)).
prof=$(esc_profile netok '{"external_network": "allow", "host_visible_binding": {"default": "deny", "allow": ["*"]}}' verify)
cat >"$T/allowed.py" <<'PY'
import socket, sys, time
mode, fam = sys.argv[1], sys.argv[2]
peer = sys.argv[3] if fam == "4" else sys.argv[4]
s = socket.socket(socket.AF_INET6 if fam == "6" else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
if mode == "bind":
    s.bind(("::" if fam == "6" else "0.0.0.0", 0))
    print("PORT", s.getsockname()[1], flush=True)
if mode == "unspec":  # AF_UNSPEC is 0.0.0.0 to an AF_INET socket (red team 27, F3)
    import ctypes
    sa = ctypes.create_string_buffer(16)  # family 0, port 0, address 0
    r = ctypes.CDLL(None, use_errno=True).bind(s.fileno(), sa, 16)
    print("PORT", s.getsockname()[1] if r == 0 else 0, flush=True)
end = time.time() + 8
while time.time() < end:
    if mode == "reply":  # the echo server may not be up yet: send again
        s.sendto(b"HELLO", (peer, 9999))
    try:
        data = s.recv(100)
        print("RECEIVED", data, flush=True)
        break
    except socket.timeout:
        pass
PY
cat >"$T/echo.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("::" if sys.argv[1] == "6" else "0.0.0.0", 9999))
s.settimeout(10)
try:
    data, src = s.recvfrom(100)
    for _ in range(3):
        s.sendto(b"PEER-REPLY", src)
except socket.timeout:
    pass
PY
for fam in 4 6; do
	# (c) an allowed exchange: the reply comes back to the autobound port
	peer timeout 12 "$CW_PY" "$T/echo.py" $fam &
	_e=$!; esc_bg_started $_e
	under "$prof" --backend kernel -- "$PY" "$T/allowed.py" reply $fam "$PEER_ADDR" "$PEER_ADDR6"
	wait $_e 2>/dev/null; esc_kill $_e
	grep -q "RECEIVED b'PEER-REPLY'" "$OUT" ||
		fail "IPv$fam: the peer's reply to an allowed sendto was not received under the kernel back end: $(cat "$OUT")"
	report_has 'd["stats"]["ingress"]["marked"] >= 1'
	esc_log "IPv$fam: an allowed exchange's reply arrived through the guard"
	# (d) an allowed wildcard bind receives from the peer (IPv4: also
	# one given as AF_UNSPEC)
	for how in bind $([ $fam = 4 ] && echo unspec); do
	_o=$O/cw$((N + 1)).out
	rm -f "$_o"
	(	i=0
		while ! grep -q '^PORT' "$_o" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		p=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$_o")
		[ -n "$p" ] && for k in 1 2 3; do peer "$CW_PY" "$ESC_SRC/peer_send.py" "$p" "$VETH_ADDR" "$VETH_ADDR6"; sleep 0.2; done ) &
	_c=$!; esc_bg_started $_c
	under "$prof" --backend kernel -- "$PY" "$T/allowed.py" $how $fam "$PEER_ADDR" "$PEER_ADDR6"
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-PEER'" "$OUT" ||
		fail "IPv$fam: an allowed wildcard bind ($how) received nothing from the peer under the kernel back end: $(cat "$OUT")"
	esc_log "IPv$fam: an allowed wildcard bind ($how) received from the peer through the guard"
	done
done

# (e) a profile whose host_visible_binding default is allow (observe) has
# no guard: e186's socket receives, as bare (red team 27).
if run observe 4; then
	report_has '"ingress" not in d["stats"]'
	esc_log "IPv4 under the observe profile: no guard, $(grep -c C2-FROM-PEER "$OUT") from the peer"
else
	fail "under the observe profile the autobound socket received nothing: $(cat "$OUT")"
fi

# (f) packets from another host addressed to 127.0.0.1, which the kernel
# takes where route_localnet is on, never reach a socket bound to
# loopback (isolated_loopback) (red team 27, C1). Both namespaces are
# this test's own.
sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.veth0.route_localnet=1 ||
	fail "route_localnet in the test's namespace"
peer sh -c 'sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.veth1.route_localnet=1 &&
	ip rule add pref 100 lookup local && ip rule del pref 0 && ip rule add to 127.0.0.1 lookup 100 pref 10 &&
	ip route add 127.0.0.1/32 via '"$VETH_ADDR"' dev veth1 src '"$PEER_ADDR"' table 100' ||
	fail "the peer's route to 127.0.0.1 over the veth"
cat >"$T/lobind.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print("PORT", s.getsockname()[1], flush=True)
for _ in range(200):
    if os.path.exists(sys.argv[1]): break
    time.sleep(0.05)
s.setblocking(False)
try:
    while True: print("RECEIVED", s.recv(100), flush=True)
except OSError:
    print("queue empty", flush=True)
PY
cat >"$T/peer_lo.py" <<'PY'
import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"C2-FROM-PEER", ("127.0.0.1", int(sys.argv[1])))
PY
lorun() {
	rm -f "$O/sent"
	if [ "$1" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	(	i=0
		while ! grep -q '^PORT' "$_o" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		p=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$_o")
		[ -n "$p" ] && for k in 1 2 3; do peer "$CW_PY" "$T/peer_lo.py" "$p"; sleep 0.1; done
		: >"$O/sent" ) &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/lobind.py" "$O/sent"
	else under verify --backend kernel -- "$PY" "$T/lobind.py" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-PEER'" "$_o"
}
lorun bare || esc_control_failed "route_localnet: bare, the loopback socket got nothing from the peer: $(cat "$O/bare.out")"
lorun verify && esc_bypass "route_localnet: a socket bound to 127.0.0.1 received $(grep -c C2-FROM-PEER "$OUT") datagrams from the peer under verify"
report_has 'd["stats"]["ingress"]["dropped"] >= 1'
esc_log "route_localnet: the peer's datagrams to 127.0.0.1 arrive bare and are dropped under verify"
exit 0
