#!/bin/sh
# E25 (failed exec): an execve that fails after the notification (here:
# ENOENT) must not be reported as a spawn or as process_spawn used
# (K21: log spawns at the exec stop; failed attempts separately).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd="import os
try: os.execv('$W/nonexistent', ['ls'])
except OSError as e: print('exec failed', e.errno)"
bare "$PY" -c "$cmd"
grep -q 'exec failed 2' "$O/bare.out" || esc_control_failed "bare exec did not fail with ENOENT: $(cat "$O/bare.out")"
under verify -- "$PY" -c "$cmd"
grep -q 'exec failed 2' "$OUT" || fail "exec did not fail with ENOENT under capwatch: $(cat "$OUT")"
"$CW_PY" "$CWCHECK" report "$R" 'not procs("nonexistent")' 'not [u for u in used("process_spawn", R(".*nonexistent")) if u.get("decision") == "allow"]' >/dev/null 2>&1 ||
	esc_bypass "misreport: a failed execve($W/nonexistent) is in capabilitiesUsed as process_spawn allowed (count 1), as if it had run"
