#!/bin/sh
# E82: acct(NULL) by a command started as root: turns process accounting
# off (an audit trail the user relies on). The whole test runs in a private
# PID namespace, whose accounting is its own, so the host's is never
# touched. Capability sought: CAP_SYS_PACCT.
# Expected after the fix: capwatch, started by root, drops the command to
# Docker's default capability set (no CAP_SYS_PACCT): EPERM.
. "$top_srcdir/tests/escapes/lib.sh"
if [ -z "${ESC_PIDNS:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root"
	unshare -pf --mount-proc true 2>/dev/null || skip "cannot create a PID namespace"
	ESC_PIDNS=1 exec unshare -pf --mount-proc "${SHELL_FOR_TESTS:-/bin/sh}" "$0" "$@"
fi
# Safety: acct() is per PID namespace; never call it in the host's.
[ "$$" -lt 10 ] || fail "not in a private PID namespace (pid $$)"
esc_setup
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.acct(None)
print("acct ok" if r == 0 else "acct failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'acct ok' "$O/bare.out" || { grep -q 'acct failed 38' "$O/bare.out" && skip "no BSD process accounting in this kernel"; esc_control_failed "bare acct(NULL) as root failed: $(cat "$O/bare.out")"; }
under readonly -- "$PY" -c "$cmd"
grep -q 'acct ok' "$OUT" && esc_bypass "the command kept CAP_SYS_PACCT: acct(NULL) succeeded under --profile readonly"
grep -q 'acct failed 1$' "$OUT" || esc_bypass "acct(NULL) was not refused EPERM: $(cat "$OUT")"
exit 0
