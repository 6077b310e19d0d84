#!/bin/sh
# --max-procs without a pids cgroup (issue 4 item 5, session-1 note (f)):
# the ptrace tracker counts the tree's tasks and SIGKILLs each new one past
# the limit in its first stop. CAPWATCH_TEST_NO_CGROUP=1 (read by
# supervisor/limits.c, for tests only) makes capwatch skip the cgroup so
# the fallback runs on any machine.
#
# A bounded bomb: 200 forks, each child sleeping 2 s, so every child that
# survives is still alive when the loop ends (the loop takes well under
# 2 s: checked). Under --max-procs 30 the tree is python plus its children:
# at most 29 may survive, with no slack, because the tracker counts a
# child at its fork event before the child runs and killed ones stay
# counted until reaped (as pids.max counts them). The rest must be killed
# by SIGKILL, capwatch must keep answering (a write after the bomb), exit
# with the command's own status (0), and name the layer.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat > "$T/bomb.py" <<'PY'
import os, signal, sys, time
pids = []
t0 = time.monotonic()
for i in range(200):
    p = os.fork()
    if p == 0:
        time.sleep(2)
        os._exit(0)
    pids.append(p)
loop = time.monotonic() - t0
with open("after", "w") as f:   # notified: capwatch must still answer
    f.write("started\n")
ok = killed = other = 0
for p in pids:
    _, st = os.waitpid(p, 0)
    if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0:
        ok += 1
    elif os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL:
        killed += 1
    else:
        other += 1
print(ok, killed, other, "%.3f" % loop)
PY
ulimit -t 60
# (The ptrace tracker's count: --backend portable. The kernel back end
# counts at the connector's fork event, after the child may have run.)
CAPWATCH_TEST_NO_CGROUP=1 CW_TIMEOUT=60 cw --backend portable --max-procs 30 --report "$O/r.json" --trace "$O/t.jsonl" \
	-- "$CW_PY" "$T/bomb.py" > "$O/out.txt" 2> "$O/err.txt"
[ $rc = 124 ] && fail "capwatch did not finish the bounded bomb in time"
[ $rc = 0 ] || fail "capwatch exited $rc, want the command's 0: $(cat "$O/err.txt")"
[ -f after ] || fail "the write after the bomb did not happen: capwatch stopped answering"
read ok killed other loop < "$O/out.txt" || fail "no result: $(cat "$O/out.txt" "$O/err.txt")"
echo "tracker count: $ok survived, $killed killed, $other other, fork loop ${loop}s"
"$PYTHON3" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 1.5 else 1)" "$loop" ||
	skip "the fork loop took ${loop}s (a loaded machine): survivors may have exited before the count"
[ "$other" = 0 ] || fail "$other children ended otherwise"
[ "$ok" -le 29 ] || fail "$ok children survived under --max-procs 30 (python + 29 at most)"
[ "$ok" -ge 20 ] || fail "only $ok children survived: the limit is counted wrong"
[ $((ok + killed)) = 200 ] || fail "survivors $ok + killed $killed != 200"
layers=$(json_get "$O/r.json" 'd["outcome"]["enforcement"]["layers"]') || fail "no report"
case $layers in
*ptrace-task-count*) ;;
*) fail "the report does not name the tracker's count: $layers" ;;
esac
case $layers in *cgroup*) fail "a cgroup layer despite CAPWATCH_TEST_NO_CGROUP: $layers" ;; esac
[ "$(json_get "$O/r.json" 'd["outcome"]["kind"]')" = success ] || fail "outcome is not success"
n=$(grep -c '"process limit 30 reached' "$O/t.jsonl")
[ "$n" -ge 1 ] || fail "no kill noted in the trace"

exit 0
