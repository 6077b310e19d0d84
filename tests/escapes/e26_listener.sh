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
report_has 'denials("process_control") or denials("unrestricted", "pidfd_getfd")'
