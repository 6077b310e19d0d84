#!/bin/sh
# E195 (red team 26, 2026-12-07), kernel back end: a thread's number taken
# for a process's.
#
# Threads loop on a notified open while their process exits at once
# (exit_group from the main thread). A thread killed after its call
# reached capwatch has no /proc/TID/status left: its ids fell back to
# tgid = tid, and the caller was adopted as a process under the thread's
# number. No exit event ever names that number as a process, so the entry
# lived for the whole run (exit null), and without a connector loss
# on_exec and on_fork trust a live entry: a host process that got the
# number later was recorded as the tree's, its exec and forks in the
# report (red team 26: 6-8 such entries in 200 runs; two host processes
# recorded after a pid wrap). A caller whose ids cannot be read is now
# refused and never adopted.
# Capability sought: none directly; the report's integrity (who the
# tree's processes are), and the record of host processes as the tree's.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
cat >"$T/threads.py" <<'PY'
import os, random, sys, threading, time
def worker():
    while True:
        try:
            os.close(os.open("w.tmp", os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError:
            pass
for i in range(4):
    threading.Thread(target=worker, daemon=True).start()
time.sleep(random.random() * 0.02)
with open("tids.log", "a") as f:
    f.write(" ".join(t for t in os.listdir("/proc/self/task") if t != str(os.getpid())) + "\n")
os._exit(0)
PY
runs=${E195_RUNS:-150}
R=$O/report.json
"$CAPWATCH" --backend kernel --profile verify --timeout 200 --report "$R" -- \
	/bin/sh -c "i=0; while [ \$i -lt $runs ]; do '$PY' '$T/threads.py'; i=\$((i+1)); done" >"$O/run.out" 2>&1
[ -s "$R" ] || fail "no report: $(tail -3 "$O/run.out")"
[ "$(wc -l <tids.log)" -eq "$runs" ] || fail "the runs did not all write their threads: $(wc -l <tids.log) of $runs"
"$PY" - "$R" tids.log <<'PY' || esc_bypass "a thread's number was recorded as a process of the tree (see above)"
import json, sys
r = json.load(open(sys.argv[1]))
import os
tids = set(int(t) for line in open(sys.argv[2]) for t in line.split())
if os.environ.get("CAPWATCH_KERNEL_READS") == "1":
    tids = set()  # (numbers of the tree's own PID namespace: exit null tells)
# a thread's number adopted: listed as a thread, or with the adoption's
# marks (nothing read of it: no parent, argv or program) and never ended
bad = [p for p in r["processes"] if p["pid"] in tids or
       (p.get("exit") is None and not p.get("argv") and p.get("exe") is None and not p.get("ppid"))]
for p in bad[:5]:
    print("e195: process record", json.dumps(p), file=sys.stderr)
print("e195: %d processes recorded, %d thread numbers seen, %d bad" % (len(r["processes"]), len(tids), len(bad)), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit 0
