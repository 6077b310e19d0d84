#!/bin/sh
# E36: new namespaces: unshare -Ur (user ns: "root" inside), unshare of a
# mount namespace, setns into another process's namespaces (a sleep this
# test put in its own user+mount namespaces).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
unshare -Ur true 2>/dev/null || skip "user namespaces unavailable"
bare unshare -Ur sh -c 'id -u'
[ "$(cat "$O/bare.out")" = 0 ] || esc_control_failed "bare unshare -Ur did not give uid 0: $(cat "$O/bare.out")"
under verify -- unshare -Ur sh -c 'id -u'
grep -qx 0 "$OUT" && esc_bypass "unshare -Ur worked under capwatch"
expect_denied unrestricted "'unshare'"
cmd="import ctypes; r = ctypes.CDLL(None, use_errno=True).unshare(0x20000); print('unshared' if r == 0 else 'failed %d' % ctypes.get_errno())"
bare "$PY" -c "$cmd"
grep -q unshared "$O/bare.out" || esc_control_failed "bare unshare(CLONE_NEWNS) failed: $(cat "$O/bare.out")"
under verify -- "$PY" -c "$cmd"
grep -q unshared "$OUT" && esc_bypass "unshare(CLONE_NEWNS) worked under capwatch"
expect_denied unrestricted "'unshare'"
victim_start unshare -Urm sleep 60
sleep 0.3
cmd="import ctypes, os, sys; fd = os.open('/proc/%s/ns/user' % sys.argv[1], os.O_RDONLY); r = ctypes.CDLL(None, use_errno=True).setns(fd, 0); print('joined' if r == 0 else 'failed %d' % ctypes.get_errno())"
bare "$PY" -c "$cmd" "$VICTIM_PID"
grep -q joined "$O/bare.out" || esc_control_failed "bare setns failed: $(cat "$O/bare.out")"
# Joining it: the open of another process's namespace is process_control
# (denied by verify), and setns itself is an escape (unrestricted). Without
# the Landlock domain first, which already refuses opening the namespace
# files of a process outside the tree (ptrace-class access across domains).
under verify --no-landlock -- "$PY" -c "$cmd" "$VICTIM_PID"
grep -q joined "$OUT" && esc_bypass "setns into another user namespace worked under capwatch"
expect_denied "process_control|unrestricted"
under verify -- "$PY" -c "$cmd" "$VICTIM_PID"
grep -q joined "$OUT" && esc_bypass "setns into another user namespace worked under capwatch (Landlock on)"
# The setns rule alone: a descriptor of the command's own network
# namespace is its own to open, and joining it needs setns.
cmd="import ctypes, os; fd = os.open('/proc/self/ns/net', os.O_RDONLY); r = ctypes.CDLL(None, use_errno=True).setns(fd, 0); print('joined' if r == 0 else 'failed %d' % ctypes.get_errno())"
bare "$PY" -c "$cmd"
grep -q joined "$O/bare.out" || esc_control_failed "bare setns into its own network namespace failed: $(cat "$O/bare.out")"
under verify -- "$PY" -c "$cmd"
grep -q joined "$OUT" && esc_bypass "setns worked under capwatch"
expect_denied unrestricted "'setns'"
exit 0
