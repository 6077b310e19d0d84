#!/bin/sh
# Raw sockets as a sniffer: root's command keeps CAP_NET_RAW (Docker's set)
# and socket(AF_INET[6], SOCK_RAW, IPPROTO_TCP) passes in the kernel (the
# socket row notifies only families other than unix/inet/inet6). The
# kernel hands every raw socket a copy of each TCP segment delivered
# locally, loopback included, and recvfrom is an ALLOW row: the command
# reads the traffic between two processes outside the tree (a client
# sending a password to a local database, here both started by the test)
# without any decided call. Unlike Docker, the tree shares the host's
# network namespace. readonly (no network at all) and verify. Private
# netns.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup

cat >"$T/pair.py" <<'PY'
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 6379)); s.listen(64); s.settimeout(1)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    c = socket.create_connection(("127.0.0.1", 6379))
    c.send(("AUTH " + sys.argv[2]).encode())
    a, _ = s.accept(); a.recv(100); a.close(); c.close()
    time.sleep(0.1)
PY
cat >"$T/sniff.py" <<'PY'
import socket, sys
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
except OSError as e:
    print("socket:", e); sys.exit(0)
s.settimeout(8)
try:
    while True:
        p = s.recv(65535)
        if b"AUTH " in p:
            print("SNIFFED", p[p.index(b"AUTH "):][:60]); break
except (socket.timeout, OSError) as e:
    print("nothing:", e)
PY
run() { # run bare|PROFILE SECRET
	"$CW_PY" "$T/pair.py" 10 "$2" &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/sniff.py"; _o=$O/bare.out
	else under "$1" -- "$PY" "$T/sniff.py"; _o=$OUT; fi
	esc_kill $_c
	grep -q "SNIFFED.*$2" "$_o"
}
pw="PASSWORD-$esc_name-$$"
run bare "$pw" || esc_control_failed "bare: $(cat "$O/bare.out")"
bad=
for prof in readonly verify; do
	if run $prof "$pw"; then
		bad="$bad; ($prof) a raw socket read the loopback traffic of two processes outside the tree: $(grep SNIFFED "$OUT") (outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
	fi
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
