#!/bin/sh
# E104: prlimit64(capwatch's pid, RLIMIT_FSIZE, 256 KiB), then 20000
# events: the trace outgrows the limit mid-run, capwatch's write gets
# SIGXFSZ (or EFBIG if it ignores the signal) and the forensic record is
# cut short or capwatch dies. (E70 is the 1-byte form that kills it at
# once; this one aims at the trace and the closing summary.)
# Capability sought: process_control over capwatch, used to erase the
# record of what the command did after it.
# Expected after the fix: prlimit64 on capwatch's pid refused EPERM
# (process_control denial); the trace is complete (its last line is the
# closing summary) and the report is non-empty valid JSON.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/pl.py" <<'PYEOF'
import os, resource, sys
pid = os.getppid() if sys.argv[1] == "PARENT" else int(sys.argv[1])
try:
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (262144, 262144))
    print("prlimit ok", flush=True)
except OSError as e:
    print("prlimit failed", e.errno, flush=True)
n = 0
for i in range(20000):
    try:
        os.close(os.open("/etc/hostname", os.O_RDONLY)); n += 1
    except OSError:
        pass
print("events", n)
PYEOF
victim_start sleep 60
bare "$PY" "$T/pl.py" "$VICTIM_PID"
grep -q 'prlimit ok' "$O/bare.out" && grep -q '^Max file size *262144 *262144 ' "/proc/$VICTIM_PID/limits" ||
	esc_control_failed "bare prlimit of an outside process did not take: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
under_any readonly -- "$PY" "$T/pl.py" PARENT
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): getppid()
	# is 0 there, so the call above capped the command's own file size.
	# The attack proper hands in capwatch's host pid, which names nobody
	# there: ESRCH, and capwatch's limits, read from outside while it
	# runs, unchanged; the report (and trace) complete.
	report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after prlimit(0) (exit $rc)"; }
	esc_cw_untouched readonly -- "$PY" "$T/pl.py" @CWPID@
	grep -q 'prlimit failed 3$' "$OUT" || esc_bypass "prlimit64 of capwatch's pid $ESC_CW_PID was not ESRCH in the tree's PID namespace: $(cat "$OUT")"
	report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after the prlimit attack (exit $rc)"; }
	trace_has 'summary.get("type") == "summary"'
	esc_none_allowed "$ESC_CW_PID"
	exit 0
fi
tsize=$(wc -c <"$TR" 2>/dev/null || echo 0)
grep -q 'prlimit ok' "$OUT" && esc_bypass "prlimit64 capped capwatch's file size at 256 KiB (capwatch exit $rc, trace $tsize bytes, report $(report_ok && echo valid || echo MISSING))"
report_ok || { cat "$OUT" >&2; esc_bypass "no valid report (exit $rc)"; }
trace_has 'summary.get("type") == "summary"'
expect_denied process_control
exit 0
