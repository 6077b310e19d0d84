#!/bin/sh
# A fork bomb under --max-procs 50 stays bounded (issue 4 item 5): forks
# past the limit fail with EAGAIN, capwatch keeps answering (a write after
# the bomb is decided and done) and exits with the tree gone. Bounded
# itself: 200 forks at most, CPU time limited, the whole run under timeout.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat > "$T/bomb.py" <<'PY'
import os, time
pids, fails = [], 0
for i in range(200):
    try:
        p = os.fork()
    except OSError:
        fails += 1
        continue
    if p == 0:
        time.sleep(2)
        os._exit(0)
    pids.append(p)
with open("after", "w") as f:   # notified: capwatch must still answer
    f.write("%d %d\n" % (len(pids), fails))
for p in pids:
    os.waitpid(p, 0)
PY
ulimit -t 60
CW_TIMEOUT=60 cw --max-procs 50 --report "$O/r.json" -- "$CW_PY" "$T/bomb.py" 2> "$O/err.txt"
[ $rc = 124 ] && fail "capwatch did not finish the bounded bomb in time"
layers=$(json_get "$O/r.json" 'd["outcome"]["enforcement"]["layers"]') || fail "no report: $(cat "$O/err.txt")"
case $layers in
*cgroup-v*-pids*) ;;
*) skip "no writable cgroup with the pids controller: the process limit is not enforced here ($layers)" ;;
esac
[ $rc = 0 ] || fail "the command failed ($rc): $(cat "$O/err.txt")"
[ -f after ] || fail "the write after the bomb did not happen: capwatch stopped answering"
read n fails < after
[ "$n" -lt 50 ] || fail "$n processes started under --max-procs 50"
[ "$fails" -gt 0 ] || fail "no fork failed under --max-procs 50 ($n started)"
echo "fork bomb: $n started, $fails refused"
exit 0
