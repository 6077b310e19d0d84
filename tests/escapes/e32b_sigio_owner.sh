#!/bin/sh
# E32 (fowner signals): fcntl(F_SETOWN, pid) + O_ASYNC + F_SETSIG: the
# kernel delivers the signal to a process outside the tree when the fd
# becomes ready. No kill-family syscall is made.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/sigio.py" <<'PYEOF'
import fcntl, os, sys, time
pid = int(sys.argv[1])
r, w = os.pipe()
fcntl.fcntl(r, fcntl.F_SETOWN, pid)
fcntl.fcntl(r, 10, 9)  # F_SETSIG: SIGKILL
fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC)
os.write(w, b"x")
time.sleep(0.2)
print("done")
PYEOF
victim_start sleep 60
bare "$PY" "$T/sigio.py" "$VICTIM_PID"
sleep 0.2
victim_alive && esc_control_failed "bare F_SETOWN/O_ASYNC did not kill the victim: $(cat "$O/bare.out")"
victim_start sleep 60
under readonly -- "$PY" "$T/sigio.py" "$VICTIM_PID"
sleep 0.2
victim_alive || esc_bypass "fcntl(F_SETOWN=$VICTIM_PID)+F_SETSIG(SIGKILL)+O_ASYNC killed a process outside the tree under --profile readonly (fcntl is not in the filter)"
