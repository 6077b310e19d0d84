#!/bin/sh
# E79: ioctl(SIOCSPGRP, pid) on a socket, then F_SETSIG(SIGKILL) + O_ASYNC:
# the kernel signals the owner, a process outside the tree (a sleep this
# test started), when data arrives. The same as F_SETOWN (E32b, blocked)
# through the socket ioctl spelling (sock_ioctl -> f_setown). No kill-family syscall is made.
# Capability sought: process_control.
# Expected after the fix: SIOCSPGRP naming a pid outside the tree is refused
# EPERM and recorded as a process_control denial; the victim lives.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/own.py" <<'PYEOF'
import fcntl, os, socket, struct, sys, time
pid = int(sys.argv[1])
a, b = socket.socketpair()
try:
    fcntl.ioctl(a.fileno(), int(sys.argv[2], 0), struct.pack("i", pid))
except OSError as e:
    print("setown failed", e.errno); sys.exit(0)
fcntl.fcntl(a.fileno(), 10, 9)  # F_SETSIG: SIGKILL
fcntl.fcntl(a.fileno(), fcntl.F_SETFL, fcntl.fcntl(a.fileno(), fcntl.F_GETFL) | os.O_ASYNC)
b.send(b"x")
time.sleep(0.2)
print("setown ok")
PYEOF
victim_start sleep 60
bare "$PY" "$T/own.py" "$VICTIM_PID" 0x8902
sleep 0.2
victim_alive && esc_control_failed "bare SIOCSPGRP+O_ASYNC did not kill the victim: $(cat "$O/bare.out")"
# Without the Landlock domain first (ABI 6 scopes signals to the domain,
# which stops the delivery but records nothing), then with it: the ioctl
# itself must be refused and recorded either way.
for ll in --no-landlock ""; do
victim_start sleep 60
under readonly $ll -- "$PY" "$T/own.py" "$VICTIM_PID" 0x8902
sleep 0.2
victim_alive || esc_bypass "ioctl(SIOCSPGRP=$VICTIM_PID)+F_SETSIG(SIGKILL)+O_ASYNC killed a process outside the tree under --profile readonly $ll"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# victim has no number there: ESRCH, and no allow recorded for it.
	grep -q 'setown failed 3$' "$OUT" || esc_bypass "SIOCSPGRP naming $VICTIM_PID outside the tree was not ESRCH in its PID namespace ($ll): $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
else
	grep -q 'setown failed 1$' "$OUT" || esc_bypass "SIOCSPGRP naming an outside pid was not refused EPERM ($ll): $(cat "$OUT")"
	expect_denied process_control
fi
esc_kill "$VICTIM_PID"
done
exit 0
