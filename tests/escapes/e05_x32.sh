#!/bin/sh
# E05: the x32 ABI (nr | 0x40000000). The filter must kill the process
# whatever the kernel supports. On a kernel without x32 the bare attack
# cannot work: the filter's kill is still checked, then the test skips.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e05_x32
canary_make "$H/.bashrc"
bare "$ESC_BIN/e05_x32" "$H/.bashrc"
bare_rc=$rc
canary_make "$H/.bashrc"
under readonly -- "$ESC_BIN/e05_x32" "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "x32 openat wrote $H/.bashrc under --profile readonly"
# SIGSYS (31): SECCOMP_RET_KILL_PROCESS.
[ "$rc" = 159 ] || fail "expected the x32 syscall to be killed with SIGSYS (exit 159), got $rc: $(cat "$OUT")"
report_has 'outcome["exit"]["signal"] == "SIGSYS"'
[ "$bare_rc" = 38 ] && skip "x32 is not built into this kernel (bare x32 openat: ENOSYS); the filter's SIGSYS kill was verified"
[ "$bare_rc" = 0 ] || esc_control_failed "bare x32 openat failed oddly (exit $bare_rc): $(cat "$O/bare.out")"
