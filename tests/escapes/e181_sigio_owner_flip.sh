#!/bin/sh
# E181: the SIGIO owner (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP) is in memory
# the tree can rewrite. capwatch sets it itself from its one copy; under
# CAPWATCH_KERNEL_READS=1 it now lets the kernel set it instead (e171: no
# number of the tree's is ever translated to a host pid, so a member's pid
# freed and taken by an outside process cannot become the owner), and the
# kernel reads it in the tree's PID namespace. A thread flips the
# f_owner_ex's pid between the caller's own and a process outside the tree
# (a sleep this test started) while F_SETOWN_EX waits for its answer; each
# time, F_SETSIG(SIGTERM) + O_ASYNC and a byte make the kernel signal the
# owner. The victim must live, in both modes, and the owner must still
# work for the tree's own processes (a SIGTERM handler counts them).
# Capability sought: process_control.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/own.py" <<'PY'
import ctypes, fcntl, os, signal, socket, struct, sys, threading, time
V, mode = int(sys.argv[1]), sys.argv[2]
F_SETOWN_EX, F_GETOWN_EX, F_SETSIG = 15, 16, 10
F_OWNER_TID, F_OWNER_PID, F_OWNER_PGRP = 0, 1, 2
got = [0]
signal.signal(signal.SIGTERM, lambda s, f: got.__setitem__(0, got[0] + 1))
libc = ctypes.CDLL(None, use_errno=True)
libc.fcntl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
class Ox(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("pid", ctypes.c_int)]

def armed(a, b):
    fcntl.fcntl(a.fileno(), F_SETSIG, signal.SIGTERM)
    fcntl.fcntl(a.fileno(), fcntl.F_SETFL, fcntl.fcntl(a.fileno(), fcntl.F_GETFL) | os.O_ASYNC)
    b.send(b"x")
    a.recv(16)

def wait_sig(before):
    end = time.time() + 2
    while got[0] == before and time.time() < end:
        time.sleep(0.01)
    return got[0] > before

if mode == "direct":
    a, b = socket.socketpair()
    ox = Ox(F_OWNER_PID, V)
    r = libc.fcntl(a.fileno(), F_SETOWN_EX, ctypes.byref(ox))
    print("setown", r, ctypes.get_errno(), flush=True)
    armed(a, b)
    time.sleep(0.3)
    sys.exit(0)

# The tree's own processes still get their SIGIO, each spelling.
for how in ("fiosetown", "siocspgrp", "setown_ex_tid", "setown_ex_pgrp"):
    a, b = socket.socketpair()
    before = got[0]
    if how == "fiosetown":
        fcntl.ioctl(a.fileno(), 0x8901, struct.pack("i", os.getpid()))
    elif how == "siocspgrp":
        fcntl.ioctl(a.fileno(), 0x8902, struct.pack("i", -os.getpgrp()))
    elif how == "setown_ex_tid":
        fcntl.fcntl(a.fileno(), F_SETOWN_EX, struct.pack("ii", F_OWNER_TID, threading.get_native_id()))
    else:
        fcntl.fcntl(a.fileno(), F_SETOWN_EX, struct.pack("ii", F_OWNER_PGRP, os.getpgrp()))
    armed(a, b)
    print("own", how, "ok" if wait_sig(before) else "MISSING", flush=True)
    a.close(); b.close()

# The flip.
ox = Ox(F_OWNER_PID, os.getpid())
stop = [False]
def flipper():
    me = os.getpid()
    while not stop[0]:
        ox.pid = V
        ox.pid = me
threading.Thread(target=flipper, daemon=True).start()
n = ok = 0
end = time.time() + float(os.environ.get("CW_RACE_SECONDS", "3"))
while time.time() < end:
    a, b = socket.socketpair()
    n += 1
    if libc.fcntl(a.fileno(), F_SETOWN_EX, ctypes.byref(ox)) == 0:
        ok += 1
        before = got[0]
        armed(a, b)
    a.close(); b.close()
stop[0] = True
print("flips", n, "set", ok, flush=True)
PY
victim_start sleep 60
bare "$PY" "$T/own.py" "$VICTIM_PID" direct
sleep 0.2
victim_alive && esc_control_failed "bare F_SETOWN_EX + F_SETSIG(SIGTERM) + O_ASYNC did not reach the victim: $(cat "$O/bare.out")"
# Landlock (ABI 6) scopes signals to its domain and would stop the
# delivery by itself: first without it, then with it, and with reads in
# the kernel (which need it).
for m in default:--no-landlock default kreads; do
	ll=${m#*:}
	[ "$ll" = "$m" ] && ll=
	m=${m%%:*}
	victim_start sleep 60
	under_reads $m readonly $ll -- "$PY" "$T/own.py" "$VICTIM_PID" flip
	[ $m = kreads ] && ! esc_pidns && { esc_kill "$VICTIM_PID"; continue; }
	for how in fiosetown siocspgrp setown_ex_tid setown_ex_pgrp; do
		grep -q "^own $how ok" "$OUT" || fail "$m: the tree's own SIGIO owner ($how) got no signal: $(tr '\n' ' ' <"$OUT")"
	done
	grep -q "^flips [1-9]" "$OUT" || fail "$m: the flip loop did not run: $(tr '\n' ' ' <"$OUT")"
	sleep 0.2
	victim_alive || esc_bypass "$m $ll: F_SETOWN_EX with a pid flipped to $VICTIM_PID outside the tree made it the owner and it was signalled ($(tr '\n' ' ' <"$OUT"))"
	esc_none_allowed "$VICTIM_PID"
	esc_log "$m $ll: $(tr "\n" " " <"$OUT")"
	esc_kill "$VICTIM_PID"
done
exit 0
