#!/bin/sh
# E193 (red team 23): joining a process group outside the tree. In tty
# mode the command shares capwatch's session with the user's shell and
# its other jobs, and the kernel lets a process join any group of its
# session (setpgid). From a group that is not the terminal's foreground,
# a read of the terminal makes the kernel send SIGTTIN to that whole
# group: the tree joins the group of the user's background job and reads
# its stdin, and the job is stopped. Nothing else is notified. Capability
# sought: process_control. Expected: setpgid into that group refused
# (EPERM), recorded as process_control; the victim gets nothing. A new
# group of the tree's own stays allowed (the same run also makes one).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/harness.py" <<'PY'
# harness.py RES -- CMD: a pty session; its leader's group is the
# foreground job running CMD (tty mode); a victim sleeps in a background
# job of its own, recording the signals it gets. Its pid is in RES.vpid.
import fcntl, os, select, signal, struct, sys, termios, time
res, cmd = sys.argv[1], sys.argv[3:]
m, s = os.openpty()
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    v = os.fork()
    if v == 0:
        os.setpgid(0, 0)  # the user's background job
        for sg in (signal.SIGTTIN, signal.SIGTTOU, signal.SIGHUP, signal.SIGCONT):
            signal.signal(sg, lambda n, f: open(res + ".sig", "a").write(signal.Signals(n).name + "\n"))
        time.sleep(30)
        os._exit(0)
    try:
        os.setpgid(v, v)
    except OSError:
        pass
    open(res + ".vpid", "w").write("%d\n" % v)
    job = os.fork()
    if job == 0:
        for fd in (0, 1, 2):
            os.dup2(s, fd)
        os.execvp(cmd[0], cmd)
    t0 = time.time(); st = None
    while time.time() < t0 + 30:
        w, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if w: break
        time.sleep(0.05)
    time.sleep(0.5)
    sigs = open(res + ".sig").read().split() if os.path.exists(res + ".sig") else []
    js = "none" if not w else ("stopped" if os.WIFSTOPPED(st) else "exit %d" % os.WEXITSTATUS(st) if os.WIFEXITED(st) else "killed")
    open(res, "w").write("victim signals %s job %s\n" % (",".join(sigs) or "none", js))
    for p in (v, job):
        try:
            os.kill(p, signal.SIGKILL); os.waitpid(p, 0)
        except OSError:
            pass
    os._exit(0)
os.close(s)
end = time.time() + 45
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        try:
            if not os.read(m, 65536): break
        except OSError:
            break
    if os.waitpid(leader, os.WNOHANG)[0]:
        break
PY
cat >"$T/join.py" <<'PY'
# Tree side: a new group of our own is fine; then the victim's group, and
# a read of the terminal from there.
import os, signal, sys, time
res = sys.argv[1]
time.sleep(0.3)
v = int(open(res + ".vpid").read())
c = os.fork()
if c == 0:
    os.setpgid(0, 0)
    os._exit(0)
os.waitpid(c, 0)
c = os.fork()
if c == 0:
    signal.signal(signal.SIGTTIN, signal.SIG_IGN)  # not stopped ourselves: EIO instead
    try:
        os.setpgid(0, v)
        print("JOINED", flush=True)
    except OSError as e:
        print("SETPGID", e.errno, flush=True)
        os._exit(0)
    signal.signal(signal.SIGTTIN, signal.SIG_DFL)
    try:
        os.read(0, 1)
    except OSError:
        pass
    os._exit(0)
time.sleep(1.5)
try:
    os.kill(c, signal.SIGKILL)
except OSError:
    pass
os.waitpid(c, 0)
PY
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/bare" -- "$PY" "$T/join.py" "$O/bare" >/dev/null 2>&1
grep -q "victim signals SIGTTIN" "$O/bare" || esc_control_failed "bare: the victim's group got no SIGTTIN: $(cat "$O/bare" 2>/dev/null)"
R=$O/report1.json
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/cw" -- "$CAPWATCH" --profile readonly --timeout 20 \
	--report "$R" -- "$PY" "$T/join.py" "$O/cw" >/dev/null 2>&1
[ -s "$O/cw" ] || fail "the harness wrote no result"
grep -q "victim signals none" "$O/cw" ||
	esc_bypass "a process of the tree joined a group outside it and the kernel signalled it: $(cat "$O/cw")"
OUT=$O/cw
if [ "${CAPWATCH_KERNEL_READS:-}" = 1 ]; then
	# The tree's own PID namespace: the victim's number names no group
	# there, and the kernel refuses the join by itself (ESRCH).
	exit 0
fi
expect_denied process_control
report_has '[e for e in d["denials"] if e.get("syscall") == "setpgid"]'
report_has 'not [e for e in d["denials"] if e.get("syscall") == "setpgid" and (e.get("capability") or {}).get("scope") not in ("-%d" % int(open("'"$O/cw.vpid"'").read()),)]'
exit 0
