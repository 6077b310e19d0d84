#!/bin/sh
# On a terminal capwatch stays a drop-in: the command sees its stdin and
# stdout as the terminal, and Ctrl-C typed on the terminal reaches it (its
# own exit status comes back). Driven through a pseudo-terminal by python.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

cat > "$O/drive.py" <<'PY'
import os, pty, select, signal, sys, time
# drive.py SEND_CTRL_C OUT -- ARGV...: run ARGV on a new pty, collect its
# output (30 s at most); with SEND_CTRL_C=1 type ^C once "ready" shows up.
ctrl_c, out = sys.argv[1] == "1", sys.argv[2]
argv = sys.argv[4:]
pid, fd = pty.fork()
if pid == 0:
	# A terminal's session starts with Ctrl-C not ignored, whatever the
	# test's launcher did (a background job of a shell ignores SIGINT)
	signal.signal(signal.SIGINT, signal.SIG_DFL)
	os.execv(argv[0], argv)
buf, sent, deadline = b"", False, time.time() + 30
while time.time() < deadline:
	r, _, _ = select.select([fd], [], [], 0.2)
	if r:
		try:
			data = os.read(fd, 4096)
		except OSError:
			break
		if not data:
			break
		buf += data
	if ctrl_c and not sent and b"ready" in buf:
		os.write(fd, b"\x03")
		sent = True
	done, st = os.waitpid(pid, os.WNOHANG)
	if done:
		try:
			while True:
				r, _, _ = select.select([fd], [], [], 0.2)
				if not r:
					break
				data = os.read(fd, 4096)
				if not data:
					break
				buf += data
		except OSError:
			pass
		break
else:
	os.kill(pid, 9)
	done, st = os.waitpid(pid, 0)
	buf += b"\nDRIVER-TIMEOUT"
if not done:
	done, st = os.waitpid(pid, 0)
open(out, "wb").write(buf)
sys.exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st))
PY

"$CW_PY" "$O/drive.py" 0 "$O/t1.out" -- "$CAPWATCH" --report "$O/t1.json" -- sh -c 'test -t 0 && test -t 1 && echo "IS-A-TTY"; exit 3'
rc=$?
expect_rc 3 "on a pty: exit status"
grep -q IS-A-TTY "$O/t1.out" || fail "on a pty: the command did not see a terminal: $(cat "$O/t1.out")"
report_assert "$O/t1.json" "outcome['exit']['code'] == 3"

"$CW_PY" "$O/drive.py" 1 "$O/t2.out" -- "$CAPWATCH" --report "$O/t2.json" -- sh -c "
	trap 'echo got-int; exit 5' INT
	echo ready
	i=0; while [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
	exit 9"
rc=$?
! grep -q DRIVER-TIMEOUT "$O/t2.out" || fail "Ctrl-C on a pty: capwatch did not finish in 30 s"
expect_rc 5 "Ctrl-C on a pty"
grep -q got-int "$O/t2.out" || fail "Ctrl-C on a pty: the command did not see SIGINT: $(cat "$O/t2.out")"
report_assert "$O/t2.json" "outcome['exit']['code'] == 5"
exit 0
