#!/bin/sh
# E47 (AF_NETLINK): a root command reconfigures the network with
# NETLINK_ROUTE: RTM_NEWADDR adds 198.51.100.9 to lo. Two forms: `ip addr
# add` (sendmsg with a sockaddr_nl), and a raw socket that send()s with no
# address at all (the kernel is the default peer). Runs in this test's
# private netns; as root only (CAP_NET_ADMIN). Since capwatch drops root's
# capabilities to Docker's set, the kernel refuses it too.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
[ "$(id -u)" = 0 ] || skip "RTM_NEWADDR needs CAP_NET_ADMIN (root)"
cat >"$T/nl.py" <<'PYEOF'
import socket, struct, sys
addr = socket.inet_aton(sys.argv[1])
idx = socket.if_nametoindex("lo")
def attr(t, data):
    return struct.pack("HH", 4 + len(data), t) + data
body = struct.pack("BBBBI", socket.AF_INET, 32, 0, 0, idx) + attr(2, addr) + attr(1, addr)  # IFA_LOCAL, IFA_ADDRESS
hdr = struct.pack("IHHII", 16 + len(body), 20, 0x1 | 0x4 | 0x400 | 0x200, 1, 0)  # RTM_NEWADDR, REQUEST|ACK|CREATE|EXCL
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
try:
    s.send(hdr + body)
    r = s.recv(4096)
    err = struct.unpack("i", r[16:20])[0]
    print("netlink ack", err)
except OSError as e:
    print("netlink failed", e)
PYEOF
has_addr() { ip -4 addr show dev lo | grep -q "$1/32"; }
for how in raw ip; do
	a=198.51.100.9
	case $how in
	raw) set -- "$PY" "$T/nl.py" "$a" ;;
	ip) set -- ip addr add "$a/32" dev lo ;;
	esac
	bare "$@"
	has_addr $a || esc_control_failed "$how: bare RTM_NEWADDR did not add $a: $(cat "$O/bare.out")"
	ip addr del "$a/32" dev lo
	under readonly -- "$@"
	if has_addr $a; then
		ip addr del "$a/32" dev lo
		esc_bypass "$how: a command under --profile readonly added $a to lo through NETLINK_ROUTE ($(cat "$OUT" | tr '\n' ' '))"
	fi
	# Blocked by capwatch (the socket refused: enforcement_denied) or,
	# for root, by the kernel: the command runs without CAP_NET_ADMIN
	# (privs.h), so a netlink socket only reads, and the report names
	# the capability layer that held.
	report_has 'denied_run() or "capabilities:docker-default" in outcome["enforcement"]["layers"]'
done
