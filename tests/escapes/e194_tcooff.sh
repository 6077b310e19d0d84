#!/bin/sh
# E194 (red team 25): a terminal's output stopped. tcflow(TCOOFF)
# (ioctl TCXONC) passed in the kernel: the tree stopped the output of the
# user's terminal, and every process that wrote to it afterwards waited,
# the user's shell after the run included. Capability sought:
# process_control (processes outside the tree held), as TOSTOP (e191).
# And with output stopped (by the tree then, by the user's ^S always),
# capwatch's own warning at its timeout waited on stderr for ever: the
# tree was killed and the report written, but capwatch never exited
# (rule 3). Expected: TCOOFF on a terminal the tree did not make refused
# EPERM, recorded as process_control, a writer outside unblocked; and
# with output stopped from outside, `--timeout 2` ends capwatch (exit 124)
# within a few seconds.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/harness.py" <<'PY'
# harness.py MODE RES -- CMD: CMD in a pty session's foreground job (stdin,
# stdout, stderr on the pty). MODE after: then a writer outside the tree
# writes to the terminal, and RES says whether it got through within 2 s.
# MODE stopped: the harness stops the terminal's output first (a user's
# ^S) and RES says how CMD ended and when.
import fcntl, os, select, signal, sys, termios, time
mode, res, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
m, s = os.openpty()
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    if mode == "stopped":
        termios.tcflow(s, termios.TCOOFF)
    job = os.fork()
    if job == 0:
        for fd in (0, 1, 2):
            os.dup2(s, fd)
        os.execvp(cmd[0], cmd)
    t0 = time.time(); st = None; w = 0
    while time.time() < t0 + (10 if mode == "stopped" else 25):
        w, st = os.waitpid(job, os.WNOHANG)
        if w: break
        time.sleep(0.05)
    took = time.time() - t0
    js = "none" if not w else ("killed %d" % os.WTERMSIG(st) if os.WIFSIGNALED(st) else "exit %d" % os.WEXITSTATUS(st))
    out = "job %s after %.1fs" % (js, took)
    if not w:
        os.kill(job, signal.SIGKILL); os.waitpid(job, 0)
    if mode == "after":
        wr = os.fork()
        if wr == 0:
            os.write(s, b"outside writer\n")
            os._exit(0)
        t1 = time.time(); w2 = 0
        while time.time() < t1 + 2:
            w2, _ = os.waitpid(wr, os.WNOHANG)
            if w2: break
            time.sleep(0.05)
        out += " writer %s" % ("done" if w2 else "blocked")
        if not w2:
            termios.tcflow(s, termios.TCOON)
            os.waitpid(wr, 0)
    termios.tcflow(s, termios.TCOON)
    open(res, "w").write(out + "\n")
    os._exit(0)
os.close(s)
end = time.time() + 40
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
flow='import os, sys, termios
try:
    termios.tcflow(1, termios.TCOOFF)
    sys.exit(10)
except termios.error as e:
    sys.exit(20 + e.args[0])'
# Positive control: bare, the tree's TCOOFF holds a writer outside.
timeout -k 5 60 "$CW_PY" "$T/harness.py" after "$O/bare" -- "$PY" -c "$flow" >/dev/null 2>&1
grep -q "job exit 10 .*writer blocked" "$O/bare" || esc_control_failed "bare: the writer outside was not held: $(cat "$O/bare" 2>/dev/null)"
for p in readonly verify; do
	R=$O/report-$p.json
	timeout -k 5 60 "$CW_PY" "$T/harness.py" after "$O/cw-$p" -- "$CAPWATCH" --profile $p \
		--timeout 20 --report "$R" -- "$PY" -c "$flow" >/dev/null 2>&1
	[ -s "$O/cw-$p" ] || fail "$p: the harness wrote no result"
	grep -q "writer done" "$O/cw-$p" ||
		esc_bypass "$p: the tree stopped the terminal's output, a writer outside waits: $(cat "$O/cw-$p")"
	grep -q "job exit 21 " "$O/cw-$p" || fail "$p: the tree's TCOOFF was not refused with EPERM (exit 21): $(cat "$O/cw-$p")"
	OUT=$O/cw-$p
	expect_denied process_control
done
# Output stopped from outside (the user's ^S): the timeout still ends
# capwatch. Control: a plain writer is held while the output is stopped.
timeout -k 5 60 "$CW_PY" "$T/harness.py" stopped "$O/bare2" -- sh -c 'echo held' >/dev/null 2>&1
grep -q "job none" "$O/bare2" || esc_control_failed "bare: a writer was not held by the stopped output: $(cat "$O/bare2" 2>/dev/null)"
R=$O/report-stopped.json
timeout -k 5 60 "$CW_PY" "$T/harness.py" stopped "$O/cw-stopped" -- "$CAPWATCH" --profile readonly \
	--timeout 2 --report "$R" -- sleep 30 >/dev/null 2>&1
grep -q "job exit 124" "$O/cw-stopped" ||
	esc_bypass "capwatch did not end at its timeout with the terminal's output stopped: $(cat "$O/cw-stopped" 2>/dev/null)"
OUT=$O/cw-stopped
report_has 'd["outcome"]["kind"] == "timed_out"'
exit 0
