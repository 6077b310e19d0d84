#!/bin/sh
# E80: sethostname() by a command started as root: the machine's name
# changes for every process on the host (the whole test runs in a private
# UTS namespace, so the host's name is never touched, bare or not).
# Capability sought: CAP_SYS_ADMIN over the host's UTS namespace.
# Expected after the fix: capwatch, started by root, drops the command to
# Docker's default capability set and gives it a UTS (and IPC) namespace of
# its own: sethostname fails EPERM, or changes only the command's private
# name; the name outside the command (this test's namespace) is unchanged.
. "$top_srcdir/tests/escapes/lib.sh"
if [ -z "${ESC_UTSNS:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root"
	unshare -u true 2>/dev/null || skip "cannot create a UTS namespace"
	outer=$(readlink /proc/self/ns/uts) && [ -n "$outer" ] || skip "cannot read /proc/self/ns/uts"
	ESC_UTSNS=$outer exec unshare -u "${SHELL_FOR_TESTS:-/bin/sh}" "$0" "$@"
fi
# Safety: never run this in the namespace the test was started in (pid 1's
# may be unreadable, so compare with the one recorded before unshare).
inner=$(readlink /proc/self/ns/uts)
[ -n "$inner" ] && [ "$inner" != "$ESC_UTSNS" ] || fail "not in a private UTS namespace ($inner, started in $ESC_UTSNS)"
esc_setup
orig=$(hostname)
cmd='import socket, sys
try:
    socket.sethostname(sys.argv[1]); print("sethostname ok")
except OSError as e:
    print("sethostname failed", e.errno)'
bare "$PY" -c "$cmd" cw-e80-bare
[ "$(hostname)" = cw-e80-bare ] || esc_control_failed "bare sethostname (root, private UTS ns) did not take: $(cat "$O/bare.out")"
hostname "$orig"
under readonly -- "$PY" -c "$cmd" cw-e80-pwned
now=$(hostname)
hostname "$orig"
[ "$now" = cw-e80-pwned ] && esc_bypass "sethostname under capwatch changed the name of the namespace capwatch was started in"
grep -q 'sethostname ok' "$OUT" && esc_log "sethostname succeeded inside the command's own UTS namespace (allowed)"
exit 0
