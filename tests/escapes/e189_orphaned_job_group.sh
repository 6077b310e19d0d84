#!/bin/sh
# E189 (red team 21): an orphaned process group. In tty mode the command
# shares capwatch's process group, the terminal's foreground job. When
# that job is led by the session's leader (capwatch run by `script -c`,
# `ssh -t`, `docker run -t`, tmux or screen directly; not an interactive
# shell's job, whose shell links the group to the session), the tree could
# make the group orphaned while one of its members is stopped: a child
# moves to a group of its own (setpgid), its child in the job's group
# stops itself, the first exits. The kernel then signals the whole group
# (kill_orphaned_pgrp: SIGHUP and SIGCONT), a victim outside the tree
# included. Nothing is notified: setpgid and the stop are the tree's own
# business. Capability sought: process_control. Fixed by tty_link.c:
# capwatch keeps the job's group linked to its session for the run (a
# helper in another group of the session with a child in the job's
# group), so the group is never orphaned. Bare, the victim gets SIGCONT
# (the positive control); under capwatch it must get nothing.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/harness.py" <<'PY'
# harness.py RES -- CMD: a pty session (leader = this harness's child) whose
# foreground job is the leader's own group: a victim (sleep) and CMD.
import fcntl, os, select, signal, sys, termios, time
res, cmd = sys.argv[1], sys.argv[3:]
m, s = os.openpty()
import struct; fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    v = os.fork()
    if v == 0:
        for sg in (signal.SIGHUP, signal.SIGCONT, signal.SIGTERM, signal.SIGWINCH, signal.SIGIO, signal.SIGURG):
            signal.signal(sg, lambda n, f: open(res + ".sig", "a").write(signal.Signals(n).name + "\n"))
        signal.signal(signal.SIGTTOU, signal.SIG_DFL); signal.signal(signal.SIGTTIN, signal.SIG_DFL)
        time.sleep(60)
        os._exit(0)
    job = os.fork()
    if job == 0:
        for fd in (0, 1, 2):
            os.dup2(s, fd)
        os.execvp(cmd[0], cmd)
    for sg in (signal.SIGHUP, signal.SIGTERM, signal.SIGIO, signal.SIGTTOU):
        signal.signal(sg, signal.SIG_IGN)
    t0 = time.time(); st = None
    while time.time() < t0 + 30:
        w, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if w: break
        time.sleep(0.05)
    time.sleep(0.5)
    w, vst = os.waitpid(v, os.WNOHANG | os.WUNTRACED)
    vs = "running" if not w else ("stopped %d" % os.WSTOPSIG(vst) if os.WIFSTOPPED(vst) else ("killed %d" % os.WTERMSIG(vst) if os.WIFSIGNALED(vst) else "exited"))
    js = "none" if st is None else ("stopped %d" % os.WSTOPSIG(st) if os.WIFSTOPPED(st) else ("killed %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st)))
    sigs = open(res + ".sig").read().split() if os.path.exists(res + ".sig") else []
    open(res, "w").write("victim %s signals %s job %s after %.1fs\n" % (vs, ",".join(sigs) or "none", js, time.time() - t0))
    for p in (v, job):
        try:
            os.kill(p, signal.SIGCONT); os.kill(p, signal.SIGKILL); os.waitpid(p, 0)
        except OSError:
            pass
    os._exit(0)
os.close(s)
out = b""
end = time.time() + 45
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        try:
            d = os.read(m, 65536)
            if not d: break
            out += d
        except OSError:
            break
    if os.waitpid(leader, os.WNOHANG)[0]:
        break
open(res + ".out", "wb").write(out)
PY
cat >"$T/orphan.py" <<'PY'
# Tree side: make capwatch's process group orphaned with a stopped member.
import os, signal, sys, time
print("C pid", os.getpid(), "pgrp", os.getpgrp(), "sid", os.getsid(0), flush=True)
p = os.fork()
if p == 0:
    t = os.fork()
    if t == 0:
        os.kill(os.getpid(), signal.SIGSTOP)  # a stopped member of the job's group
        os._exit(0)
    os.setpgid(0, 0)  # P: a group of its own in the same session
    os.waitpid(t, os.WUNTRACED)
    os._exit(0)       # P exits: T reparented, the job's group orphaned
os.waitpid(p, 0)
time.sleep(3)
print("C-END", flush=True)
PY
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/bare" -- "$PY" "$T/orphan.py" >/dev/null 2>&1
grep -q "signals.*SIGCONT" "$O/bare" || esc_control_failed "bare: the victim got no SIGCONT: $(cat "$O/bare" 2>/dev/null)"
R=$O/report1.json
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/cw" -- "$CAPWATCH" --profile readonly --timeout 20 \
	--report "$R" -- "$PY" "$T/orphan.py" >/dev/null 2>&1
[ -s "$O/cw" ] || fail "the harness wrote no result"
grep -q "victim running signals none" "$O/cw" ||
	esc_bypass "the kernel signalled the victim outside the tree through the orphaned job group: $(cat "$O/cw")"
exit 0
