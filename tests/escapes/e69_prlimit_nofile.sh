#!/bin/sh
# E69: prlimit64(capwatch's pid, RLIMIT_NOFILE, 8): the command lowers the
# descriptor limit of its supervisor (its parent, outside the tree), so
# every open capwatch performs for it (emulated opens, pidfd_getfd
# duplicates, the trace) fails with EMFILE; then the command writes a file
# outside the workspace, hoping the failure is answered "continue".
# Capability sought: process_control over capwatch itself.
# Expected after the fix: prlimit64 aimed outside the tree (capwatch's own
# pid counts as outside) is refused EPERM and recorded as a process_control
# denial naming the pid; capwatch's limit is unchanged; the outside file is
# not written; the report is written and non-empty.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/pl.py" <<'PYEOF'
import os, resource, sys
pid = os.getppid() if sys.argv[1] == "PARENT" else int(sys.argv[1])
try:
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (8, 8))
    print("prlimit ok")
except OSError as e:
    print("prlimit failed", e.errno)
if len(sys.argv) > 2:
    try:
        with open(sys.argv[2], "a") as f:
            f.write("pwn\n")
        print("write ok")
    except OSError as e:
        print("write failed", e.errno)
PYEOF
victim_start sleep 60
bare "$PY" "$T/pl.py" "$VICTIM_PID"
grep -q 'prlimit ok' "$O/bare.out" && grep -q '^Max open files *8 *8 ' "/proc/$VICTIM_PID/limits" ||
	esc_control_failed "bare prlimit of an outside process did not take: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
canary_make "$H/.bashrc"
under_any verify -- "$PY" "$T/pl.py" PARENT "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "the outside file $H/.bashrc was written after lowering capwatch's RLIMIT_NOFILE ($(cat "$OUT"))"
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): getppid()
	# is 0 there, so the call above lowered the command's own limit. The
	# attack proper hands in capwatch's host pid, which names nobody
	# there: ESRCH, and capwatch's limits, read from outside while it
	# runs, unchanged; the outside file unwritten, the report valid.
	report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after prlimit(0) (exit $rc)"; }
	esc_cw_untouched verify -- "$PY" "$T/pl.py" @CWPID@ "$H/.bashrc"
	canary_intact "$H/.bashrc" || esc_bypass "the outside file $H/.bashrc was written ($(cat "$OUT"))"
	grep -q 'prlimit failed 3$' "$OUT" || esc_bypass "prlimit64 of capwatch's pid $ESC_CW_PID was not ESRCH in the tree's PID namespace: $(cat "$OUT")"
	report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after the prlimit attack (exit $rc)"; }
	esc_none_allowed "$ESC_CW_PID"
	exit 0
fi
grep -q 'prlimit ok' "$OUT" && esc_bypass "prlimit64 lowered capwatch's own RLIMIT_NOFILE under --profile verify (exit $rc)"
report_ok || { cat "$OUT" >&2; esc_bypass "no valid report after the prlimit attack (exit $rc)"; }
expect_denied process_control
exit 0
