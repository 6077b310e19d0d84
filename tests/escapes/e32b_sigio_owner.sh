#!/bin/sh
# E32 (fowner signals): fcntl(F_SETOWN, pid) + O_ASYNC + F_SETSIG: the
# kernel delivers the signal to a process outside the tree when the fd
# becomes ready. No kill-family syscall is made. Also F_SETOWN_EX (owner
# in memory) and F_SETOWN with bit 32 of cmd set (E08).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/sigio.py" <<'PYEOF'
import fcntl, os, struct, sys, time
pid = int(sys.argv[1])
r, w = os.pipe()
if sys.argv[2] == "setown":
    fcntl.fcntl(r, fcntl.F_SETOWN, pid)
elif sys.argv[2] == "setown_high":  # cmd with bit 32 set: the kernel uses the low 32 bits
    import ctypes
    if ctypes.CDLL(None).syscall(72, r, ctypes.c_ulong(fcntl.F_SETOWN | (1 << 32)), pid) < 0:
        sys.exit("fcntl failed")
else:  # F_SETOWN_EX: the owner is a struct in memory {F_OWNER_PID, pid}
    fcntl.fcntl(r, 15, struct.pack("ii", 1, pid))
fcntl.fcntl(r, 10, 9)  # F_SETSIG: SIGKILL
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
os.write(w, b"x")
time.sleep(0.2)
print("done")
PYEOF
for how in setown setown_ex setown_high; do
victim_start sleep 60
bare "$PY" "$T/sigio.py" "$VICTIM_PID" $how
sleep 0.2
victim_alive && esc_control_failed "bare F_SETOWN/O_ASYNC did not kill the victim: $(cat "$O/bare.out")"
victim_start sleep 60
under readonly -- "$PY" "$T/sigio.py" "$VICTIM_PID" $how
sleep 0.2
victim_alive || esc_bypass "fcntl(F_SETOWN[_EX]=$VICTIM_PID)+F_SETSIG(SIGKILL)+O_ASYNC killed a process outside the tree under --profile readonly ($how)"
esc_kill "$VICTIM_PID"
done
