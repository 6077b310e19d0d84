#!/bin/sh
# E50: TIOCSTI terminal injection: characters pushed into the input queue
# of the terminal capwatch was started from run in the parent shell after
# the sandbox exits. The terminal is a pty this test creates; what the
# "shell" would read is what the test reads back from the pty.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ] && [ "$(id -u)" != 0 ] && skip "dev.tty.legacy_tiocsti=0"
# sti.py [high]: push "INJECTED\n" with ioctl(0, TIOCSTI); "high" sets bit
# 32 of the request (CVE-2019-10063: the kernel uses the low 32 bits).
cat >"$T/sti.py" <<'PYEOF'
import ctypes, sys, termios
libc = ctypes.CDLL(None, use_errno=True)
req = termios.TIOCSTI | ((1 << 32) if len(sys.argv) > 1 else 0)
for c in b"INJECTED\n":
    ch = ctypes.c_char(c)
    if libc.syscall(16, 0, ctypes.c_ulong(req), ctypes.byref(ch)) < 0:
        print("TIOCSTI failed", ctypes.get_errno()); sys.exit(1)
print("TIOCSTI done")
PYEOF
# The "parent shell": runs the injector (bare or under capwatch) on the
# terminal, then reads what is queued as its own input.
cat >"$T/shell.sh" <<'EOF2'
"$@" </dev/tty >/dev/tty 2>&1
"$PY" -c "
import os, select
r, _, _ = select.select([0], [], [], 1)
print('parent shell reads:', os.read(0, 100) if r else b'')"
EOF2
export PY
for hi in "" high; do
	bare "$PY" "$ESC_SRC/ptyrun.py" 30 sh "$T/shell.sh" "$PY" "$T/sti.py" $hi
	grep -q "reads: b'INJECTED" "$O/bare.out" || esc_control_failed "bare TIOCSTI ${hi} did not inject: $(cat "$O/bare.out")"
	N=$((N + 1)); R=$O/report.json OUT=$O/cw$N.out
	timeout -k 5 60 "$PY" "$ESC_SRC/ptyrun.py" 30 sh "$T/shell.sh" "$CAPWATCH" --profile readonly --report "$R" -- "$PY" "$T/sti.py" $hi >"$OUT" 2>&1
	grep -q "reads: b'INJECTED" "$OUT" && esc_bypass "TIOCSTI ${hi:+(request with bit 32 set) }from inside capwatch --profile readonly injected 'INJECTED\\n' into the parent shell's terminal (the command keeps the controlling tty in tty mode; the ioctl rule compares the request on 64 bits)"
	grep -q "TIOCSTI failed" "$OUT" || fail "TIOCSTI neither injected nor failed: $(cat "$OUT")"
	report_has 'denied_run()'
done
