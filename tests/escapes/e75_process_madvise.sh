#!/bin/sh
# E75: process_madvise(pidfd, iov, MADV_COLD) on a process outside the tree
# (a sleep this test started), with a pidfd the command did not open
# itself: it arrives as the command's stdin, which capwatch passes through
# untouched (pidfd_open of an outside pid is refused, E32/E77). Advice on
# another process's memory is a ptrace-mode access (and with MADV_PAGEOUT a
# way to push its pages out).
# Capability sought: process_control.
# Expected after the fix: process_madvise (and any other use of a pidfd)
# naming a process outside the tree is refused EPERM and recorded as a
# process_control denial naming its pid.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/mad.py" <<'PYEOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
start, length = int(sys.argv[1], 16), int(sys.argv[2])
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
iov = iovec(start, length)
r = libc.syscall(440, 0, ctypes.byref(iov), 1, 20, 0)  # process_madvise(stdin pidfd, .., MADV_COLD)
print("madvise ok %d" % r if r >= 0 else "madvise failed %d" % ctypes.get_errno())
PYEOF
# with_pidfd PID CMD...: run CMD with a pidfd of PID as its stdin.
cat >"$T/withpidfd.py" <<'PYEOF'
import os, sys
fd = os.pidfd_open(int(sys.argv[1]))
os.dup2(fd, 0)
os.close(fd)
os.execvp(sys.argv[2], sys.argv[2:])
PYEOF
victim_start sleep 60
sleep 0.2
# The first mapping of the victim (its program text): file-backed, readable.
range=$(head -1 "/proc/$VICTIM_PID/maps" | cut -d' ' -f1)
start=${range%-*} end=${range#*-}
len=$(( 0x$end - 0x$start ))
bare "$PY" "$T/withpidfd.py" "$VICTIM_PID" "$PY" "$T/mad.py" "$start" "$len"
grep -q "madvise ok $len\$" "$O/bare.out" || { grep -q 'madvise failed 38' "$O/bare.out" && skip "process_madvise not in this kernel"; esc_control_failed "bare process_madvise on the victim failed: $(cat "$O/bare.out")"; }
# Without the Landlock domain first (it refuses ptrace-class access to
# processes outside it and records nothing), then with it.
for ll in --no-landlock ""; do
N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
timeout -k 5 60 "$PY" "$T/withpidfd.py" "$VICTIM_PID" "$CAPWATCH" --profile readonly $ll --report "$R" --trace "$TR" -- \
	"$PY" "$T/mad.py" "$start" "$len" >"$OUT" 2>&1
rc=$?
report_ok || { cat "$OUT" >&2; fail "capwatch wrote no report (exit $rc)"; }
grep -q 'madvise ok' "$OUT" && esc_bypass "process_madvise advised $len bytes of an outside process through an inherited pidfd under --profile readonly $ll"
grep -q 'madvise failed 1$' "$OUT" || esc_bypass "process_madvise on an outside process was not refused EPERM ($ll): $(cat "$OUT")"
expect_denied process_control
done
esc_kill "$VICTIM_PID"
exit 0
