#!/bin/sh
# E102: connect() on an AF_UNIX socket with a sockaddr whose sun_path is
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
n = 0
for fill, alen in ((b"A", 110), (b"A", 128), (b"\xff", 110), (b"\xff", 128)):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    buf = ctypes.create_string_buffer(struct.pack("H", socket.AF_UNIX) + fill * 126, 128)
    r = libc.connect(s.fileno(), buf, alen)
    print("connect", fill, alen, "->", r, ctypes.get_errno() if r < 0 else 0, flush=True)
    n += 1
    s.close()
print("done", n)
PYEOF
bare "$PY" "$T/ua.py"
[ "$rc" = 0 ] && grep -q 'done 4' "$O/bare.out" || esc_control_failed "bare connects did not all return: $(cat "$O/bare.out")"
under_any verify -- "$PY" "$T/ua.py"
report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after connect() with a full, unterminated sun_path (capwatch exit $rc)"; }
[ "$rc" = 0 ] && grep -q 'done 4' "$OUT" || { cat "$OUT" >&2; esc_bypass "capwatch did not run the command to its end (exit $rc)"; }
trace_has 'len(ev) > 1'
grep -q 'connect .* -> 0 ' "$OUT" && esc_bypass "a connect with an unterminated sun_path succeeded: $(cat "$OUT")"
exit 0
