#!/bin/sh
# E191 (red team 23): TOSTOP on the user's terminal. The tree sets TOSTOP
# in the terminal's c_lflag (tcsetattr: ioctl TCSETS and its W, F, termios2
# and termio twins) on its stdin or stdout; from then on the kernel stops,
# with SIGTTOU, every process of a background job of that terminal's
# session as soon as it writes to the terminal: the user's own `make &`,
# outside the tree, and the setting outlives the run.
# A pty that this test makes stands for the user's terminal: its session
# holds a victim in a background job of its own (writing a line every
# 0.2 s) and capwatch as the foreground job, in tty mode (stdin, stdout
# and stderr on the terminal) or with stdin /dev/null (the command in a
# session of its own, its stdout on the terminal).
# Capability sought: process_control. Expected: the call refused EPERM and
# recorded as an enforced process_control denial; the victim still
# running; TOSTOP off after the run. The ordinary case still works: the
# tree turns ECHO off, on and off again, and the terminal is left as it
# last set it.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
# The terminal and its jobs, outside capwatch: harness.py KIND RES -- CMD.
# KIND: tty (stdin, stdout and stderr on the pty), null (stdin /dev/null).
# RES gets one line: the victim's state, TOSTOP and ECHO after the run,
# the job's end; RES.tty what the terminal showed.
cat >"$T/harness.py" <<'PY'
import os, select, signal, sys, termios, time
kind, res, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
m, s = os.openpty()
leader = os.fork()
if leader == 0:
    os.close(m)
    os.setsid()
    import fcntl
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # a shell
    v = os.fork()
    if v == 0:
        # The user's background job: its own group in the session.
        os.setpgid(0, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        for i in range(300):
            os.write(s, b"victim %d\n" % i)
            time.sleep(0.2)
        os._exit(0)
    try:
        os.setpgid(v, v)
    except OSError:
        pass
    go_r, go_w = os.pipe()
    job = os.fork()
    if job == 0:
        os.setpgid(0, 0)
        os.read(go_r, 1)
        os.dup2(s, 1)
        os.dup2(s, 2)
        os.dup2(s if kind != "null" else os.open("/dev/null", os.O_RDONLY), 0)
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execvp(cmd[0], cmd)
    os.setpgid(job, job)
    os.tcsetpgrp(s, job)
    time.sleep(0.3)
    os.write(go_w, b"g")
    st = None
    end = time.time() + 30
    while time.time() < end:
        w, st = os.waitpid(job, os.WNOHANG | os.WUNTRACED)
        if w:
            break
        time.sleep(0.05)
    time.sleep(0.6)  # three more lines of the victim's
    w, vst = os.waitpid(v, os.WNOHANG | os.WUNTRACED)
    if not w:
        vs = "running"
    elif os.WIFSTOPPED(vst):
        vs = "stopped %d" % os.WSTOPSIG(vst)
    else:
        vs = "ended"
    lf = termios.tcgetattr(s)[3]
    cs = "stopped" if st is not None and os.WIFSTOPPED(st) else "ended"
    with open(res, "w") as f:
        f.write("victim %s tostop %s echo %s job %s\n" % (vs, "on" if lf & termios.TOSTOP else "off",
                "on" if lf & termios.ECHO else "off", cs))
    for p in (v, job):
        try:
            os.kill(p, signal.SIGCONT)
            os.kill(p, signal.SIGKILL)
            os.waitpid(p, 0)
        except OSError:
            pass
    os._exit(0)
os.close(s)
out = b""
end = time.time() + 40
while time.time() < end:
    r, _, _ = select.select([m], [], [], 0.2)
    if r:
        try:
            b = os.read(m, 65536)
            if not b:
                break
            out += b
        except OSError:
            break
    if os.waitpid(leader, os.WNOHANG)[0]:
        break
open(res + ".tty", "wb").write(out)
PY
# The tree's side: att.py CASE FD. Prints "refused ERRNO" or "set" for
# each call, then lets the victim write for 1.5 s.
cat >"$T/att.py" <<'PY'
import fcntl, struct, sys, termios, time
case, fd = sys.argv[1], int(sys.argv[2])
def say(w):
    sys.stderr.write("att %s\n" % w)
    sys.stderr.flush()
def attempt(f):
    try:
        f()
        say("set")
    except (OSError, termios.error) as e:
        say("refused %d" % e.args[0])
def with_lflag(get, put, size, off, fmt, on, off_bits=0):
    def f():
        b = bytearray(fcntl.ioctl(fd, get, b"\0" * size))
        lf = struct.unpack_from(fmt, b, off)[0]
        struct.pack_into(fmt, b, off, (lf | on) & ~off_bits)
        fcntl.ioctl(fd, put, bytes(b))
    return f
def tcset(when, on, off_bits=0):
    def f():
        a = termios.tcgetattr(fd)
        a[3] = (a[3] | on) & ~off_bits
        termios.tcsetattr(fd, when, a)
    return f
if case == "now":
    attempt(tcset(termios.TCSANOW, termios.TOSTOP))
elif case == "drain":
    attempt(tcset(termios.TCSADRAIN, termios.TOSTOP))
elif case == "flush":
    attempt(tcset(termios.TCSAFLUSH, termios.TOSTOP))
elif case == "termios2":  # TCGETS2, TCSETS2: struct termios2 (44 bytes)
    attempt(with_lflag(0x802C542A, 0x402C542B, 44, 12, "I", termios.TOSTOP))
elif case == "termio":  # TCGETA, TCSETAW: struct termio (18 bytes)
    attempt(with_lflag(termios.TCGETA, termios.TCSETAW, 18, 6, "H", termios.TOSTOP))
elif case == "echo":
    attempt(tcset(termios.TCSANOW, 0, termios.ECHO))
    say("echo %s" % ("on" if termios.tcgetattr(fd)[3] & termios.ECHO else "off"))
    attempt(tcset(termios.TCSADRAIN, termios.ECHO))
    say("echo %s" % ("on" if termios.tcgetattr(fd)[3] & termios.ECHO else "off"))
    attempt(tcset(termios.TCSAFLUSH, 0, termios.ECHO))
    say("echo %s" % ("on" if termios.tcgetattr(fd)[3] & termios.ECHO else "off"))
time.sleep(1.5)
PY
# run KIND CASE FD bare|PROFILE [capwatch options]: the result line in $got,
# the terminal's output in $tty.
run() {
	_k=$1 _c=$2 _fd=$3 _p=$4
	shift 4
	N=$((N + 1))
	res=$O/res$N
	R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	if [ "$_p" = bare ]; then
		timeout -k 5 60 "$CW_PY" "$T/harness.py" "$_k" "$res" -- "$PY" "$T/att.py" "$_c" "$_fd" >"$OUT" 2>&1
	else
		timeout -k 5 60 "$CW_PY" "$T/harness.py" "$_k" "$res" -- "$CAPWATCH" --profile "$_p" \
			--report "$R" --trace "$TR" "$@" -- "$PY" "$T/att.py" "$_c" "$_fd" >"$OUT" 2>&1
	fi
	[ -s "$res" ] || fail "$_k/$_c: the harness wrote no result: $(cat "$OUT")"
	got=$(cat "$res")
	tty=$(tr -d '\r' <"$res.tty" | grep '^att ' | tr '\n' ' ')
}

# Positive control: bare, the victim is stopped and TOSTOP stays on.
for kc in tty:now:0 null:now:1; do
	k=${kc%%:*} c=${kc#*:} fd=${c#*:} c=${c%:*}
	run "$k" "$c" "$fd" bare
	case $got in
	*"victim stopped 22 tostop on"*) ;;
	*) esc_control_failed "$k/$c bare: wanted the victim stopped by SIGTTOU, TOSTOP on: $got ($tty)" ;;
	esac
done

# blocked LABEL KIND CASE FD PROFILE [OPTS]: under capwatch, refused EPERM
# and recorded; the victim untouched, TOSTOP off.
blocked() {
	_l=$1
	shift
	run "$@"
	case $got in
	*"victim running tostop off"*"job ended"*) ;;
	*) esc_bypass "$_l: $got ($tty)" ;;
	esac
	case $tty in
	*"att refused 1"*) ;;
	*) fail "$_l: the call was not refused EPERM: $tty" ;;
	esac
	[ -s "$R" ] || fail "$_l: no report"
	expect_denied process_control
}
blocked "tty, TCSETS, readonly" tty now 0 readonly
blocked "tty, TCSETS, verify" tty now 0 verify
blocked "tty, TCSETSW on stdout, readonly" tty drain 1 readonly
blocked "tty, TCSETSF on stderr, readonly" tty flush 2 readonly
blocked "tty, TCSETS2, readonly" tty termios2 0 readonly
blocked "tty, TCSETAW, verify" tty termio 0 verify
blocked "stdin /dev/null, TCSETS on stdout, readonly" null now 1 readonly
blocked "tty, TCSETS, readonly, portable back end" tty now 0 readonly --backend portable
blocked "stdin /dev/null, TCSETS on stdout, verify, portable back end" null now 1 verify --backend portable

# The ordinary case: ECHO off, on, off again: each set, read back as set,
# and the terminal left with ECHO off; the victim untouched.
for b in "" "--backend portable"; do
	# shellcheck disable=SC2086
	run tty echo 0 readonly $b
	case $tty in
	*"att set att echo off att set att echo on att set att echo off"*) ;;
	*) fail "echo ${b:-default back end}: the tree's tcsetattr did not do what it asked: $tty" ;;
	esac
	case $got in
	*"victim running tostop off echo off job ended"*) ;;
	*) fail "echo ${b:-default back end}: wanted the victim running, ECHO off after the run: $got" ;;
	esac
done
exit 0
