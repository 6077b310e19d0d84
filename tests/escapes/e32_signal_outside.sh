#!/bin/sh
# E32: signalling processes outside the supervised tree: kill, tgkill,
# rt_sigqueueinfo, pidfd_send_signal, and capwatch itself (the command's
# parent). The victims are sleeps started by this test.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/sig.py" <<'PYEOF'
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
mode, pid = sys.argv[1], int(sys.argv[2]) if sys.argv[2] != "PARENT" else os.getppid()
try:
    if mode == "kill":
        os.kill(pid, signal.SIGKILL)
    elif mode == "tgkill":
        signal.pthread_kill  # noqa
        r = libc.syscall(234, pid, pid, 9)
        if r < 0: raise OSError(ctypes.get_errno(), "tgkill")
    elif mode == "sigqueue":
        info = (ctypes.c_int * 32)(9, 0, -1)
        r = libc.syscall(129, pid, 9, info)
        if r < 0: raise OSError(ctypes.get_errno(), "rt_sigqueueinfo")
    elif mode == "pidfd":
        fd = os.pidfd_open(pid)
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    print(mode, "sent")
except OSError as e:
    print(mode, "failed", e)
PYEOF
for mode in kill tgkill sigqueue pidfd; do
	victim_start sleep 60
	bare "$PY" "$T/sig.py" $mode "$VICTIM_PID"
	sleep 0.2
	victim_alive && esc_control_failed "$mode: bare signal did not kill the victim: $(cat "$O/bare.out")"
	victim_start sleep 60
	under readonly -- "$PY" "$T/sig.py" $mode "$VICTIM_PID"
	sleep 0.2
	victim_alive || esc_bypass "$mode: a process outside the tree was killed under --profile readonly"
	if esc_pidns; then
		# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
		# victim has no number there: ESRCH, as for no process at all.
		# (pidfd: pidfd_open is decided on the number, EPERM.)
		e=$(sed -n "s/^$mode failed \[Errno \([0-9]*\)\].*/\1/p" "$OUT")
		esc_outside_refused "$VICTIM_PID" "$e" $( [ $mode = pidfd ] && echo decided)
	else
		expect_denied process_control
	fi
	esc_kill "$VICTIM_PID"
done
# capwatch itself: the report must still be written (under() fails otherwise).
under readonly -- "$PY" "$T/sig.py" kill PARENT
grep -q 'kill sent' "$OUT" && esc_bypass "the command sent SIGKILL to capwatch"
if esc_pidns; then
	# getppid() is 0 in the namespace: kill(0) is the command's own
	# process group (it leads its session there), it dies and capwatch
	# writes the report. capwatch's host pid, handed in, names nobody.
	under_cwpid readonly -- "$PY" "$T/sig.py" kill @CWPID@
	grep -q 'kill sent' "$OUT" && esc_bypass "the command sent SIGKILL to capwatch ($ESC_CW_PID)"
	grep -q '^kill failed \[Errno 3\]' "$OUT" || esc_bypass "kill of capwatch's pid $ESC_CW_PID was not ESRCH in the tree's PID namespace: $(cat "$OUT")"
	esc_none_allowed "$ESC_CW_PID"
	exit 0
fi
expect_denied process_control
