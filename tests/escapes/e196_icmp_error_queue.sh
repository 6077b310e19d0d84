#!/bin/sh
# E196 (red team 27, F2): another host's bytes through the error queue.
# A UDP socket with IP_RECVERR (IPV6_RECVERR) queues every ICMP error that
# quotes its port, with the sender's address and the quoted datagram's
# payload, and recvmsg(MSG_ERRQUEUE) reads it: an inbound channel from
# the network to a socket no decided bind opened to it, here one bound to
# 127.0.0.1 (isolated_loopback, allowed by verify). The kernel's ICMP path
# (icmp_rcv -> udp_err -> ip_icmp_error) runs no cgroup ingress program,
# so the kernel back end's ingress guard does not see it. glibc's
# resolver sets IP_RECVERR on every lookup's socket, so capwatch lets the
# option through and decides reading the queue (recvfrom, recvmsg,
# recvmmsg with MSG_ERRQUEUE: unrestricted, "recvmsg:MSG_ERRQUEUE"),
# which verify denies. The other host is the veth peer (esc_veth_peer); it
# sends ICMP port-unreachable errors quoting a datagram from
# 127.0.0.1:PORT, payload C2-FROM-PEER. Bare, the payload is read from
# the error queue (positive control); under verify it must not be, under
# both back ends.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_veth_peer
ip -6 addr show dev lo | grep -q '::1' || skip "no IPv6 on lo"

cat >"$T/errq.py" <<'PY'
import os, socket, sys, time
fam, sent = sys.argv[1], sys.argv[2]
v6 = fam == "6"
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
try:
    if v6:
        s.setsockopt(socket.IPPROTO_IPV6, 25, 1)  # IPV6_RECVERR
    else:
        s.setsockopt(socket.IPPROTO_IP, 11, 1)  # IP_RECVERR
    print("recverr on", flush=True)
except OSError as e:
    print("recverr errno", e.errno, flush=True)
s.bind(("::1" if v6 else "127.0.0.1", 0))
print("PORT", s.getsockname()[1], flush=True)
for _ in range(200):  # the peer sends, then marks SENT (10 s at most)
    if os.path.exists(sent): break
    time.sleep(0.05)
s.setblocking(False)
for i in range(10):  # recvfrom, then recvmsg, in turn
    try:
        if i % 2 == 0:
            data = s.recvfrom(200, socket.MSG_ERRQUEUE)[0]
        else:
            data = s.recvmsg(200, 512, socket.MSG_ERRQUEUE)[0]
        print("ERRQUEUE", data, flush=True)
    except BlockingIOError:
        break
    except OSError as e:
        print("errqueue %s errno %d" % ("recvfrom" if i % 2 == 0 else "recvmsg", e.errno), flush=True)
PY
# The ICMP error: port unreachable, quoting a datagram from the loopback
# address and PORT to the peer.
cat >"$T/icmp.py" <<'PY'
import socket, struct, sys
fam, port = sys.argv[1], int(sys.argv[2])
pay = b"C2-FROM-PEER"
udp = struct.pack("!HHHH", port, 9999, 8 + len(pay), 0) + pay
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b)); s = (s >> 16) + (s & 0xffff); s += s >> 16
    return ~s & 0xffff
if fam == "4":
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     socket.inet_aton("127.0.0.1"), socket.inet_aton(sys.argv[4]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    body = struct.pack("!BBHI", 3, 3, 0, 0) + ip + udp
    body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
    r = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    for _ in range(3): r.sendto(body, (sys.argv[3], 0))
else:
    # ICMPv6 destination unreachable, port unreachable (1, 4); the kernel
    # fills in the checksum of an IPPROTO_ICMPV6 raw socket
    ip6 = struct.pack("!IHBB16s16s", 6 << 28, len(udp), 17, 64,
                      socket.inet_pton(socket.AF_INET6, "::1"), socket.inet_pton(socket.AF_INET6, sys.argv[4]))
    body = struct.pack("!BBHI", 1, 4, 0, 0) + ip6 + udp
    r = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    for _ in range(3): r.sendto(body, (sys.argv[3], 0))
PY
# run bare|verify FAMILY [OPTS]: the hits are in the run's output.
run() {
	_m=$1 _f=$2
	shift 2
	rm -f "$O/sent"
	if [ "$_m" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	(	i=0
		while ! grep -q '^PORT' "$_o" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		p=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$_o")
		if [ -n "$p" ]; then
			if [ "$_f" = 4 ]; then peer "$CW_PY" "$T/icmp.py" 4 "$p" "$VETH_ADDR" "$PEER_ADDR"
			else peer "$CW_PY" "$T/icmp.py" 6 "$p" "$VETH_ADDR6" "$PEER_ADDR6"; fi
			sleep 0.2
		fi
		: >"$O/sent" ) &
	_c=$!; esc_bg_started $_c
	if [ "$_m" = bare ]; then bare "$PY" "$T/errq.py" "$_f" "$O/sent"
	else under verify "$@" -- "$PY" "$T/errq.py" "$_f" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "ERRQUEUE b'C2-FROM-PEER'" "$_o"
}
for fam in 4 6; do
	run bare $fam || esc_control_failed "IPv$fam: bare, nothing of the peer's in the error queue: $(cat "$O/bare.out")"
	esc_log "IPv$fam bare: $(grep -c "ERRQUEUE b'C2-FROM-PEER'" "$O/bare.out") of the peer's ICMP errors read"
	check() {
		if run verify $fam "$@"; then
			esc_bypass "IPv$fam ($label): the peer's bytes were read from the error queue under verify: $(grep ERRQUEUE "$OUT" | head -1)"
		fi
		grep -q '^recverr on$' "$OUT" || fail "IPv$fam ($label): the option itself was refused (glibc's resolver sets it): $(cat "$OUT")"
		grep -q '^errqueue recvfrom errno 1$' "$OUT" && grep -q '^errqueue recvmsg errno 1$' "$OUT" ||
			fail "IPv$fam ($label): reading the error queue was not refused with EPERM: $(cat "$OUT")"
		expect_denied unrestricted "'recvfrom:MSG_ERRQUEUE'"
		expect_denied unrestricted "'recvmsg:MSG_ERRQUEUE'"
		esc_log "IPv$fam ($label): the error queue's reads refused, nothing read"
	}
	label="default back end"; check
	label="portable back end"; check --backend portable
done
exit 0
