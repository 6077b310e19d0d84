#!/bin/sh
# E76: kcmp(self, outside pid, KCMP_VM/KCMP_FILES): compares kernel objects
# of a process outside the tree (a sleep this test started): an ordering
# oracle on another process's kernel pointers, and a ptrace-mode access.
# Capability sought: process_control.
# Expected after the fix: kcmp naming a pid outside the tree is refused
# EPERM (with and without Landlock) and recorded as a process_control denial naming the pid.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(312, os.getpid(), int(sys.argv[1]), 1, 0, 0)  # kcmp(.., KCMP_VM)
print("kcmp ok %d" % r if r >= 0 else "kcmp failed %d" % ctypes.get_errno())'
# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the victim has
# no number there: ESRCH, and no allow recorded for it.
kcmp_esrch() {
	grep -q 'kcmp failed 3$' "$OUT" || esc_bypass "kcmp with $VICTIM_PID outside the tree was not ESRCH in its PID namespace: $(cat "$OUT")"
	esc_none_allowed "$VICTIM_PID"
}
victim_start sleep 60
bare "$PY" -c "$cmd" "$VICTIM_PID"
grep -q 'kcmp ok [12]$' "$O/bare.out" || { grep -q 'kcmp failed 38' "$O/bare.out" && skip "kcmp not built into this kernel"; esc_control_failed "bare kcmp with the victim failed: $(cat "$O/bare.out")"; }
# Without the Landlock domain first (it refuses ptrace-class access to
# processes outside it, which kcmp is, but records nothing): the filter's
# own rule.
under readonly --no-landlock -- "$PY" -c "$cmd" "$VICTIM_PID"
grep -q 'kcmp ok' "$OUT" && esc_bypass "kcmp compared the command's mm with an outside process's under --profile readonly --no-landlock: $(cat "$OUT")"
if esc_pidns; then
	kcmp_esrch
else
	grep -q 'kcmp failed 1$' "$OUT" || esc_bypass "kcmp on an outside pid was not refused EPERM (--no-landlock): $(cat "$OUT")"
	expect_denied process_control
fi
# With Landlock: still refused, and the report must say so.
under readonly -- "$PY" -c "$cmd" "$VICTIM_PID"
grep -q 'kcmp ok' "$OUT" && esc_bypass "kcmp compared the command's mm with an outside process's under --profile readonly: $(cat "$OUT")"
if esc_pidns; then
	kcmp_esrch
else
	grep -q 'kcmp failed 1$' "$OUT" || esc_bypass "kcmp on an outside pid was not refused EPERM: $(cat "$OUT")"
	expect_denied process_control
fi
esc_kill "$VICTIM_PID"
exit 0
