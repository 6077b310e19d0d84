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

# Field by field (contract section 5): the header, process events that
# pair up, op events with every field the contract lists.
cw --profile verify --trace "$O/t3.jsonl" --report "$O/r3.json" -- sh -c '/bin/true; /bin/false; cat reader.py > /dev/null; exit 4'
expect_rc 4 "verify: a small tree"
KERNEL=$(uname -r)
trace_assert "$O/t3.jsonl" \
	"header['version'] == 1 and header['profile'] == 'verify' and header['roots'] == ['$W']" \
	"header['command']['name'] == 'sh' and header['command']['args'] == ['-c', '/bin/true; /bin/false; cat reader.py > /dev/null; exit 4']" \
	"header['kernel'] == '$KERNEL'" \
	"re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)', header['start'])" \
	"[e['seq'] for e in ev[1:]] == list(range(1, len(ev)))" \
	"len(execs()) == 4 and len([e for e in ev if e['type'] == 'spawn']) == 3" \
	"sorted(e['pid'] for e in ev if e['type'] == 'exit') == sorted({e['pid'] for e in execs()})" \
	"[e['code'] for e in ev if e['type'] == 'exit' and e['pid'] == execs('/usr/bin/false')[0]['pid']] == [1]" \
	"[e['code'] for e in ev if e['type'] == 'exit' and e['pid'] == execs()[0]['pid']] == [4]" \
	"all(e['ppid'] == execs()[0]['pid'] for e in execs()[1:])" \
	"execs('/usr/bin/true')[0]['argv'] == ['/bin/true']" \
	"all(all(k in e for k in ('seq', 'time', 'pid', 'tid', 'ppid', 'source', 'syscall', 'args', 'resolved', 'capability', 'decision', 'rule', 'errno')) for e in ops())" \
	"all(e['source'] in ('seccomp', 'ptrace', 'preload') for e in ops())" \
	"ops('filesystem_read', 'allow', '$W/reader.py')" \
	"ops('process_spawn', 'allow', '/usr/bin/cat')" \
	"summary['outcome'] == {'state': 'completed', 'kind': 'application_failure'} or summary['outcome']['kind'] == 'application_failure'"
report_assert "$O/r3.json" \
	"outcome['kind'] == 'application_failure' and outcome['exit']['code'] == 4" \
	"len(procs()) == 4" \
	"all(all(k in p for k in ('pid', 'ppid', 'argv', 'exe', 'exit', 'start', 'end')) for p in procs())" \
	"procs('cat')[0]['argv'] == ['cat', 'reader.py'] and procs('cat')[0]['exit']['code'] == 0" \
	"procs('false')[0]['exit']['code'] == 1" \
	"all(p['end'] >= p['start'] for p in procs())" \
	"all(isinstance(d['stats'][k], (int, float)) for k in ('events', 'notifications', 'elapsed'))" \
	"d['stats']['events'] >= 4"

# Hostile bytes in argv: still one valid JSON line/document, bytes recoverable.
ARG=$(printf 'a\nb\377\033[2Jc')
cw --profile verify --trace "$O/t4.jsonl" --report "$O/r4.json" -- /bin/echo "$ARG" >/dev/null
expect_rc 0 "verify: echo an argument with hostile bytes"
trace_assert "$O/t4.jsonl" "'610a62ff1b5b324a63' in json_text" \
	"execs('/usr/bin/echo')[0]['argv'][1].startswith('a\nb')"
report_assert "$O/r4.json" "'610a62ff1b5b324a63' in text" "d['command']['args'][0].startswith('a\nb')"

# Schema validation, when the schema checker is there.
SC=$top_srcdir/tests/unit/schema_check.py
if [ -f "$SC" ]; then
	for run in "r.json t.jsonl" "r2.json t2.jsonl" "r3.json t3.jsonl" "r4.json t4.jsonl"; do
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

# unlinkat's AT_REMOVEDIR is in the record: a directory's removal does not
# read as an unlink (issue 17 item 14).
mkdir -p "$W/rmme"
cw --report "$O/rd.json" --trace "$O/rd.jsonl" -- rm -r "$W/rmme" >/dev/null 2>&1
expect_rc 0 "rm -r of a directory"
trace_assert "$O/rd.jsonl" "any(e.get('syscall') == 'unlinkat' and (e.get('args') or {}).get('flags') == 512 and e.get('resolved', '').endswith('/rmme') for e in ops())"
exit 0
