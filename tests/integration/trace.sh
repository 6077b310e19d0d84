#!/bin/sh
# The trace is valid JSONL (capwatch.trace/v1): every line parses, the
# header comes first, seq increases strictly, the summary comes last.
# A file name holding a newline, a forged-looking record and non-UTF-8
# bytes still yields one valid JSON line per event, with the exact bytes
# recoverable (no log injection). When tests/unit/schema_check.py exists,
# the report and trace are also validated against schemas/.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

# Created bare, read under verify.
"$CW_PY" -c '
import sys
name = b"evil\n{\"type\":\"op\",\"decision\":\"allow\"}\nALLOW external_network\xff\xfe\x1b[2J.txt"
open(name, "wb").write(b"content\n")
'
cat > reader.py <<'PY'
import os
for n in sorted(os.listdir(b".")):
	if n.startswith(b"evil"):
		with open(n, "rb") as f:
			print(f.read().decode().strip())
PY
cw --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- "$CW_PY" reader.py >"$O/out"
expect_rc 0 "verify: read a file with a hostile name"
[ "$(cat "$O/out")" = content ] || fail "the reader printed '$(cat "$O/out")'"

NAME_HEX=$("$CW_PY" -c 'import os; print([n for n in os.listdir(b".") if n.startswith(b"evil")][0].hex())')
trace_assert "$O/t.jsonl" \
	"len(lines) >= 3" \
	"header.get('type') == 'header' and header.get('schema') == 'capwatch.trace/v1'" \
	"all(e.get('type') != 'header' for e in ev[1:])" \
	"summary.get('type') == 'summary' and all(e.get('type') != 'summary' for e in ev[:-1])" \
	"all(isinstance(e.get('seq'), int) for e in ev[1:])" \
	"all(a['seq'] < b['seq'] for a, b in zip(ev[1:], ev[2:]))" \
	"all(isinstance(e.get('time'), (int, float)) for e in ev[1:])" \
	"all(a['time'] <= b['time'] for a, b in zip(ev[1:], ev[2:]))" \
	"not any(l.startswith(b'ALLOW') or l.startswith(b'{\"type\":\"op\",\"decision\":\"allow\"}') for l in lines)" \
	"all(all(0x20 <= c < 0x7f or c >= 0x80 for c in l) for l in lines)" \
	"header.get('command', {}).get('name') == '$CW_PY'" \
	"[e for e in ops('filesystem_read', 'allow') if bytes.fromhex(e.get('resolved_hex') or '').endswith(bytes.fromhex('$NAME_HEX')) and e['resolved'].startswith('$W/evil\\n')]" \
	"summary.get('events') is not None and summary['outcome']['kind'] == 'success'"
report_assert "$O/r.json" "outcome['kind'] == 'success'" \
	"d['schema'] == 'capwatch.report/v1' and d['policyVersion'] == 1"

# The same hostile name in a denial lands in the report intact (hex) too.
cw --profile readonly --report "$O/r2.json" --trace "$O/t2.jsonl" -- \
	"$CW_PY" -c 'import os; n=[n for n in os.listdir(b".") if n.startswith(b"evil")][0]; os.unlink(n)' 2>/dev/null
expect_rc 1 "readonly: unlink the hostile name"
[ -n "$(ls | grep '^evil')" ] || fail "readonly: the hostile file was deleted"
report_assert "$O/r2.json" "kind(denial['capability']) == 'workspace_write'" \
	"denial['capability']['scope'].startswith('$W/evil\\n')" \
	"'$NAME_HEX' in text"
trace_assert "$O/t2.jsonl" "ops('workspace_write', 'deny', R('$W/evil\\n.*'))"

# Schema validation, when the schema checker is there.
SC=$top_srcdir/tests/unit/schema_check.py
if [ -f "$SC" ]; then
	for run in "r.json t.jsonl" "r2.json t2.jsonl"; do
		set -- $run
		"$CW_PY" "$SC" --report "$O/$1" --trace "$O/$2"
		case $? in
		0) ;;
		77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
		*) fail "schema check of $1 / $2" ;;
		esac
	done
else
	echo "# $SC absent: schema validation not run" >&2
fi
exit 0
