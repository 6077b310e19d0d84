#!/bin/sh
# E08: high-bit argument smuggling: kill((1<<32)|pid, SIGTERM). The kernel
# truncates pid to 32 bits; a 64-bit compare in a rule would miss it.
# The target is a sleep started by this test, outside the supervised tree.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import ctypes,sys; libc=ctypes.CDLL(None,use_errno=True); r=libc.syscall(62, ctypes.c_long((1<<32)|int(sys.argv[1])), 15); print("kill", r, ctypes.get_errno())'
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
sleep 0.2
victim_alive && esc_control_failed "bare kill((1<<32)|$VICTIM_PID) did not kill the victim: $(cat "$O/bare.out")"
victim_start sleep 60
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
sleep 0.2
victim_alive || esc_bypass "kill((1<<32)|pid) killed a process outside the tree under --profile readonly"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the victim
	# has no number there, so the truncated pid names nobody: ESRCH.
	grep -q '^kill -1 3$' "$OUT" || esc_bypass "kill((1<<32)|$VICTIM_PID) was not ESRCH in the tree's PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
	exit 0
fi
expect_denied process_control
report_has "denials('process_control')[0]['capability']['scope'] in ('$VICTIM_PID', 'pid:$VICTIM_PID') or '$VICTIM_PID' in str(denials('process_control')[0])"
