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
# Bare control: the open blocks in the kernel, waiting for the permission
# answer: seen in the opener's /proc (wchan fanotify_*, or uninterruptible
# sleep) once it has marked, where it was given 3 s under timeout(1)
# (issue 16 item 7: a reason to wait).
"$PY" "$T/perm.py" >"$O/bare.out" 2>&1 &
BP=$!
esc_bg_started $BP
_i=0
while :; do
	if grep -q marked "$O/bare.out"; then
		case "$(cat "/proc/$BP/wchan" 2>/dev/null) $(sed -n 's/^State:[[:space:]]*//p' "/proc/$BP/status" 2>/dev/null)" in
		fanotify_*|*" D "*) break ;;
		esac
	fi
	kill -0 $BP 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$BP/status" 2>/dev/null ||
		esc_control_failed "bare open of a FAN_OPEN_PERM-marked file did not block: $(cat "$O/bare.out")"
	_i=$((_i + 1))
	[ $_i -gt 500 ] && esc_control_failed "bare open of a FAN_OPEN_PERM-marked file: not blocked after 10 s: $(cat "$O/bare.out")"
	sleep 0.02
done
esc_kill $BP
start=$(date +%s)
ESC_TIMEOUT=40 under_any verify --timeout 5 -- "$PY" "$T/perm.py"
took=$(( $(date +%s) - start ))
report_ok || { cat "$OUT" >&2; esc_bypass "an unanswered FAN_OPEN_PERM event stalled capwatch: no report after ${took}s with --timeout 5 (exit $rc)"; }
[ "$took" -le 20 ] || esc_bypass "the run with --timeout 5 lasted ${took}s (an unanswered FAN_OPEN_PERM event stalled capwatch)"
grep -q marked "$OUT" && esc_bypass "fanotify_init(FAN_CLASS_CONTENT) and a FAN_OPEN_PERM mark succeeded under --profile verify (run ended after ${took}s, exit $rc)"
expect_denied_syscall fanotify_init
exit 0
