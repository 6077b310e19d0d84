#!/bin/sh
# Another terminal's input and output: the command opens /dev/pts/N of a
# session outside the tree (here a pty this test made and "types" into,
# like the user's other ssh session or tmux pane) with O_NOCTTY. The read
# open is a plain filesystem_read of a /dev path, the write open a /dev
# write (Landlock allows /dev), root's DAC_OVERRIDE opens any pts: the
# command reads the keystrokes typed there (a sudo password) and writes a
# fake prompt to it. Under readonly: neither may happen (process_control
# outside the tree, as for /proc/PID of a process outside).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/term.py" <<'PY'
import os, pty, sys, time
namef, log, secs, secret = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4].encode()
m, s = pty.openpty()
with open(namef + ".tmp", "w") as f:
    f.write(os.ttyname(s))
os.rename(namef + ".tmp", namef)
os.set_blocking(m, False)
end = time.time() + secs
while time.time() < end:
    time.sleep(0.3)
    os.write(m, secret + b"\n")       # the user types
    try:
        while True:
            d = os.read(m, 4096)      # what the terminal shows
            if not d: break
            with open(log, "ab") as f: f.write(d)
    except BlockingIOError:
        pass
PY
cat >"$T/steal.py" <<'PY'
import os, select, sys
name = sys.argv[1]
try:
    fd = os.open(name, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    got = b""
    for _ in range(30):
        if select.select([fd], [], [], 0.2)[0]:
            got += os.read(fd, 100)
            if got: break
    print("READ", got, flush=True)
except OSError as e:
    print("read open:", e, flush=True)
try:
    fd = os.open(name, os.O_WRONLY | os.O_NOCTTY)
    os.write(fd, b"\r\n[sudo] password for user: FAKE-PROMPT-" + sys.argv[2].encode())
    print("wrote", flush=True)
except OSError as e:
    print("write open:", e, flush=True)
PY
secret="sudo-pass-$$"
run() { # run bare|PROFILE: outputs in $_o, terminal log in $T/term.log
	rm -f "$T/pts" "$T/term.log"
	"$CW_PY" "$T/term.py" "$T/pts" "$T/term.log" 6 "$secret" &
	_t=$!; esc_bg_started $_t
	_i=0
	while [ ! -s "$T/pts" ]; do _i=$((_i + 1)); [ $_i -gt 100 ] && fail "no pty"; sleep 0.05; done
	pts=$(cat "$T/pts")
	if [ "$1" = bare ]; then bare "$PY" "$T/steal.py" "$pts" "$1"; _o=$O/bare.out
	else under "$1" -- "$PY" "$T/steal.py" "$pts" "$1"; _o=$OUT; fi
	sleep 0.7
	esc_kill $_t
}
run bare
grep -q "READ b'$secret" "$_o" || esc_control_failed "bare: no keystrokes read: $(cat "$_o")"
grep -q "FAKE-PROMPT-bare" "$T/term.log" || esc_control_failed "bare: no fake prompt shown: $(cat "$T/term.log")"

bad=
for prof in readonly verify; do
	run $prof
	grep -q "READ b'$secret" "$_o" && bad="$bad; ($prof) read the keystrokes typed into $pts, a terminal outside the tree: $(grep READ "$_o")"
	grep -q "FAKE-PROMPT-$prof" "$T/term.log" && bad="$bad; ($prof) a fake password prompt written to $pts"
	[ -n "$bad" ] && esc_log "$prof: outcome $(json_get "$R" 'd["outcome"]["kind"]')"
	# Under the tree's own PID namespace (CAPWATCH_KERNEL_READS=1) reads
	# are not notified and Landlock refuses READ_FILE under /dev/pts:
	# EACCES, not recorded; the write open is still capwatch's (EPERM,
	# process_control). Nothing allowed on that terminal.
	if [ -z "$bad" ] && esc_pidns; then
		expect_denied process_control
		grep -q "read open:.*Permission denied" "$_o" && grep -q "write open:.*Operation not permitted" "$_o" ||
			fail "($prof) the opens were not refused with EACCES (Landlock) and EPERM: $(cat "$_o")"
		esc_none_allowed "$pts"
		continue
	fi
	# Both opens are process_control (another session's terminal),
	# decided on the opened object: EPERM for each.
	[ -n "$bad" ] || { expect_denied process_control
		grep -q "read open:.*Operation not permitted" "$_o" && grep -q "write open:.*Operation not permitted" "$_o" ||
			fail "($prof) the opens were not refused with EPERM: $(cat "$_o")"; }
done
[ -z "$bad" ] || esc_bypass "${bad#; }"

# The tree's own ptys stay usable: a pty made with /dev/ptmx (openpty)
# and its slave opened by name (as script(1) and python's pty do).
cat >"$T/own.py" <<'PY'
import os
m = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
os.grantpt(m) if hasattr(os, "grantpt") else None
os.unlockpt(m) if hasattr(os, "unlockpt") else None
name = os.ptsname(m) if hasattr(os, "ptsname") else None
if name is None:
    import fcntl, struct
    fcntl.ioctl(m, 0x40045431, struct.pack("i", 0))  # TIOCSPTLCK 0
    name = "/dev/pts/%d" % struct.unpack("I", fcntl.ioctl(m, 0x80045430, b"\0" * 4))[0]
s = os.open(name, os.O_RDWR | os.O_NOCTTY)
os.write(s, b"own-pty\n")
print("own", os.read(m, 100))
PY
under readonly -- "$PY" "$T/own.py"
grep -q "own b'own-pty" "$OUT" || fail "readonly: the tree's own pty: $(cat "$OUT")"
report_has 'outcome["kind"] == "success"'
exit 0
