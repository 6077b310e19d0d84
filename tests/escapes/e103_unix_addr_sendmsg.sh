#!/bin/sh
# E103: sendmsg() on an AF_UNIX datagram socket, msg_name with a sockaddr whose sun_path is
# full (108 bytes, no NUL) and with addrlen 110 and 128 (past
# sizeof(struct sockaddr_un)); also with non-UTF-8 bytes. capwatch copies
# the address out of the target and decides on the path: an off-by-one or
# a missing length check reads or writes past its buffer.
# Capability sought: crashing or corrupting the supervisor (robustness).
# Expected (after the fix, and ideally today): capwatch does not abort,
# the command gets an errno for each call (the kernel's EINVAL for 128, a
# process_control denial or ENOENT for the others) and runs on, capwatch
# exits with the command's status, the report is non-empty valid JSON and
# every trace line parses.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/ua.py" <<'PYEOF'
import ctypes, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(iovec)),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
data = ctypes.create_string_buffer(b"x")
iov = iovec(ctypes.addressof(data), 1)
n = 0
for fill, alen in ((b"A", 110), (b"A", 128), (b"\xff", 110), (b"\xff", 128)):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    buf = ctypes.create_string_buffer(struct.pack("H", socket.AF_UNIX) + fill * 126, 128)
    m = msghdr(ctypes.addressof(buf), alen, ctypes.pointer(iov), 1, None, 0, 0)
    r = libc.sendmsg(s.fileno(), ctypes.byref(m), 0)
    print("sendmsg", fill, alen, "->", r, ctypes.get_errno() if r < 0 else 0, flush=True)
    n += 1
    s.close()
print("done", n)
PYEOF
bare "$PY" "$T/ua.py"
[ "$rc" = 0 ] && grep -q 'done 4' "$O/bare.out" || esc_control_failed "bare sends did not all return: $(cat "$O/bare.out")"
under_any verify -- "$PY" "$T/ua.py"
report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after sendmsg() with a full, unterminated sun_path (capwatch exit $rc)"; }
[ "$rc" = 0 ] && grep -q 'done 4' "$OUT" || { cat "$OUT" >&2; esc_bypass "capwatch did not run the command to its end (exit $rc)"; }
trace_has 'len(ev) > 1'
grep -q 'sendmsg .* -> 1 ' "$OUT" && esc_bypass "a sendmsg with an unterminated sun_path succeeded: $(cat "$OUT")"
exit 0
