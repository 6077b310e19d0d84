#!/bin/sh
# E26: a second seccomp listener (NEW_LISTENER), and stealing capwatch's
# own listener with pidfd_open(getppid()) + pidfd_getfd(). Either lets the
# sandbox answer CONTINUE for its own syscalls.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e26_listener
bare "$ESC_BIN/e26_listener"
grep -q 'seccomp(NEW_LISTENER) -> [0-9]' "$O/bare.out" || esc_control_failed "bare NEW_LISTENER failed: $(cat "$O/bare.out")"
grep -q 'pidfd_getfd: [1-9]' "$O/bare.out" || esc_control_failed "bare pidfd_getfd stole nothing from its parent: $(cat "$O/bare.out")"
under readonly -- "$ESC_BIN/e26_listener"
grep -q 'seccomp(NEW_LISTENER) -> [0-9]' "$OUT" && esc_bypass "a second listener was created under capwatch: $(cat "$OUT")"
grep -q 'pidfd_getfd: [1-9]' "$OUT" && esc_bypass "descriptors of capwatch were stolen: $(cat "$OUT")"
[ "$rc" = 1 ] || fail "attack exit $rc: $(cat "$OUT")"
expect_denied unrestricted "'seccomp'"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): getppid()
	# is 0 there (pidfd_open refuses it) and capwatch has no number: its
	# host pid, handed in, is refused (ESRCH, or EPERM recorded), nothing
	# stolen.
	grep -q '^pidfd_open(0) -> -1 (Invalid argument)' "$OUT" || fail "getppid() in the namespace: $(cat "$OUT")"
	under_cwpid readonly -- "$ESC_BIN/e26_listener" @CWPID@
	grep -q 'pidfd_getfd: [1-9]' "$OUT" && esc_bypass "descriptors of capwatch ($ESC_CW_PID) were stolen: $(cat "$OUT")"
	[ "$rc" = 1 ] || fail "attack exit $rc: $(cat "$OUT")"
	e=$(sed -n "s/^pidfd_open($ESC_CW_PID) -> -1 (No such process)/3/p; s/^pidfd_open($ESC_CW_PID) -> -1 (Operation not permitted)/1/p" "$OUT")
	esc_outside_refused "$ESC_CW_PID" "$e" decided
	exit 0
fi
report_has 'denials("process_control") or denials("unrestricted", "pidfd_getfd")'
