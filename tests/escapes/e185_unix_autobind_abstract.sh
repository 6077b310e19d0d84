#!/bin/sh
# E185 (red team 20, F4): bind(AF_UNIX) with an address of sa_family_t
# only (addrlen 2; Python's bind("")) is the kernel's autobind (unix_bind
# -> unix_autobind): the socket gets an abstract name "\0xxxxx" that any
# process of the network namespace can send to. An explicit abstract name
# is host_visible_binding; the autobind was decided as an unnamed socket
# (no capability), so under readonly an outside process reached the
# tree's socket and nothing was recorded. Now: the same capability as an
# explicit abstract name, scope "unix:@(autobind)": denied by readonly
# (the datagram from outside cannot arrive: there is no name), and
# allowed where the profile allows it (readonly plus host_visible_binding
# "unix:@*": the bind works and the datagram arrives).
# Private network namespace: abstract names live in it, so the outside
# sender (this script, not under capwatch) shares it and nothing else does.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup

# The tree's program prints its name (readonly: it writes no file); the
# outside sender reads it from the run's output and marks SENT when done.
cat >"$T/auto.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.bind("")
except OSError as e:
    print("bind refused", e.errno, flush=True)
    sys.exit(0)
name = s.getsockname()
name = name if isinstance(name, bytes) else name.encode()
print("bound", repr(name), flush=True)
print("NAME", name.hex(), flush=True)
# Until the outside sender is done (SENT; 5 s at most), then once more.
s.settimeout(0.05)
end = time.monotonic() + 5
while True:
    try:
        print("RECEIVED", s.recv(100), flush=True); break
    except socket.timeout:
        if os.path.exists(sys.argv[1]) or time.monotonic() > end:
            s.setblocking(False)
            try:
                print("RECEIVED", s.recv(100))
            except BlockingIOError:
                print("nothing received")
            break
PY
run() { # run bare|PROFILE [OPTS]
	rm -f "$O/sent"
	if [ "$1" = bare ]; then _o=$O/bare.out; else _o=$O/cw$((N + 1)).out; fi
	rm -f "$_o"
	"$CW_PY" "$ESC_SRC/abstract_send.py" "$_o" "$O/sent" "bind refused" &
	_c=$!; esc_bg_started $_c
	if [ "$1" = bare ]; then bare "$PY" "$T/auto.py" "$O/sent"
	else _p=$1; shift; under "$_p" "$@" -- "$PY" "$T/auto.py" "$O/sent"; fi
	wait $_c 2>/dev/null; esc_kill $_c
	grep -q "RECEIVED b'C2-FROM-OUTSIDE'" "$_o"
}
run bare || esc_control_failed "bare autobind not reached from outside: $(cat "$O/bare.out")"
esc_log "bare: $(grep bound "$O/bare.out")"
if run readonly; then
	esc_bypass "under readonly the autobound abstract socket $(grep bound "$OUT") received a datagram from outside the tree (outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
fi
grep -q '^bind refused' "$OUT" || fail "under readonly the autobind was not refused: $(cat "$OUT")"
expect_denied host_visible_binding "'unix:@(autobind)'"
esc_log "readonly: $(grep 'bind refused' "$OUT")"
# Allowed where the profile allows it: the autobind, and what reaches it.
prof=$(esc_profile abstract '{"host_visible_binding": {"default": "deny", "allow": ["unix:@*"]}}')
run "$prof" ||
	fail "with host_visible_binding approved the autobind did not work: $(cat "$OUT")"
report_has "used('host_visible_binding') and not denials()"
esc_log "approved: $(grep bound "$OUT")"
exit 0
