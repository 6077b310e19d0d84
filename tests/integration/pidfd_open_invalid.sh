#!/bin/sh
# pidfd_open of pid 0 or a negative pid names no process: the kernel fails
# it with EINVAL before looking for one, so capwatch must answer the same,
# with no decision and no denial (CPython's test_posix.test_pidfd_open
# checks pidfd_open(-1) gives EINVAL and skipped as "blocked" on the EPERM
# verify answered; tests/integration/cpython.sh). pidfd_open of the
# command itself still works.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat >"$T/p.py" <<'EOF2'
import os
for pid in (-1, 0, -12345):
    try:
        os.close(os.pidfd_open(pid))
        print(pid, "opened")
    except OSError as e:
        print(pid, "errno", e.errno)
os.close(os.pidfd_open(os.getpid()))
print("self ok")
EOF2
"$CW_PY" -c 'import os; os.pidfd_open' 2>/dev/null || skip "this python has no os.pidfd_open"
"$CW_PY" "$T/p.py" >"$O/bare.out" 2>&1
for mode in verify observe; do
	if [ "$mode" = observe ]; then set -- --observe; else set -- --profile verify; fi
	cw "$@" --report "$O/$mode.json" -- "$CW_PY" "$T/p.py" >"$O/$mode.out" 2>"$O/$mode.err"
	cmp -s "$O/bare.out" "$O/$mode.out" ||
		{ diff "$O/bare.out" "$O/$mode.out" >&2; fail "$mode: pidfd_open's answers differ from bare"; }
	report_assert "$O/$mode.json" "denials() == []"
done
grep -q '^-1 errno 22$' "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: pidfd_open(-1) is not EINVAL here"; }
exit 0
