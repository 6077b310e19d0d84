#!/bin/sh
# E39 for UDP: a sendto() to 127.0.0.1 (isolated_loopback, allowed by
# verify) from a socket that was never bound makes the kernel autobind it
# to 0.0.0.0:EPHEMERAL (udp_sendmsg -> inet_autobind), not to the loopback
# address: from then on it receives datagrams sent to that port on every
# interface. capwatch performs the sendto on a duplicate of the socket, so
# the autobind happens, and recvfrom is passed in the kernel: a port open to
# the network (host_visible_binding, denied by every profile but observe)
# without a bind. (a) IPv4; (b) IPv6 (sendto ::1 binds [::]:PORT, dual
# stack); (c) IPv6 socket, sendto(::ffff:127.0.0.1), a v4-mapped loopback
# destination (binds [::]:PORT too). Private netns: the "outside host" is
# a socket on 203.0.113.7 (on lo), started by the test outside capwatch.
# Under capwatch the send itself must still work: the socket is bound to
# the loopback address of the destination's kind instead.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup

cat >"$T/ab.py" <<'PY'
import socket, sys
fam = socket.AF_INET6 if sys.argv[2] in ("6", "6m") else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
dst = {"4": "127.0.0.1", "6": "::1", "6m": "::ffff:127.0.0.1"}[sys.argv[2]]
s.sendto(b"hello", (dst, 9))
print("bound", s.getsockname(), flush=True)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
# Wait for the outside sender to finish (it marks PORT.sent; 5 s at most),
# then look at the queue once more: on lo a datagram is queued before its
# sendto returns, so whatever could arrive has arrived.
import time
s.settimeout(0.05)
end = time.monotonic() + 5
while True:
    try:
        d, a = s.recvfrom(100); print("RECEIVED", d, a); break
    except socket.timeout:
        if os.path.exists(sys.argv[1] + ".sent") or time.monotonic() > end:
            s.setblocking(False)
            try:
                d, a = s.recvfrom(100); print("RECEIVED", d, a)
            except BlockingIOError:
                print("nothing received")
            break
PY
cat >"$T/outside.py" <<'PY'
import os, socket, sys, time
for _ in range(200):
    if os.path.exists(sys.argv[1]): break
    time.sleep(0.05)
p = int(open(sys.argv[1]).read())
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("203.0.113.7", 0))
for _ in range(5):
    s.sendto(b"C2-FROM-OUTSIDE", ("203.0.113.7", p)); time.sleep(0.2)
open(sys.argv[1] + ".sent", "w").close()
PY
run() { # run BARE|PROFILE FAMILY
	rm -f "$W/port" "$W/port.sent"
	"$CW_PY" "$T/outside.py" "$W/port" &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/ab.py" "$W/port" "$2"; _o=$O/bare.out
	else under "$1" -- "$PY" "$T/ab.py" "$W/port" "$2"; _o=$OUT; fi
	esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-OUTSIDE'" "$_o"
}
bad=
for fam in 4 6 6m; do
	run bare $fam || esc_control_failed "bare IPv$fam: $(cat "$O/bare.out")"
	if run verify $fam; then
		bad="$bad; (IPv$fam) after sendto(loopback) the command's socket is $(grep bound "$OUT") and received a datagram from 203.0.113.7 under verify (outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
	fi
	# The send went (the script printed its address) from a loopback-bound socket.
	grep -Eq "^bound \('(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)'" "$OUT" ||
		fail "(IPv$fam) the loopback send did not happen under verify: $(cat "$OUT")"
	esc_log "IPv$fam under verify: $(grep bound "$OUT")"
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
