#!/bin/sh
# IPv4 source routing: setsockopt(IP_OPTIONS) is passed in the kernel (an
# ALLOW row of table.c) and needs no privilege for a loose source route
# (LSRR). With a route [203.0.113.7] on a socket whose destination is
# 127.0.0.1 (isolated_loopback, allowed by verify), the kernel routes every
# datagram to the first hop: it leaves for 203.0.113.7 with the payload,
# the decided address only in the option. Three forms: (a) IP_OPTIONS, then
# connect(127.0.0.1) and send() without an address; (b) IP_OPTIONS, then
# sendto(127.0.0.1) (notified: capwatch performs it on a duplicate of the
# socket, which carries the option); (c) connect(127.0.0.1), then sendmsg
# with an IP_RETOPTS control message holding the route; (d) IPv6: a
# segment routing header (IPV6_RTHDR, type 4, one segment 2001:db8::7,
# also unprivileged) on a UDP socket connected to ::1. Private netns,
# 203.0.113.7 and 2001:db8::7 on lo; an AF_PACKET capture on lo (started
# by the test, outside capwatch) records every packet addressed to them.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
ip addr add 2001:db8::7/128 dev lo || fail "ip addr add 2001:db8::7"

cat >"$T/cap.py" <<'PY'
import socket, struct, sys, os
log, ready = sys.argv[1:3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.bind(("lo", 0))
open(ready, "w").close()
while True:
    pkt = s.recv(65536)
    ip = pkt[14:]
    if len(ip) >= 20 and ip[0] >> 4 == 4 and socket.inet_ntoa(ip[16:20]) == "203.0.113.7":
        dst = "203.0.113.7"
    elif len(ip) >= 40 and ip[0] >> 4 == 6 and socket.inet_ntop(socket.AF_INET6, ip[24:40]) == "2001:db8::7":
        dst = "2001:db8::7"
    else:
        continue
    with open(log, "a") as f:
        f.write("dst=%s %r\n" % (dst, bytes(ip[-48:])))
PY
cat >"$T/srr.py" <<'PY'
import socket, struct, sys
mode, marker = sys.argv[1], sys.argv[2].encode()
# LSRR: type 0x83, length 7, pointer 4, one hop; NOP to pad to 8 bytes.
opt = bytes([0x83, 7, 4]) + socket.inet_aton("203.0.113.7") + b"\x01"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if mode == "opt":
    s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, opt)
    s.connect(("127.0.0.1", 9))
    s.send(marker)
elif mode == "sendto":
    s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, opt)
    s.sendto(marker, ("127.0.0.1", 9))
elif mode == "v6srh":
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    # SRH: nexthdr, hdrlen 2, type 4, segments_left 0, last_entry 0, flags, tag; one segment.
    srh = bytes([0, 2, 4, 0, 0, 0, 0, 0]) + socket.inet_pton(socket.AF_INET6, "2001:db8::7")
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RTHDR, srh)
    s.connect(("::1", 9))
    s.send(marker)
elif mode == "cmsg":
    s.connect(("127.0.0.1", 9))
    IP_RETOPTS = 7
    s.sendmsg([marker], [(socket.IPPROTO_IP, IP_RETOPTS, opt)])
print("sent", mode)
PY

CAPLOG=$O/cap.log
: >"$CAPLOG"
"$CW_PY" "$T/cap.py" "$CAPLOG" "$O/cap.ready" &
esc_bg_started $!
_i=0
while [ ! -e "$O/cap.ready" ]; do _i=$((_i + 1)); [ $_i -gt 100 ] && fail "capture did not start"; sleep 0.05; done
seen() { sleep 0.3; grep -c "$1" "$CAPLOG"; }

bad=
for mode in opt sendto cmsg v6srh; do
	m="SRR-$mode-$$-bare"
	bare "$PY" "$T/srr.py" $mode "$m"
	[ "$(seen "$m")" -ge 1 ] || esc_control_failed "bare $mode: no packet to the external address ($(cat "$O/bare.out"))"
	m="SRR-$mode-$$-cw"
	under verify -- "$PY" "$T/srr.py" $mode "$m"
	if [ "$(seen "$m")" -ge 1 ]; then
		bad="$bad; ($mode) a datagram to the external address under verify [$(grep "$m" "$CAPLOG" | head -1)]; outcome $(json_get "$R" 'd["outcome"]["kind"]')"
	else
		esc_log "$mode: nothing to the external address: $(cat "$OUT")"
	fi
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
