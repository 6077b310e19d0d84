#!/bin/sh
# E70: prlimit64(capwatch's pid, RLIMIT_FSIZE, 1): the supervisor's own
# writes past one byte raise SIGXFSZ (default action: die with a core),
# so the report and trace are lost and the run ends without a verdict.
# Capability sought: process_control over capwatch itself.
# Expected after the fix: EPERM, a process_control denial naming capwatch's
# pid, capwatch's limit unchanged; the report is written and non-empty.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/pl.py" <<'PYEOF'
import os, resource, sys
pid = os.getppid() if sys.argv[1] == "PARENT" else int(sys.argv[1])
try:
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, 1))
    print("prlimit ok")
except OSError as e:
    print("prlimit failed", e.errno)
# a few events for the trace after the limit
for i in range(50):
    try:
        os.stat("/etc/passwd"); open("/etc/hostname").close()
    except OSError:
        pass
PYEOF
victim_start sleep 60
bare "$PY" "$T/pl.py" "$VICTIM_PID"
grep -q 'prlimit ok' "$O/bare.out" && grep -q '^Max file size *1 *1 ' "/proc/$VICTIM_PID/limits" ||
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
	esc_none_allowed "$ESC_CW_PID"
	exit 0
fi
grep -q 'prlimit ok' "$OUT" && esc_bypass "prlimit64 lowered capwatch's own RLIMIT_FSIZE to 1 byte (capwatch exit $rc, report $( [ -s "$R" ] && echo present || echo MISSING))"
report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after the prlimit attack (exit $rc)"; }
expect_denied process_control
exit 0
