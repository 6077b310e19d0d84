#!/bin/sh
# SCM_CREDENTIALS through capwatch's emulated sendmsg (kernel-notes K20:
# the message is sent by capwatch, so the kernel checks the claim against
# capwatch's credentials). A command without CAP_SYS_ADMIN may claim only
# its own pid; capwatch, running as root with every capability, could
# claim any. Attack: with the bounding set emptied (no capabilities),
# claim pid 1 in a datagram to a socketpair. Bare: EPERM. Under capwatch
# it must stay EPERM, and a claim of the command's own identity must still
# be delivered.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root: the escalation is capwatch's capabilities over the command's"
command -v setpriv >/dev/null || skip "setpriv not found"
cat >"$T/creds.py" <<'EOF2'
import os, socket, struct, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
b.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
pid = int(sys.argv[1]) if sys.argv[1] != "self" else os.getpid()
cred = struct.pack("iII", pid, os.getuid(), os.getgid())
try:
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, cred)])
except OSError as e:
    print("send failed errno=%d" % e.errno)
    sys.exit(0)
msg, anc, _, _ = b.recvmsg(16, socket.CMSG_SPACE(12))
got = struct.unpack("iII", anc[0][2][:12])
print("delivered pid=%d uid=%d gid=%d" % got)
EOF2
bare setpriv --bounding-set -all "$CW_PY" "$T/creds.py" 1
grep -q "send failed errno=1$" "$O/bare.out" || esc_control_failed "without capabilities a claim of pid 1 was not refused bare: $(cat "$O/bare.out")"
# The positive control of the escalation itself: with capabilities (as
# capwatch has them) the same claim goes through.
bare "$CW_PY" "$T/creds.py" 1
grep -q "delivered pid=1 " "$O/bare.out" || esc_control_failed "with capabilities a claim of pid 1 was not delivered bare: $(cat "$O/bare.out")"
under verify -- setpriv --bounding-set -all "$CW_PY" "$T/creds.py" 1
grep -q "delivered" "$OUT" && esc_bypass "a command without CAP_SYS_ADMIN sent credentials claiming pid 1 through capwatch: $(grep delivered "$OUT")"
grep -q "send failed errno=1$" "$OUT" || { cat "$OUT" >&2; fail "the claim was not refused with EPERM"; }
# Its own identity still goes through (the receiver sees capwatch's pid,
# as SO_PEERCRED does: SECURITY.md), with the command's uid and gid.
under verify -- setpriv --bounding-set -all "$CW_PY" "$T/creds.py" self
grep -q "delivered pid=[0-9]* uid=0 gid=0" "$OUT" || { cat "$OUT" >&2; fail "a claim of the command's own credentials was not delivered"; }
exit 0
