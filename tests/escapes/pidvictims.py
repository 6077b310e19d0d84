# pidvictims.py WORKDIR MAX DONE: victims outside the supervised tree at
# the pids the tree's program listed (tests/escapes/e137*).
#
# Waits (120 s at most) for WORKDIR/released, reads WORKDIR/holders (pids
# of processes of the tree that have exited), starts up to MAX `sleep 120`
# children of its own at those very pids (ns_last_pid: root), lists the
# ones placed in WORKDIR/go, then waits for the file DONE and reports each
# victim as "VICTIM pid nofile=N alive=0|1 signal=S", kills and reaps them.
# Only its own children are ever signalled (they stay unreaped until then,
# so their pids cannot be anyone else's).
import os, sys, time

wd, mx, done = sys.argv[1], int(sys.argv[2]), sys.argv[3]
end = time.time() + 120
while not os.path.exists(os.path.join(wd, "released")):
    if time.time() > end:
        print("NO-RELEASE"); sys.exit(3)
    time.sleep(0.05)
holders = [int(x) for x in open(os.path.join(wd, "holders")).read().split()]
got = []
for h in holders:
    if len(got) >= mx:
        break
    if os.path.exists("/proc/%d" % h):
        continue
    for attempt in range(3):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(h - 1))
        pid = os.fork()
        if pid == 0:
            try:
                os.execv("/bin/sleep", ["sleep", "120"])
            finally:
                os._exit(127)
        if pid == h:
            got.append(pid)
            break
        os.kill(pid, 9)
        os.waitpid(pid, 0)
tmp = os.path.join(wd, "go.tmp")
with open(tmp, "w") as f:
    f.write("".join("%d\n" % p for p in got))
os.rename(tmp, os.path.join(wd, "go"))
print("PLACED %d of %d" % (len(got), len(holders)), flush=True)
end = time.time() + 150
while not os.path.exists(done) and time.time() < end:
    time.sleep(0.1)
for p in got:
    nofile = "?"
    try:
        for line in open("/proc/%d/limits" % p):
            if line.startswith("Max open files"):
                nofile = line.split()[3]
    except OSError:
        pass
    r, st = os.waitpid(p, os.WNOHANG)
    alive = 1 if r == 0 else 0
    sig = os.WTERMSIG(st) if r and os.WIFSIGNALED(st) else 0
    print("VICTIM %d nofile=%s alive=%d signal=%d" % (p, nofile, alive, sig), flush=True)
    if alive:
        os.kill(p, 9)
        os.waitpid(p, 0)
