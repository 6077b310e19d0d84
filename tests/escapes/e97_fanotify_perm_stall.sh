#!/bin/sh
# E97: a FAN_OPEN_PERM fanotify group left unanswered. The command marks a
# workspace file for FAN_OPEN_PERM and opens it. capwatch performs the
# open itself (emulation), so it is capwatch's own openat that waits for a
# permission answer the command will never give: the supervisor's
# notification thread stalls, and with it every process of the tree and
# the run's --timeout. Bare, the command only blocks itself (the control:
# an unanswered permission event blocks the opener).
# Capability sought: unrestricted (a fanotify permission group), used to
# stall the supervisor.
# Expected after the fix: fanotify_init refused (unrestricted); with
# --timeout 5 the run ends within the limit and the report exists.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
printf 'data\n' >"$W/f"
cat >"$T/perm.py" <<'PYEOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fan = libc.fanotify_init(0x1 | 0x4, os.O_RDONLY)  # FAN_CLOEXEC | FAN_CLASS_CONTENT
if fan < 0:
    print("fanotify_init failed", ctypes.get_errno()); sys.exit(0)
if libc.fanotify_mark(fan, 1, ctypes.c_uint64(0x10000), -100, b"f") < 0:  # ADD, FAN_OPEN_PERM
    print("fanotify_mark failed", ctypes.get_errno()); sys.exit(0)
print("marked", flush=True)
open("f").read()  # nobody answers the permission event
print("opened")
PYEOF
bare timeout 3 "$PY" "$T/perm.py"
[ "$rc" = 124 ] && grep -q marked "$O/bare.out" || esc_control_failed "bare open of a FAN_OPEN_PERM-marked file did not block (exit $rc): $(cat "$O/bare.out")"
start=$(date +%s)
ESC_TIMEOUT=40 under_any verify --timeout 5 -- "$PY" "$T/perm.py"
took=$(( $(date +%s) - start ))
report_ok || { cat "$OUT" >&2; esc_bypass "an unanswered FAN_OPEN_PERM event stalled capwatch: no report after ${took}s with --timeout 5 (exit $rc)"; }
[ "$took" -le 20 ] || esc_bypass "the run with --timeout 5 lasted ${took}s (an unanswered FAN_OPEN_PERM event stalled capwatch)"
grep -q marked "$OUT" && esc_bypass "fanotify_init(FAN_CLASS_CONTENT) and a FAN_OPEN_PERM mark succeeded under --profile verify (run ended after ${took}s, exit $rc)"
expect_denied_syscall fanotify_init
exit 0
