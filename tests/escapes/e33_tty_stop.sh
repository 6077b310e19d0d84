#!/bin/sh
# E33: job-control stop of the supervisor: a command that shares
# capwatch's terminal and process group moves itself to a new group, takes
# the foreground (tcsetpgrp) and sets TOSTOP; the next time capwatch writes
# to the terminal (--verbose diagnostics of a denial) it would get SIGTTOU
# and stop, and the command's next notified syscall would hang forever.
# Pass: the run completes and reports. Runs on a pty this test creates.
# Since e182 the tcsetpgrp itself is refused (process_control), since
# e191 the TOSTOP too; the writes after them must still not stop capwatch.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/stop.py" <<PYEOF
import os, signal, termios, time
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
os.setpgid(0, 0)
a = termios.tcgetattr(0); a[3] |= termios.TOSTOP
try:
    termios.tcsetattr(0, termios.TCSANOW, a)
except termios.error as e:  # refused since e191 (the terminal is not the tree's)
    print("TOSTOP-REFUSED", e.args[0], flush=True)
try:
    os.tcsetpgrp(0, os.getpgrp())
except OSError as e:  # refused since e182: the rest must not stop capwatch either
    print("TCSETPGRP-REFUSED", e.errno, flush=True)
time.sleep(0.3)
for i in range(3):
    try:
        os.open("$H/.bashrc", os.O_WRONLY)  # denied: capwatch --verbose reports it on the tty
    except OSError:
        pass
    time.sleep(0.2)
print("ATTACKER-DONE", flush=True)
PYEOF
# (sh -m: a job-control shell between the pty and the parent, so the
# parent's process group is not orphaned and SIGTTOU stops it.)
# Bare control: a parent that, like capwatch, writes to the terminal after
# its child took the foreground: it is stopped by SIGTTOU.
cat >"$T/parent.py" <<'PYEOF'
import subprocess, sys, time
p = subprocess.Popen(sys.argv[1:])
time.sleep(1.5)
sys.stderr.write("parent: writing to the terminal\n"); sys.stderr.flush()
p.wait()
print("PARENT-DONE", flush=True)
PYEOF
canary_make "$H/.bashrc"
bare "$PY" "$ESC_SRC/ptyrun.py" 8 sh -mc "\"$PY\" \"$T/parent.py\" \"$PY\" \"$T/stop.py\""
# Stopped: the job shell reports 128+SIGTTOU (150) or the pty deadline hits.
stopped() { grep -q 'PTYRUN-TIMEOUT\|PTYRUN-DONE 38400' "$1"; }
stopped "$O/bare.out" || esc_control_failed "the bare parent was not stopped: $(cat "$O/bare.out")"
grep -q PARENT-DONE "$O/bare.out" && esc_control_failed "the bare parent went on"
N=$((N + 1)); R=$O/report$N.json OUT=$O/cw$N.out
timeout -k 5 60 "$PY" "$ESC_SRC/ptyrun.py" 20 sh -mc "\"$CAPWATCH\" --verbose --profile readonly --report \"$R\" -- \"$PY\" \"$T/stop.py\"" >"$OUT" 2>&1
stopped "$OUT" && esc_bypass "capwatch was stopped (SIGTTOU) by a command that took the terminal's foreground; the run hung: $(tr -d '\r' <"$OUT" | tail -5 | tr '\n' ' ')"
grep -q ATTACKER-DONE "$OUT" || fail "the command did not finish: $(cat "$OUT")"
canary_intact "$H/.bashrc" || esc_bypass "$H/.bashrc written"
report_has 'denied_run()'
