#!/bin/sh
# E42 (sendmmsg): a vector of messages, each with its own msg_name. Nothing
# is connected; every datagram names 203.0.113.7 itself.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
sink_start udp 5354
cat >"$T/mm.py" <<PYEOF
import ctypes, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sin = struct.pack("=HH4s8x", socket.AF_INET, socket.htons(5354), socket.inet_aton("$SINK_ADDR"))
name = ctypes.create_string_buffer(sin, len(sin))
data = ctypes.create_string_buffer(b"mm", 2)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.c_void_p),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint32)]
iov = iovec(ctypes.cast(data, ctypes.c_void_p), 2)
msgs = (mmsghdr * 4)()
for m in msgs:
    m.hdr.name = ctypes.cast(name, ctypes.c_void_p); m.hdr.namelen = len(sin)
    m.hdr.iov = ctypes.addressof(iov); m.hdr.iovlen = 1
r = libc.sendmmsg(s.fileno(), msgs, 4, 0)
print("sendmmsg", r, ctypes.get_errno())
PYEOF
bare "$PY" "$T/mm.py"
sink_wait || esc_control_failed "bare sendmmsg did not reach the UDP sink: $(cat "$O/bare.out")"
sink_reset
under readonly -- "$PY" "$T/mm.py"
sink_flush
[ "$(sink_hits)" = 0 ] || esc_bypass "sendmmsg: $(sink_hits) datagrams reached $SINK_ADDR:5354 under capwatch --profile readonly ($(cat "$OUT"))"
expect_denied external_network "'$SINK_ADDR:5354'"
