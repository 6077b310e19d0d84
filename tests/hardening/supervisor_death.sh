#!/bin/sh
# If capwatch dies, the tree dies (issue 4 item 5): capwatch is SIGKILLed
# by pid while its command runs a canary sleeper and a writer; both must be
# gone within seconds (EXITKILL, PDEATHSIG), and no write may succeed after
# the supervisor's death: a notified call still pending then fails ENOSYS
# (the listener is released before the tracees are killed).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat > "$T/writer.py" <<'PY'
import os, sys, time, subprocess
c = subprocess.Popen(["sleep", "300." + sys.argv[1]])
open("canary.pid", "w").write("%d\n" % c.pid)
open("writer.pid", "w").write("%d\n" % os.getpid())
i = 0
while True:
    i += 1
    try:
        fd = os.open("w%d" % (i % 8), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.close(fd)
        r = "ok"
    except OSError as e:
        r = "err %d" % e.errno
    os.write(2, ("%s %.6f\n" % (r, time.time())).encode())
PY
"$CAPWATCH" --report "$O/r.json" -- "$CW_PY" "$T/writer.py" $$ 2> "$O/log.txt" &
cwpid=$!
for i in $(seq 100); do [ -s canary.pid ] && [ -s writer.pid ] && break; sleep 0.1; done
[ -s canary.pid ] || { kill -9 $cwpid; fail "the command did not start: $(tail -3 "$O/log.txt")"; }
sleep 0.5
# Their pids in this test's numbering, found by their command lines (the
# numbers they wrote are their own PID namespace's under
# CAPWATCH_KERNEL_READS=1).
by_cmdline() { # EXACT-CMDLINE (arguments joined by spaces)
	for f in /proc/[0-9]*/cmdline; do
		[ "$(tr '\0' ' ' <"$f" 2>/dev/null)" = "$1 " ] && { p=${f#/proc/}; echo "${p%/cmdline}"; return 0; }
	done
	return 1
}
canary=$(by_cmdline "sleep 300.$$") || fail "no canary found: it never started"
writer=$(by_cmdline "$CW_PY $T/writer.py $$") || fail "no writer found"
kill -0 "$canary" || fail "canary not running"
kill -KILL $cwpid
death=$(date +%s.%N)
wait $cwpid 2>/dev/null
gone=no
for i in $(seq 50); do
	if ! kill -0 "$canary" 2>/dev/null && ! kill -0 "$writer" 2>/dev/null; then gone=yes; break; fi
	sleep 0.1
done
# The run's cgroup (if any) is left behind by a SIGKILLed capwatch: remove it.
for d in /sys/fs/cgroup/pids/capwatch-$cwpid /sys/fs/cgroup/unified/capwatch-$cwpid; do
	[ -d "$d" ] && rmdir "$d" 2>/dev/null
done
[ $gone = yes ] || { kill -9 "$canary" "$writer" 2>/dev/null; fail "the tree survived capwatch's death (canary $canary, writer $writer)"; }
grep -q '^ok ' "$O/log.txt" || fail "the writer never wrote while supervised: $(tail -3 "$O/log.txt")"
# After the supervisor's death: no success, and any failure is ENOSYS.
"$PYTHON3" - "$O/log.txt" "$death" <<'PY' || fail "a write after capwatch's death did not fail ENOSYS"
import sys
death = float(sys.argv[2])
bad = [l for l in open(sys.argv[1]) if l.startswith(("ok ", "err ")) and
       float(l.split()[-1]) > death + 0.05 and not l.startswith("err 38 ")]
for l in bad:
    print("after death:", l.strip())
errs = [l for l in open(sys.argv[1]) if l.startswith("err 38 ")]
print("ENOSYS answers seen: %d" % len(errs))
sys.exit(1 if bad else 0)
PY
exit 0
