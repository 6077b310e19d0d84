#!/bin/sh
# E88: a SysV message queue made outside capwatch (by this test) is read
# (and drained) by the command by its id: another program's messages, with
# no path and no open.
# Capability sought: reading another process's data outside any path check.
# Expected after the fix: capwatch gives the command an IPC namespace of
# its own: the queue is invisible (msgrcv fails EINVAL), the message never
# reaches the command's stdout and stays in the queue.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="E88-MSG-SECRET-$$"
MSGID=$("$PY" -c 'import ctypes; print(ctypes.CDLL(None).msgget(0, 0o1600))')
[ "${MSGID:--1}" -ge 0 ] || fail "cannot create a SysV message queue"
trap 'ipcrm -q "$MSGID" 2>/dev/null; esc_cleanup' EXIT
send() {
	"$PY" - "$MSGID" "$SECRET" <<'PYEOF' || fail "msgsnd"
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
class msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
m = msg(1, sys.argv[2].encode())
if libc.msgsnd(int(sys.argv[1]), ctypes.byref(m), 64, 0) < 0: sys.exit("msgsnd %d" % ctypes.get_errno())
PYEOF
}
cmd='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
class msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
m = msg()
r = libc.msgrcv(int(sys.argv[1]), ctypes.byref(m), 64, 0, 0o4000)  # IPC_NOWAIT
print("read:", m.mtext.decode() if r >= 0 else "msgrcv failed %d" % ctypes.get_errno())'
send
bare "$PY" -c "$cmd" "$MSGID"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare msgrcv did not read the message: $(cat "$O/bare.out")"
send
under readonly -- "$PY" -c "$cmd" "$MSGID"
grep -q "$SECRET" "$OUT" && esc_bypass "the command read a message from a SysV queue made outside the tree under --profile readonly"
exit 0
