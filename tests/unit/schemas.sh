#!/bin/sh
# The JSON layer's output against its published schemas: gen_samples writes
# a report and a trace covering every line type (non-UTF-8 and control
# characters included) with libcwpolicy, schema_check.py validates them and
# compares the schemas' enumerations with the names the library prints.
# Then deliberately broken copies must be rejected, so this test can fail.
. "$top_srcdir/tests/lib.sh"

[ "$PYTHON3" != no ] && command -v "$PYTHON3" >/dev/null 2>&1 || skip "python3 not found"
"$PYTHON3" -c 'import jsonschema' 2>/dev/null || skip "python3 module jsonschema is missing"

cw_tmpdir
GEN=$top_builddir/tests/unit/gen_samples
CHECK=$top_srcdir/tests/unit/schema_check.py
SCHEMAS=$top_srcdir/schemas

"$GEN" "$T" || fail "gen_samples failed"
"$PYTHON3" "$CHECK" --schemas "$SCHEMAS" --report "$T/report.json" \
	--trace "$T/trace.jsonl" --names "$T/names.json" || fail "samples do not validate"

# The minimal reports (issue 14) validate too, and say why they are minimal.
for m in minimal watchdog; do
	"$PYTHON3" "$CHECK" --schemas "$SCHEMAS" --report "$T/report-$m.json" || fail "report-$m.json does not validate"
done
"$PYTHON3" - "$T" <<'PY' || fail "the minimal reports lack their outcome or reason"
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/report-minimal.json", encoding="utf-8"))
full = json.load(open(d + "/report.json", encoding="utf-8"))
assert m["outcome"]["kind"] == full["outcome"]["kind"] and m["outcome"]["exit"] == full["outcome"]["exit"], m["outcome"]
assert "File too large" in m["outcome"]["enforcement"]["downgradeReason"], m["outcome"]["enforcement"]
assert m["denials"] == [] and m["processes"] == [] and m["outcome"]["changes"] == []
assert m["command"] == full["command"] and m["stats"]["events"] == 15
w = json.load(open(d + "/report-watchdog.json", encoding="utf-8"))
assert w["outcome"]["kind"] == "timed_out" and "exit" not in w["outcome"] and "denial" not in w["outcome"], w["outcome"]
assert "did not return" in w["outcome"]["enforcement"]["downgradeReason"]
PY

# The samples must cover what they claim to, or validating them proves little.
"$PYTHON3" - "$T" <<'PY' || fail "samples do not cover every line type and byte class"
import json, sys
d = sys.argv[1]
lines = [json.loads(l) for l in open(d + "/trace.jsonl", encoding="utf-8")]
types = {l["type"] for l in lines}
want = {"header", "op", "spawn", "exec", "exit", "note", "summary"}
assert types == want, types
text = open(d + "/trace.jsonl", encoding="utf-8").read()
for k in ("resolved_hex", "resolved2_hex", "addr_hex", "argv_hex", "roots_hex", "protected_hex",
          "args_hex", "message_hex", "argv_truncated", "cwd_hex", "\\n", "\\u001b"):
    assert k in text, k
rep = open(d + "/report.json", encoding="utf-8").read()
for k in ("workingDirectory_hex", "args_hex", "argv_hex", "scope_hex", "path_hex", "to_hex",
          "exe", "\\u2028", '"annotations"', '"colocation"'):
    assert k in rep, k
PY

# Broken copies: each must make schema_check exit 1.
"$PYTHON3" - "$T" <<'PY' || fail "could not write the broken samples"
import json, sys
d = sys.argv[1]
rep = json.load(open(d + "/report.json", encoding="utf-8"))
lines = open(d + "/trace.jsonl", encoding="utf-8").read().splitlines()
names = json.load(open(d + "/names.json", encoding="utf-8"))

def report(name, f):
    r = json.loads(json.dumps(rep))
    f(r)
    json.dump(r, open("%s/bad-report-%s.json" % (d, name), "w", encoding="utf-8"), ensure_ascii=False)

def trace(name, f):
    ls = [json.loads(l) for l in lines]
    ls = f(ls)
    with open("%s/bad-trace-%s.jsonl" % (d, name), "w", encoding="utf-8") as o:
        for l in ls:
            o.write((l if isinstance(l, str) else json.dumps(l, ensure_ascii=False)) + "\n")

def first_op(ls):
    return next(l for l in ls if l["type"] == "op")

report("kind", lambda r: r["outcome"].__setitem__("kind", "bogus"))
report("capability", lambda r: r["capabilitiesUsed"][0].__setitem__("kind", "netwrk"))
report("noexit", lambda r: r["outcome"].pop("exit"))
report("hexmismatch", lambda r: r.__setitem__("workingDirectory_hex", "2f"))
report("extra", lambda r: r.__setitem__("unexpected", 1))
report("recoverable", lambda r: r["outcome"]["denial"].__setitem__("recoverable", "yes"))
report("colocation", lambda r: r["stats"]["colocation"].pop("rescues"))
def cap(ls):
    first_op(ls)["capability"] = "netwrk"
    return ls
trace("capability", cap)
def notype(ls):
    ls[2].pop("type")
    return ls
trace("notype", notype)
trace("seqgap", lambda ls: ls[:3] + ls[4:])
def newer(ls):
    ls[0]["schema"] = "capwatch.trace/v2"
    return ls
trace("newer", newer)
def rawnl(ls):
    # the line as capwatch wrote it, with one escaped newline made raw
    i = ls.index(first_op(ls))
    assert "\\n" in lines[i]
    ls[i] = lines[i].replace("\\n", "\n", 1)
    return ls
trace("rawnewline", rawnl)
def badhex(ls):
    first_op(ls)["resolved_hex"] = "zz"
    return ls
trace("badhex", badhex)
names["capabilities"].append("telepathy")
json.dump(names, open(d + "/bad-names.json", "w", encoding="utf-8"))
PY

n=0
for f in "$T"/bad-report-*.json; do
	"$PYTHON3" "$CHECK" --schemas "$SCHEMAS" -q --report "$f" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "broken sample $(basename "$f") was not rejected (exit $rc)"
	n=$((n + 1))
done
for f in "$T"/bad-trace-*.jsonl; do
	"$PYTHON3" "$CHECK" --schemas "$SCHEMAS" -q --trace "$f" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "broken sample $(basename "$f") was not rejected (exit $rc)"
	n=$((n + 1))
done
"$PYTHON3" "$CHECK" --schemas "$SCHEMAS" -q --names "$T/bad-names.json" 2>"$T/err"
[ $? -eq 1 ] || fail "a capability missing from the schemas was not noticed"
grep -q telepathy "$T/err" || fail "the names mismatch message does not name the value"
[ $n -eq 13 ] || fail "expected 13 broken samples, made $n"
echo "ok: samples valid, $((n + 1)) broken samples rejected"
