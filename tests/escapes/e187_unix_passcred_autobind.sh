#!/bin/sh
# E187 (found after red team 20, of F4's kind; e185 is the explicit
# bind("")): an unbound unix socket with SO_PASSCRED or SO_PASSPIDFD is
# autobound by the kernel to an abstract name "\0xxxxx" at its first
# connect (unix_dgram_connect, unix_stream_connect: before the peer is
# looked up, so a refused connect keeps the name) and at a send
# (unix_dgram_sendmsg). Any process of the network namespace can then
# send to it. capwatch performs unix connects and addressed sends itself,
# so the autobind happened in its own call and was never decided: under
# verify a process outside the tree sent the tree's socket a datagram and
# nothing was recorded. Now decided as bind("") is, host_visible_binding
# "unix:@(autobind)", before the call: refused under verify (no name, the
# datagram from outside cannot arrive), allowed where the profile allows
# it (verify plus host_visible_binding "unix:@*": the datagram arrives).
# Cases: datagram sendto, sendmsg with a name and sendto with
# SO_PASSPIDFD to the tree's own live socket; datagram and stream connect
# to a socket file with no socket behind it (ECONNREFUSED after the
# autobind: unconnected, so reachable). A stream socket is reachable only
# once it listens (listen on an abstract name is decided already): its
# name is the effect looked for.
# Private network namespace: abstract names live in it, so the outside
# sender (this script, not under capwatch) shares it and nothing else does.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup

# The tree's program prints its socket's name; the outside sender reads
# it from the run's output and marks SENT when done.
cat >"$T/auto.py" <<'PY'
import os, socket, sys, time
mode, sent = sys.argv[1], sys.argv[2]
SO_PASSPIDFD = 76
U = socket.AF_UNIX
kind = socket.SOCK_STREAM if mode == "stream_connect" else socket.SOCK_DGRAM
for f in ("live.sock", "dead.sock"):
    try:
        os.unlink(f)
    except FileNotFoundError:
        pass
# The tree's own sockets in the workspace (verify allows them): a live
# one, and a socket file whose socket is closed.
live = socket.socket(U, kind)
live.bind("live.sock")
if kind == socket.SOCK_STREAM:
    live.listen(1)
dead = socket.socket(U, kind)
dead.bind("dead.sock")
dead.close()
s = socket.socket(U, kind)
s.setsockopt(socket.SOL_SOCKET, SO_PASSPIDFD if mode == "pidfd_sendto" else socket.SO_PASSCRED, 1)
try:
    if mode in ("sendto", "pidfd_sendto"):
        s.sendto(b"x", "live.sock")
    elif mode == "sendmsg":
        s.sendmsg([b"x"], [], 0, "live.sock")
    else:
        s.connect("dead.sock")
    print("call done", flush=True)
except OSError as e:
    print("call failed", e.errno, flush=True)
name = s.getsockname()
name = name if isinstance(name, bytes) else name.encode()
if not name:
    print("unbound", flush=True)
    sys.exit(0)
print("bound", repr(name), flush=True)
print("NAME", name.hex(), flush=True)
if kind == socket.SOCK_STREAM:
    sys.exit(0)
# Until the outside sender is done (SENT; 5 s at most), then once more.
s.settimeout(0.05)
end = time.monotonic() + 5
while True:
    try:
        print("RECEIVED", s.recv(100), flush=True); break
    except socket.timeout:
        if os.path.exists(sent) or time.monotonic() > end:
            s.setblocking(False)
            try:
                print("RECEIVED", s.recv(100))
            except BlockingIOError:
                print("nothing received")
            break
PY
run() { # run MODE bare|PROFILE [OPTS]: 0 when the socket got a name
	_m=$1
	shift
	rm -f "$O/sent"
	if [ "$1" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	"$CW_PY" "$ESC_SRC/abstract_send.py" "$_o" "$O/sent" "unbound" &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/auto.py" "$_m" "$O/sent"
	else _p=$1; shift; under "$_p" "$@" -- "$PY" "$T/auto.py" "$_m" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q '^NAME ' "$_o"
}
# Reached from outside: the datagram cases.
reached() { grep -q "RECEIVED b'C2-FROM-OUTSIDE'" "$1"; }

prof=$(esc_profile abstract '{"host_visible_binding": {"default": "deny", "allow": ["unix:@*"]}}' verify)
for m in sendto sendmsg pidfd_sendto connect stream_connect; do
	run $m bare || esc_control_failed "$m: bare socket not autobound: $(cat "$O/bare.out")"
	if [ $m != stream_connect ]; then
		reached "$O/bare.out" || esc_control_failed "$m: bare autobind not reached from outside: $(cat "$O/bare.out")"
	fi
	esc_log "$m bare: $(grep -E '^call|^bound' "$O/bare.out" | tr '\n' ' ')"
	if run $m verify; then
		reached "$OUT" && esc_bypass "$m under verify: the autobound socket $(grep bound "$OUT") received a datagram from outside the tree"
		esc_bypass "$m under verify: the socket was autobound to an abstract name: $(grep bound "$OUT")"
	fi
	grep -q '^unbound' "$OUT" || fail "$m under verify: no result: $(cat "$OUT")"
	expect_denied host_visible_binding "'unix:@(autobind)'"
	esc_log "$m verify: $(grep -E '^call' "$OUT")"
done
# Allowed where the profile allows it: the autobind, and what reaches it.
for m in sendto connect; do
	run $m "$prof" || fail "$m: with host_visible_binding approved there was no autobind: $(cat "$OUT")"
	reached "$OUT" || fail "$m: with host_visible_binding approved nothing reached the socket: $(cat "$OUT")"
	report_has "used('host_visible_binding') and not denials()"
	esc_log "$m approved: $(grep -E '^call|^bound' "$OUT" | tr '\n' ' ')"
done
exit 0
