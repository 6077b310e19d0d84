#!/bin/sh
# E182 (red team 19): signals the kernel sends by itself to processes
# outside the tree, through the terminal, with no kill() and no pid named.
# A pty that this test makes stands for the user's terminal: a session
# whose foreground job holds a victim (outside the tree) and the command.
#  A  O_ASYNC on the terminal (F_SETFL): with no owner set, the kernel
#     makes the terminal's foreground group the owner (tty_fasync); with
#     F_SETSIG(SIGTERM), filling the terminal kills that group: the victim.
#     Stdin on the terminal (tty mode: the command shares the job) and
#     stdin /dev/null (the command in a session of its own, only its
#     stdout on the terminal).
#  B  an owner that a process outside set on the terminal before the run
#     (O_ASYNC turned on and off again): the tree only picks the signal
#     (F_SETSIG) and turns O_ASYNC on.
#  C  job control: a child takes the foreground (TIOCSPGRP), then a read
#     from the job left in the background makes the kernel stop that whole
#     job with SIGTTIN: the victim and capwatch.
#  D  TIOCSWINSZ: SIGWINCH to the terminal's foreground job.
# Capability sought: process_control. Expected: each refused EPERM and
# recorded as a process_control denial; the victim untouched. A runs
# without Landlock (whose signal scope, ABI 6, stops that delivery by
# itself), B, C and D with it (they are not stopped by it).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
# The terminal and its job, outside capwatch: harness.py KIND RES -- CMD.
# KIND: tty (stdin, stdout and stderr on the pty), null (stdin /dev/null),
# preset (tty, with an owner set on the terminal first), job (C and D:
# the job in a group of its own that the harness puts in the foreground,
# as an interactive shell does).
cat >"$T/harness.py" <<'PY'
import fcntl, os, select, signal, struct, sys, termios, time
kind, res, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
m, s = os.openpty()
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    if kind == "job":
        go_r, go_w = os.pipe()
        job = os.fork()
        if job == 0:
            os.setpgid(0, 0)
            os.read(go_r, 1)
            for fd in (0, 1, 2):
                os.dup2(s, fd)
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            os.execvp(cmd[0], cmd)
        os.setpgid(job, job)
        v = os.fork()
        if v == 0:
            signal.signal(signal.SIGWINCH, lambda *a: open(res + ".sig", "a").write("SIGWINCH\n"))
            signal.signal(signal.SIGTTOU, signal.SIG_DFL)
            time.sleep(60)
            os._exit(0)
        try:
            os.setpgid(v, job)
        except OSError:
            pass
        os.tcsetpgrp(s, job)
        time.sleep(0.3)
        os.write(go_w, b"g")
    else:
        v = os.fork()
        if v == 0:
            os.execvp("sleep", ["sleep", "60"])
        if kind == "preset":
            fl = fcntl.fcntl(s, fcntl.F_GETFL)
            fcntl.fcntl(s, fcntl.F_SETFL, fl | os.O_ASYNC)
            fcntl.fcntl(s, fcntl.F_SETFL, fl)
        job = os.fork()
        if job == 0:
            os.dup2(s, 1)
            os.dup2(s, 2)
            os.dup2(s if kind != "null" else os.open("/dev/null", os.O_RDONLY), 0)
            os.execvp(cmd[0], cmd)
        for sg in (signal.SIGTERM, signal.SIGIO, signal.SIGHUP):
            signal.signal(sg, signal.SIG_IGN)
    st = None
    end = time.time() + 30
    while time.time() < end:
        w, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if w:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    w, vst = os.waitpid(v, os.WNOHANG | os.WUNTRACED)
    if not w:
        vs = "running"
    elif os.WIFSTOPPED(vst):
        vs = "stopped %d" % os.WSTOPSIG(vst)
    elif os.WIFSIGNALED(vst):
        vs = "killed %d" % os.WTERMSIG(vst)
    else:
        vs = "exited"
    sigs = open(res + ".sig").read().split() if os.path.exists(res + ".sig") else []
    cs = "stopped" if st is not None and os.WIFSTOPPED(st) else "ended"
    with open(res, "w") as f:
        f.write("victim %s signals %s job %s\n" % (vs, ",".join(sigs) or "none", cs))
    for p in (v, job):
        try:
            os.kill(p, signal.SIGCONT)
            os.kill(p, signal.SIGKILL)
            os.waitpid(p, 0)
        except OSError:
            pass
    os._exit(0)
os.close(s)
time.sleep(1.5)  # a terminal a little behind its output
end = time.time() + 40
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        try:
            if not os.read(m, 65536):
                break
        except OSError:
            break
    if os.waitpid(leader, os.WNOHANG)[0]:
        break
PY
# The tree's side: att.py CASE.
cat >"$T/att.py" <<'PY'
import fcntl, os, signal, struct, sys, termios, time
case = sys.argv[1]
if case == "fasync":
    # The terminal a little behind its reader (the harness reads after
    # 1.5 s of nothing), the tree writes until its buffer is full.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    try:
        fcntl.fcntl(1, 10, signal.SIGTERM)  # F_SETSIG
        fl = fcntl.fcntl(1, fcntl.F_GETFL)
        fcntl.fcntl(1, fcntl.F_SETFL, fl | os.O_ASYNC | os.O_NONBLOCK)
    except OSError as e:
        sys.stderr.write("refused %d\n" % e.errno)
        sys.exit(0)
    n = 0
    try:
        while n < 1 << 20:
            n += os.write(1, b"." * 4096)
    except BlockingIOError:
        pass
    time.sleep(2)
elif case == "winch":
    ws = fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8)
    r, c = struct.unpack("HH", ws[:4])
    try:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", r + 1, c + 1, 0, 0))
    except OSError as e:
        sys.stderr.write("refused %d\n" % e.errno)
    time.sleep(1)
else:  # ttin
    rd, wr = os.pipe()
    p = os.fork()
    if p == 0:
        os.setpgid(0, 0)
        os.write(wr, b"x")
        time.sleep(3)
        os._exit(0)
    os.read(rd, 1)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    try:
        os.tcsetpgrp(0, p)
    except OSError as e:
        sys.stderr.write("refused %d\n" % e.errno)
        os.kill(p, signal.SIGKILL)
        os.waitpid(p, 0)
        sys.exit(0)
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    try:
        os.read(0, 1)
    except OSError:
        pass
    os.waitpid(p, 0)
PY
# run KIND CASE [capwatch options]: the case bare (no options) or under
# capwatch --profile readonly OPTS; its result line in $res.
run() {
	_k=$1 _c=$2
	shift 2
	N=$((N + 1))
	res=$O/res$N
	R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	if [ "${1:-}" = bare ]; then
		timeout -k 5 60 "$CW_PY" "$T/harness.py" "$_k" "$res" -- "$PY" "$T/att.py" "$_c" >/dev/null 2>&1
	else
		timeout -k 5 60 "$CW_PY" "$T/harness.py" "$_k" "$res" -- "$CAPWATCH" --profile readonly \
			--report "$R" --trace "$TR" "$@" -- "$PY" "$T/att.py" "$_c" >/dev/null 2>&1
	fi
	[ -s "$res" ] || fail "$_k/$_c: the harness wrote no result"
	got=$(cat "$res")
}
N=0
for kc in tty:fasync null:fasync preset:fasync job:ttin job:winch; do
	k=${kc%%:*} c=${kc#*:}
	case $kc in
	*fasync) ll=--no-landlock ;;
	*) ll= ;;
	esac
	[ $k = preset ] && ll=
	run "$k" "$c" bare
	case $c in
	fasync) want="victim killed 15" ;;
	ttin) want="victim stopped 21" ;;
	winch) want="signals SIGWINCH" ;;
	esac
	case $got in
	*"$want"*) ;;
	*) esc_control_failed "$k/$c bare: wanted '$want': $got" ;;
	esac
	# shellcheck disable=SC2086
	run "$k" "$c" $ll
	case $got in
	*"victim running signals none job ended"*) ;;
	*) esc_bypass "$k/$c under readonly $ll: $got" ;;
	esac
	[ -s "$R" ] || fail "$k/$c: no report"
	expect_denied process_control
done
exit 0
