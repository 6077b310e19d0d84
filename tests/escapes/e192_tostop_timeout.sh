#!/bin/sh
# E192 (red team 23, F2): the terminal stops capwatch. capwatch runs as a
# background job of a terminal session (`capwatch --timeout 3 -- cmd
# </dev/null &` in an interactive shell): stdin not a terminal, so not
# tty mode, stderr the terminal. With TOSTOP on that terminal (the tree
# could set it from its own session; users set it with `stty tostop`),
# a write to the terminal by a background process stops its whole group
# with SIGTTOU. The watchdog writes "timeout after ..." before it kills:
# capwatch stopped there, its timeout with it, and the tree ran on with
# no time limit and no report. capwatch now keeps SIGTTOU and SIGTTIN
# blocked in every thread, so the kernel lets its writes through.
# Capability sought: escaping --timeout (the run's bound). A pty this test
# makes stands for the user's terminal.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/harness.py" <<'PY'
# harness.py RES -- CMD: a pty session whose leader (this harness's child)
# holds the foreground; CMD runs as a background job (a group of its own)
# with stdin /dev/null and stdout/stderr on the terminal, TOSTOP on.
import fcntl, os, select, signal, sys, termios, time
res, cmd = sys.argv[1], sys.argv[3:]
m, s = os.openpty()
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    a = termios.tcgetattr(s)
    a[3] |= termios.TOSTOP
    termios.tcsetattr(s, termios.TCSANOW, a)
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)  # a background job: the leader keeps the foreground
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        n = os.open("/dev/null", os.O_RDONLY)
        os.dup2(n, 0)
        os.dup2(s, 1)
        os.dup2(s, 2)
        os.execvp(cmd[0], cmd)
    t0 = time.time(); st = None
    while time.time() < t0 + 20:
        w, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if w: break
        time.sleep(0.05)
    js = ("none" if not w else "stopped %d" % os.WSTOPSIG(st) if os.WIFSTOPPED(st) else
          "killed %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st))
    open(res, "w").write("job %s after %.1fs\n" % (js, time.time() - t0))
    try:  # a stopped capwatch: end it (and so the tree, by its exit kill)
        os.killpg(job, signal.SIGKILL); os.killpg(job, signal.SIGCONT)
    except OSError:
        pass
    try:
        os.waitpid(job, 0)
    except OSError:
        pass
    os._exit(0)
os.close(s)
end = time.time() + 30
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
# Positive control: a background job that writes to the terminal with
# TOSTOP on is stopped by the kernel.
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/bare" -- sh -c 'sleep 0.5; echo hello' >/dev/null 2>&1
grep -q "job stopped 22" "$O/bare" || esc_control_failed "bare: the background writer was not stopped by SIGTTOU: $(cat "$O/bare" 2>/dev/null)"
R=$O/report.json
timeout -k 5 60 "$CW_PY" "$T/harness.py" "$O/cw" -- "$CAPWATCH" --profile readonly --timeout 3 \
	--report "$R" -- sleep 30 >/dev/null 2>&1
[ -s "$O/cw" ] || fail "the harness wrote no result"
grep -q "job exit 124" "$O/cw" || esc_bypass "capwatch did not end the run at its timeout: $(cat "$O/cw")"
report_has 'd["outcome"]["kind"] == "timed_out"'
exit 0
