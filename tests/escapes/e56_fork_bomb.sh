#!/bin/sh
# E56: a (bounded: 200 processes) fork bomb whose members partly setsid
# and double-fork away. With --timeout, capwatch must still answer,
# report, and leave none of them alive. (Host DoS protection needs cgroup
# v2 pids.max: not something a test on a shared machine should try.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e56_forkbomb
# alive_after FILE OP N: how many of FILE's pids still run our program
# (zombies left to an init that does not reap are dead; a recycled pid runs
# something else), counted again until "count OP N" holds (ge, eq) or a
# second has passed; one interpreter, not two greps per pid.
alive_after() {
	"$PY" - "$@" <<'PYEOF'
import re, sys, time
path, op, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    pids = open(path).read().split()
except OSError:
    pids = []
def alive(p):
    try:
        st = open("/proc/%s/status" % p).read()
        cmd = open("/proc/%s/cmdline" % p, "rb").read()
    except OSError:
        return False
    return re.search(r"^State:.*[RSD]", st, re.M) is not None and b"e56_forkbomb" in cmd
end = time.monotonic() + 1
while True:
    a = sum(alive(p) for p in pids)
    if (a >= n if op == "ge" else a == n) or time.monotonic() > end:
        break
    time.sleep(0.05)
print(a)
PYEOF
}
bare "$ESC_BIN/e56_forkbomb" 200 30 "$T/bare.pids"
a=$(alive_after "$T/bare.pids" ge 150)
# The bare bomb's processes are this test's own: end them by pid.
for p in $(cat "$T/bare.pids"); do kill -9 "$p" 2>/dev/null; done
[ "$a" -ge 150 ] || esc_control_failed "only $a of 200 bare processes outlived their launcher"
start=$(date +%s)
under verify --timeout 3 -- sh -c "'$ESC_BIN/e56_forkbomb' 200 30 '$W/pids'; sleep 30"
took=$(( $(date +%s) - start ))
a=$(alive_after "$W/pids" eq 0)
n=$(wc -l <"$W/pids" 2>/dev/null || echo 0)
for p in $(cat "$W/pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
[ "$a" = 0 ] || esc_bypass "$a of $n fork-bomb processes survived capwatch --timeout 3"
[ "$took" -le 20 ] || fail "capwatch needed ${took}s to end a 200-process tree"
report_has 'outcome["kind"] == "timed_out"'
