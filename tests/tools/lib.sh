# Helpers for the trace tools' tests. Source after tests/lib.sh.
GEN=$top_builddir/tests/tools/gen_trace
[ -x "$GEN" ] || fail "gen_trace not built"
# The real binary when it dispatches subcommands, else the tools driver.
if "$CAPWATCH" profiles --help >/dev/null 2>&1; then
	CW=$CAPWATCH
else
	CW=$top_builddir/tests/tools/cwtool
	echo "note: $CAPWATCH does not dispatch subcommands yet; using $CW" >&2
fi
# run_cw OUT ERR ARGS...: run a subcommand, keep its status in $rc
run_cw() {
	_o=$1 _e=$2
	shift 2
	set +e
	"$CW" "$@" >"$_o" 2>"$_e"
	rc=$?
	set -e
}
expect_rc() { [ "$rc" -eq "$1" ] || { cat "$T/err" >&2 2>/dev/null; fail "$2: exit $rc, expected $1"; }; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks: $2"; }; }
hasnt() { if grep -qF -- "$2" "$1"; then echo "--- $1:" >&2; cat "$1" >&2; fail "$1 has: $2"; fi; }
# validate FILE against schemas/NAME.schema.json (JSONL when the third
# argument is "lines"); skipped with a note when python3-jsonschema is missing
validate() {
	"$PYTHON3" -c 'import jsonschema' 2>/dev/null || { echo "note: jsonschema missing, $2 not validated" >&2; return 0; }
	"$PYTHON3" - "$top_srcdir/schemas/$1.schema.json" "$2" "${3:-doc}" <<'PY' || fail "$2 does not follow $1.schema.json"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
v = cls(schema)
docs = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")] if sys.argv[3] == "lines" \
	else [json.load(open(sys.argv[2], encoding="utf-8"))]
bad = 0
for i, d in enumerate(docs, 1):
	for e in v.iter_errors(d):
		print(f"{sys.argv[2]}:{i}: {e.json_path if hasattr(e, 'json_path') else list(e.path)}: {e.message}", file=sys.stderr)
		bad += 1
sys.exit(1 if bad else 0)
PY
}
