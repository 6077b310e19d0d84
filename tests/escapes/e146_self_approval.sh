#!/bin/sh
# E146 (approval x E48): the supervised command answers its own question.
# docs/agents.md: "Connections from inside the supervised tree are
# refused: the command cannot answer its own questions" (approval.c checks
# the peer's SO_PEERCRED pid against the tree). But capwatch performs the
# tree's unix connects itself (net.c), so the peer of a connection the
# command makes is capwatch: under a profile that allows process_control
# (a connect to a socket served outside the tree), a thread of the command
# connects to --approval-socket, is accepted as an approver, and allows
# the command's own ask (workspace_write on *.lock): x.lock is created and
# the report lists the approval as "answered on the approval socket".
# Seen at 2766b13 and 2766b13^.
# Positive control: bare, the same program answers a question sent by a
# stand-in approval socket the test serves.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
PROF=$(esc_profile pc '{"workspace_write": {"ask": ["**/*.lock"]}, "process_control": "allow"}' verify)

# selfapprove.py SOCKET: a thread connects to SOCKET and allows every
# question; the main thread then creates x.lock.
cat >"$T/selfapprove.py" <<'PY'
import errno, json, os, socket, sys, threading, time
def approver():
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        print("approver connected", flush=True)
        f = s.makefile("rwb", buffering=0)
        for raw in f:
            req = json.loads(raw)
            if "id" in req:
                print("approver allows", req.get("scope"), flush=True)
                f.write((json.dumps({"id": req["id"], "decision": "allow"}) + "\n").encode())
    except OSError as e:
        print("approver", errno.errorcode.get(e.errno, e.errno), flush=True)
threading.Thread(target=approver, daemon=True).start()
time.sleep(0.5)
try:
    os.close(os.open("x.lock", os.O_WRONLY | os.O_CREAT, 0o644))
    print("open OK", flush=True)
except OSError as e:
    print("open", errno.errorcode.get(e.errno, e.errno), flush=True)
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))
PY
# A stand-in for capwatch's approval socket: one question, logs the answer.
cat >"$T/fakesock.py" <<'PY'
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1)
open(sys.argv[1] + ".ready", "w").close()
c, _ = s.accept()
c.sendall(json.dumps({"id": 1, "capability": "workspace_write", "scope": "x.lock"}).encode() + b"\n")
open(sys.argv[2], "w").write(c.makefile("rb").readline().decode())
PY

# ---- positive control ----
"$CW_PY" "$T/fakesock.py" "$T/fake.sock" "$O/fake.answer" &
esc_bg_started $!
i=0
while [ ! -e "$T/fake.sock.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
bare "$CW_PY" "$T/selfapprove.py" "$T/fake.sock" 0.5
grep -q '"allow"' "$O/fake.answer" 2>/dev/null ||
	esc_control_failed "bare: the program did not answer the stand-in's question: $(cat "$O/bare.out")"
rm -f "$W/x.lock"

# ---- under capwatch ----
under "$PROF" --approval-socket "$T/appr.sock" --approval-timeout 2 -- "$CW_PY" "$T/selfapprove.py" "$T/appr.sock" </dev/null
cat "$OUT" >&2
if grep -q '^approver allows' "$OUT" || [ -e "$W/x.lock" ]; then
	esc_bypass "the command answered its own question on the approval socket: $(tr '\n' ' ' <"$OUT")(x.lock $( [ -e "$W/x.lock" ] && echo created || echo absent))"
fi
report_has "not d['approvals']" "len(denials('workspace_write', '$W/x.lock')) == 1"
exit 0
