#!/bin/sh
# Opens of /proc, /sys, devices and FIFOs are performed by capwatch itself
# (supervisor/handlers/fs_special.c): they must still work as they do bare,
# under --profile readonly and verify, and the trace must say
# "verified": true for them. O_PATH opens are the one kind still continued
# ("verified": false). The escape side is tests/escapes/e17e, e17f, e17g.
# Where reads are decided in the kernel (CAPWATCH_KERNEL_READS=1) the
# read-only ones are not notified: the test checks what that mode does.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
PTYRUN=$top_srcdir/tests/escapes/ptyrun.py
sysfile=/sys/devices/system/cpu/online
[ -r "$sysfile" ] || sysfile=/sys/kernel/uevent_seqnum
[ -r "$sysfile" ] || skip "no readable /sys file"

# One script, bare and under each profile: its output must not change.
cat >"$T/probe.sh" <<EOF2
head -1 /proc/self/status
ls /proc/self/fd | sort -n | head -3 | tr '\n' ' '; echo
head -c 16 /dev/urandom | wc -c
cat $sysfile
grep -c . /proc/self/maps >/dev/null && echo maps-ok
tr '\0' '\n' </proc/self/environ | grep -c '^PATH=' 
"$CW_PY" -c 'import os; m, s = os.openpty(); os.write(s, b"ping\n"); print("ptmx", os.read(m, 5), os.ttyname(s).startswith("/dev/pts/"))'
"$CW_PY" "$T/ptyprobe.py"
EOF2
# A pty of the tree's own: sized on its slave before any session has it
# (as glibc's openpty does), and signal-driven I/O on its master (sigio.c
# decides both; red team 21 found the size refused).
cat >"$T/ptyprobe.py" <<'EOF2'
import os, fcntl, struct, termios, signal, time
m, s = os.openpty()
fcntl.ioctl(s, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 99, 0, 0))
print("winsz", struct.unpack("HHHH", fcntl.ioctl(m, termios.TIOCGWINSZ, b"\0" * 8))[:2])
got = []
signal.signal(signal.SIGIO, lambda *a: got.append(1))
fcntl.fcntl(m, fcntl.F_SETFL, fcntl.fcntl(m, fcntl.F_GETFL) | os.O_ASYNC)
os.write(s, b"x\n")
time.sleep(0.2)
print("sigio", bool(got))
EOF2
sh "$T/probe.sh" >"$O/bare.out" 2>&1 || fail "probe failed bare: $(cat "$O/bare.out")"
for prof in readonly verify; do
	cw --profile $prof --report "$O/$prof.json" --trace "$O/$prof.jsonl" -- sh "$T/probe.sh" >"$O/$prof.out" 2>&1
	expect_rc 0 "$prof: the probe script"
	# Only the sysfs line may legitimately differ (uevent_seqnum moves).
	if ! diff "$O/bare.out" "$O/$prof.out" >"$O/$prof.diff"; then
		[ "$sysfile" = /sys/kernel/uevent_seqnum ] && [ "$(grep -c '^[<>]' "$O/$prof.diff")" = 2 ] ||
			fail "$prof: output differs from bare: $(cat "$O/$prof.diff")"
	fi
	report_assert "$O/$prof.json" "outcome['kind'] == 'success'" "not denials()"
	if cw_kernel_reads_run "$O/$prof.json"; then
		# Reads decided in the kernel (CAPWATCH_KERNEL_READS=1): the
		# read-only opens are not notified, so capwatch performs none.
		# The tree's /proc is its own namespace's, which fanotify does
		# not see (nothing recorded), a device has no fanotify event
		# either (nothing recorded: the tree's /dev holds only harmless
		# ones), and the sysfs file is decided at its fanotify event.
		# What is still notified (the pty, O_RDWR) is performed by
		# capwatch, as in the other modes.
		trace_assert "$O/$prof.jsonl" \
			"not ops(resolved=R(r'/proc/.*'))" \
			"not ops(resolved='/dev/urandom')" \
			"ops(resolved='$sysfile') and all(e.get('via') == 'fanotify' and e['decision'] == 'allow' and not e['args'] and not e.get('errno') for e in ops(resolved='$sysfile'))" \
			"ops(resolved='/dev/ptmx') and all(e['verified'] and not e.get('errno') for e in ops(resolved='/dev/ptmx'))" \
			"not [e for e in ops(resolved=R(r'/(proc|sys|dev)/.*')) if not e['verified'] and e.get('via') != 'fanotify']"
		kreads=1
		continue
	fi
	kreads=0
	trace_assert "$O/$prof.jsonl" \
		"all(e['verified'] for e in ops(resolved=R(r'/proc/[0-9]+/(status|fd|maps|environ)')))" \
		"ops(resolved=R(r'/proc/[0-9]+/status'))" "ops(resolved=R(r'/proc/[0-9]+/fd'))" \
		"ops(resolved=R(r'/proc/[0-9]+/environ'))" \
		"ops(resolved='$sysfile') and all(e['verified'] and not e.get('errno') for e in ops(resolved='$sysfile'))" \
		"ops(resolved='/dev/urandom') and all(e['verified'] for e in ops(resolved='/dev/urandom'))" \
		"ops(resolved='/dev/ptmx') and all(e['verified'] and not e.get('errno') for e in ops(resolved='/dev/ptmx'))" \
		"not [e for e in ops(resolved=R(r'/(proc|sys|dev)/.*')) if not e['verified']]"
done

# /dev/tty is the opener's controlling terminal: the command's pty, not
# capwatch's (none here: ENXIO, as bare in a new session).
cw --profile readonly --report "$O/nt.json" --trace "$O/nt.jsonl" -- sh -c 'echo x >/dev/tty' >"$O/nt.out" 2>&1
expect_rc 2 "readonly: /dev/tty without a controlling terminal"
grep -q 'No such device or address' "$O/nt.out" || fail "/dev/tty without a terminal: not ENXIO: $(cat "$O/nt.out")"
setsid sh -c 'echo x >/dev/tty' 2>/dev/null </dev/null && fail "bare: /dev/tty opened without a controlling terminal?"
trace_assert "$O/nt.jsonl" "[e for e in ops(resolved='/dev/tty') if e['verified'] and e.get('errno') == 'ENXIO']"
# On a pty (tty mode: capwatch shares it) and on a pty the command makes
# its own controlling terminal (pty.fork: a new session), for both the
# /dev/tty open and what it writes to must be that terminal.
cat >"$T/ttyprobe.py" <<'EOF2'
import os, pty, sys
fd = os.open("/dev/tty", os.O_RDWR)
os.write(fd, b"own-tty-write\n")
pid, m = pty.fork()
if pid == 0:
    t = os.open("/dev/tty", os.O_RDWR)
    st = os.fstat(t)
    os.write(t, b"inner-tty %s\n" % str(os.major(st.st_rdev) in range(136, 144)).encode())
    os._exit(0)
out = b""
while True:
    try:
        d = os.read(m, 100)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
print("inner says", out.strip())
EOF2
timeout -k 5 60 "$CW_PY" "$PTYRUN" 30 "$CAPWATCH" --profile readonly --report "$O/tty.json" \
	--trace "$O/tty.jsonl" -- "$CW_PY" "$T/ttyprobe.py" >"$O/tty.out" 2>&1
grep -q 'own-tty-write' "$O/tty.out" || fail "/dev/tty on a pty: the write did not reach the terminal: $(cat "$O/tty.out")"
grep -q "inner says b'inner-tty True'" "$O/tty.out" || fail "/dev/tty in a new session on its own pty: $(cat "$O/tty.out")"
report_assert "$O/tty.json" "outcome['kind'] == 'success'"
trace_assert "$O/tty.jsonl" "len([e for e in ops(resolved='/dev/tty') if e['verified'] and not e.get('errno')]) >= 2"

# FIFOs: a blocking reader and a blocking writer meet (the open that
# waits is performed by a worker, the event loop goes on), O_RDWR too.
mkfifo "$W/p"
cw --profile verify --report "$O/fifo.json" --trace "$O/fifo.jsonl" -- sh -c \
	'cat p >got & sleep 0.3; echo through-fifo >p; wait; exec 3<>p; echo rdwr-ok' >"$O/fifo.out" 2>&1
expect_rc 0 "verify: FIFO reader and writer"
[ "$(cat "$W/got")" = through-fifo ] || fail "FIFO: the reader got '$(cat "$W/got")'"
grep -q rdwr-ok "$O/fifo.out" || fail "FIFO O_RDWR: $(cat "$O/fifo.out")"
if [ $kreads = 1 ]; then
	# The reader's open is read-only: not notified there, and a FIFO has
	# no fanotify event (it goes undecided: a gap, not checked here); the
	# writer's and the O_RDWR one are performed by capwatch.
	trace_assert "$O/fifo.jsonl" \
		"len([e for e in ops(resolved='$W/p') if e['verified'] and e['args'].get('flags', 0) & 3]) == 2"
else
	trace_assert "$O/fifo.jsonl" "len([e for e in ops(resolved='$W/p') if e['verified']]) == 3"
fi

# Another process's opener-checked /proc file (environ: the kernel checks
# the opener, and capwatch is the tracer): refused; its status is not.
cw --profile readonly --report "$O/sib.json" --trace "$O/sib.jsonl" -- sh -c \
	'sleep 5 & p=$!; i=0; c=; while [ "$c" != sleep ] && [ $i -lt 100000 ]; do read c </proc/$p/comm; i=$((i+1)); done
	 head -1 /proc/$p/status; cat /proc/$p/environ >/dev/null && echo environ-read; kill $p' >"$O/sib.out" 2>&1
grep -q '^Name:.*sleep' "$O/sib.out" || fail "sibling status: $(cat "$O/sib.out")"
if [ $kreads = 1 ]; then
	# Reads decided in the kernel: the tree opens its own /proc itself, and
	# the kernel checks the tree (not capwatch): a sibling's environ reads
	# as it does bare, and a sibling that is not dumpable keeps its own
	# (the tree has no CAP_SYS_PTRACE; root reads it bare). capwatch opens
	# none of them.
	grep -q environ-read "$O/sib.out" || fail "a sibling's environ, the tree's own to read: $(cat "$O/sib.out")"
	trace_assert "$O/sib.jsonl" "not ops(resolved=R(r'/proc/.*'))"
	cat >"$T/nodump.py" <<'EOF2'
import ctypes, os, sys, time
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    os.write(w, b"x")
    time.sleep(10)
    os._exit(0)
os.read(r, 1)
try:
    open("/proc/%d/environ" % pid, "rb").read()
    print("environ-read")
except OSError as e:
    print("environ:", os.strerror(e.errno))
os.kill(pid, 9)
EOF2
	"$CW_PY" "$T/nodump.py" >"$O/nodump.bare" 2>&1
	grep -qx environ-read "$O/nodump.bare" || fail "control: bare root could not read a non-dumpable child's environ: $(cat "$O/nodump.bare")"
	cw --profile readonly --report "$O/nodump.json" --trace "$O/nodump.jsonl" -- "$CW_PY" "$T/nodump.py" >"$O/nodump.out" 2>&1
	expect_rc 0 "readonly: a non-dumpable sibling's environ"
	grep -qx 'environ: Permission denied' "$O/nodump.out" || fail "a non-dumpable sibling's environ under the mode: $(cat "$O/nodump.out")"
	trace_assert "$O/nodump.jsonl" "not ops(resolved=R(r'/proc/.*'))"
else
	grep -q environ-read "$O/sib.out" && fail "another process's environ was opened for the target by capwatch"
	trace_assert "$O/sib.jsonl" "[e for e in ops(resolved=R(r'/proc/[0-9]+/environ')) if e['verified'] and e.get('errno') == 'EACCES']"
fi

# O_PATH: still continued (ADDFD cannot pass it), recorded as unverified.
cw --profile readonly --report "$O/op.json" --trace "$O/op.jsonl" -- "$CW_PY" -c \
	'import os; fd = os.open("/proc/self/status", os.O_PATH); print(os.fstat(fd).st_size >= 0)' >"$O/op.out" 2>&1
expect_rc 0 "readonly: an O_PATH open"
trace_assert "$O/op.jsonl" "[e for e in ops(resolved=R(r'/proc/[0-9]+/status')) if not e['verified'] and e['args']['flags'] & 0o10000000]"

# capwatch opens with the command's capabilities, not its own: a root
# command that dropped them (setpriv) cannot read a file of another user
# through capwatch's open any more than bare.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && [ -d /dev/shm ]; then
	f=/dev/shm/cwtest-special-$$
	echo hidden >"$f" && chown nobody "$f" && chmod 600 "$f" || fail "setting up $f"
	setpriv --bounding-set -all -- cat "$f" >/dev/null 2>&1 && { rm -f "$f"; fail "bare: a command without capabilities read $f"; }
	cw --profile readonly --report "$O/cap.json" --trace "$O/cap.jsonl" -- setpriv --bounding-set -all -- cat "$f" >"$O/cap.out" 2>&1
	cw --profile readonly --report "$O/cap2.json" -- cat "$f" >"$O/cap2.out" 2>&1
	rm -f "$f"
	grep -q hidden "$O/cap.out" && fail "capwatch opened $f for a command without CAP_DAC_OVERRIDE"
	grep -q 'Permission denied' "$O/cap.out" || fail "without capabilities: $(cat "$O/cap.out")"
	grep -q hidden "$O/cap2.out" || fail "with root's capabilities the command could not read $f: $(cat "$O/cap2.out")"
	if [ $kreads = 1 ]; then
		# Not notified: the kernel refused the command's own open
		# before any fanotify event; nothing was allowed.
		trace_assert "$O/cap.jsonl" "not [e for e in ops(resolved='$f') if e['decision'] == 'allow' and not e.get('errno')]"
	else
		trace_assert "$O/cap.jsonl" "[e for e in ops(resolved='$f') if e['verified'] and e.get('errno') == 'EACCES']"
	fi
fi

# openat2 with a resolve bit the kernel does not know: EINVAL, as bare,
# answered by capwatch (continuing would let a flipper clear the bit).
cat >"$T/o2.py" <<'EOF2'
import ctypes, errno, os, struct
libc = ctypes.CDLL(None, use_errno=True)
how = struct.pack("QQQ", os.O_RDONLY, 0, 1 << 40)
r = libc.syscall(437, -100, b"/proc/self/status", how, 24)
print("openat2", r, errno.errorcode.get(ctypes.get_errno()))
EOF2
"$CW_PY" "$T/o2.py" >"$O/o2.bare"
cw --profile readonly --report "$O/o2.json" --trace "$O/o2.jsonl" -- "$CW_PY" "$T/o2.py" >"$O/o2.out" 2>&1
expect_rc 0 "readonly: openat2 with an unknown resolve bit"
grep -q 'openat2 -1 EINVAL' "$O/o2.bare" || fail "bare: $(cat "$O/o2.bare")"
diff "$O/o2.bare" "$O/o2.out" >/dev/null || fail "openat2 unknown resolve bit: bare '$(cat "$O/o2.bare")', under capwatch '$(cat "$O/o2.out")'"
trace_assert "$O/o2.jsonl" "[e for e in ops(syscall='openat2') if e['verified'] and e.get('errno') == 'EINVAL']"
