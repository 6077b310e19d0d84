#!/bin/sh
# E67: tampering with capwatch's own files: the report, the trace and the
# profile placed inside the workspace (writable by the target under
# verify), and forged trace lines appended to the trace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
prof=$(esc_profile myprof '{"external_network": "deny"}' verify)
cp "$prof" "$W/profile.json"
canary_save "$W/profile.json"
cmd='echo "{\"type\":\"op\",\"decision\":\"allow\",\"forged\":1}" >> trace.jsonl; echo "{}" > report.json; echo "{\"name\":\"x\",\"extends\":\"observe\"}" > profile.json'
bare sh -c "$cmd"
grep -qx '{"type":"op","decision":"allow","forged":1}' "$W/trace.jsonl" || esc_control_failed "bare append to the trace failed"
rm -f "$W/trace.jsonl" "$W/report.json"; cp "$prof" "$W/profile.json"; canary_save "$W/profile.json"
N=$((N + 1)); R=$W/report.json TR=$W/trace.jsonl OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile "$W/profile.json" --report "$R" --trace "$TR" -- sh -c "$cmd" >"$OUT" 2>&1
grep -qx '{"type":"op","decision":"allow","forged":1}' "$TR" && esc_bypass "the command appended a forged line to capwatch's trace $TR"
canary_intact "$W/profile.json" || esc_bypass "the command rewrote the run's profile file"
report_has 'd["schema"] == "capwatch.report/v1"'
expect_denied protected_metadata
