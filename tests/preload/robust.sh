#!/bin/sh
# Issue 5: the preload changes nothing a program can see in its results:
# pl_robust (errno across wrapped calls, threads, a signal handler calling
# open, fork, vfork + execve, an execve with an empty environment,
# posix_spawn, system, popen) prints the same with and without capwatch.
# Environments a program cleared get the preload back at exec (every
# dynamically linked process of the tree is "present"), and nothing an
# honest program does is flagged as malformed.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"

"$PL_BIN/pl_robust" >"$O/bare.out" 2>&1 || fail "pl_robust failed bare: $(cat "$O/bare.out")"
cw --report "$O/r.json" --trace "$O/r.jsonl" -- "$PL_BIN/pl_robust" >"$O/cw.out" 2>"$O/cw.err"
expect_rc 0 "pl_robust under capwatch"
cmp -s "$O/bare.out" "$O/cw.out" || fail "pl_robust output differs under capwatch:
$(diff "$O/bare.out" "$O/cw.out")"
grep -q 'popen: popen-out' "$O/cw.out" || fail "pl_robust did not run to the end: $(cat "$O/cw.out")"

# env -u LD_PRELOAD: the exec'd program gets the preload again.
cw --report "$O/envu.json" -- env -u LD_PRELOAD -u CAPWATCH_ANNOT_FD /bin/true
expect_rc 0 "env -u LD_PRELOAD /bin/true"

# A thread that resolved a name and ended before capwatch read its
# message (nothing it did after the lookup was notified): an honest
# message, not malformed, and the name is the process's, for its connect.
cat >"$T/thr.py" <<'EOF2'
import socket, threading, time
t = threading.Thread(target=lambda: socket.getaddrinfo("localhost", 9, socket.AF_INET))
t.start()
t.join()
time.sleep(0.2)
s = socket.socket()
try:
    s.connect(("127.0.0.1", 9))
except OSError:
    pass
print("thr-done")
EOF2
cw --profile verify --report "$O/thr.json" --trace "$O/thr.jsonl" -- "$CW_PY" "$T/thr.py" >"$O/thr.out" 2>&1
expect_rc 0 "a name resolved in a thread: $(cat "$O/thr.out")"
grep -qx thr-done "$O/thr.out" || fail "thr.py: $(cat "$O/thr.out")"
report_assert "$O/thr.json" "d['stats']['annotations']['malformed'] == 0"
trace_assert "$O/thr.jsonl" "[e for e in ops(syscall='connect') if e.get('scope') == '127.0.0.1:9' and e.get('host') == 'localhost']"

# Execs in four parallel loops: a message whose sender's exec is still
# queued on the kernel back end's connector has that exec read first,
# which drains the channel again (cw_annot_exec) while the first drain
# holds unread messages in its buffers. Nothing honest is malformed.
cw --report "$O/par.json" -- sh -c 'for j in 1 2 3 4; do ( i=0; while [ $i -lt 150 ]; do /bin/true; sh -c "exec /bin/true"; i=$((i+1)); done ) & done; wait'
expect_rc 0 "parallel exec loops"
report_assert "$O/par.json" "d['stats']['annotations']['malformed'] == 0" \
	"d['stats']['annotations']['accepted'] >= 4 * 150 * 3"

"$CW_PY" - "$O" "$PL_BIN/pl_robust" <<'PYEOF' || fail "report checks"
import json, os, sys
O, prog = sys.argv[1], os.path.realpath(sys.argv[2])
bad = []
def check(c, what):
    if not c:
        bad.append(what)
r = json.load(open(f"{O}/r.json"))
check(r["outcome"]["kind"] == "success", f"outcome {r['outcome']['kind']}")
check(r["stats"]["annotations"]["malformed"] == 0, f"malformed {r['stats']['annotations']}")
execd = [p for p in r["processes"] if p["exe"]]
sh = os.path.realpath("/bin/sh")
shells = [p for p in execd if os.path.realpath(p["exe"]) == sh]
# vfork child, empty-environment child, system, popen: four shells.
check(len(shells) >= 4, f"{len(shells)} shells in the report")
for p in execd:
    check(p["preload"] == "present", f"{p['exe']} {p['argv']}: preload {p['preload']}")
cleared = [p for p in shells if "echo env-cleared-child ran" in p["argv"]]
check(cleared and cleared[0]["preload"] == "present", "the child exec'd with an empty environment lost the preload")
e = json.load(open(f"{O}/envu.json"))
tr = [p for p in e["processes"] if p["exe"] and os.path.basename(p["exe"]) == "true"]
check(tr and tr[0]["preload"] == "present", f"env -u LD_PRELOAD: true has preload {[p['preload'] for p in tr]}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
exit 0
