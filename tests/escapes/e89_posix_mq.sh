#!/bin/sh
# E89: a POSIX message queue made outside capwatch (by this test) is
# opened by name and read by the command: mq_open names live in the IPC
# namespace's mqueue file system, not in any path capwatch decides.
# Capability sought: reading another process's data outside any path check.
# Expected after the fix: capwatch gives the command an IPC namespace of
# its own: mq_open fails ENOENT, the message never reaches the command.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
Q=/cw-e89-$$
SECRET="E89-MQ-SECRET-$$"
mq() {
	"$PY" - "$@" <<'PYEOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
op, name = sys.argv[1], sys.argv[2].encode()
if op == "unlink":
    libc.mq_unlink(name); sys.exit(0)
q = libc.mq_open(name, os.O_RDWR | os.O_CREAT, 0o600, None)
if q < 0: sys.exit("mq_open %d" % ctypes.get_errno())
m = sys.argv[3].encode()
if libc.mq_send(q, m, len(m), 0) < 0: sys.exit("mq_send %d" % ctypes.get_errno())
PYEOF
}
mq send "$Q" "$SECRET" || skip "POSIX message queues unavailable"
trap 'mq unlink "$Q"; esc_cleanup' EXIT
cmd='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
q = libc.mq_open(sys.argv[1].encode(), os.O_RDONLY | os.O_NONBLOCK)
if q < 0:
    print("mq_open failed", ctypes.get_errno()); sys.exit(0)
buf = ctypes.create_string_buffer(65536)
r = libc.mq_receive(q, buf, 65536, None)
print("read:", buf.value.decode() if r >= 0 else "mq_receive failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd" "$Q"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare mq_receive did not read the message: $(cat "$O/bare.out")"
mq send "$Q" "$SECRET" || fail "mq_send"
under readonly -- "$PY" -c "$cmd" "$Q"
grep -q "$SECRET" "$OUT" && esc_bypass "the command read a POSIX message queue made outside the tree under --profile readonly"
exit 0
