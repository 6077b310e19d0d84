#!/bin/sh
# Issue 5: a denied connect names the host, the address, the program and
# the call site. Names come from a test hosts file inside a private network
# and mount namespace: files.example.test -> 203.0.113.7. Cases: a C program
# (getaddrinfo, and gethostbyname), python's urllib (the issue's "done
# when"), curl when installed. Control: the same run without the preload
# takes the same decision and has no host.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"

PY_REAL=$("$CW_PY" -c 'import os,sys; print(os.path.realpath(sys.executable))')
HAVE_CURL=no
command -v curl >/dev/null 2>&1 && HAVE_CURL=yes

cat >"$T/run.sh" <<RUNEOF
cd "$W"
run() { name=\$1; shift; "$CAPWATCH" --report "$O/\$name.json" --trace "$O/\$name.jsonl" -- "\$@" >"$O/\$name.out" 2>&1; echo \$? >"$O/\$name.rc"; }
run c "$PL_BIN/pl_net" files.example.test 443
run ghbn "$PL_BIN/pl_net" -h files.example.test 8443
run py "$CW_PY" -c 'import urllib.request; urllib.request.urlopen("http://files.example.test/")'
[ $HAVE_CURL = yes ] && run curl curl -sS --max-time 10 http://files.example.test:8080/
CAPWATCH_PRELOAD=none run nopl "$PL_BIN/pl_net" files.example.test 443
"$CAPWATCH" explain "$O/c.json" >"$O/explain.out" 2>&1
"$CAPWATCH" explain "$O/c.jsonl" >"$O/explain-trace.out" 2>&1
exit 0
RUNEOF
pl_ns "sh '$T/run.sh'"
[ -f "$O/c.rc" ] || fail "the namespace script did not run"

for n in c ghbn nopl; do
	grep -qx 'connect: EPERM' "$O/$n.out" || fail "$n: expected a denied connect, got: $(cat "$O/$n.out")"
done
grep -q 'Operation not permitted' "$O/py.out" || fail "python: expected EPERM, got: $(tail -3 "$O/py.out")"

"$CW_PY" - "$O" "$PL_BIN" "$PY_REAL" "$HAVE_CURL" "$top_srcdir" <<'PYEOF' || fail "report/trace checks"
import json, os, sys
O, BIN, PY, CURL, SRC = sys.argv[1:6]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

def denial(name):
    r = json.load(open(f"{O}/{name}.json"))
    ds = [d for d in r["denials"] if d["capability"]["kind"] == "external_network"]
    check(len(ds) >= 1, f"{name}: no external_network denial")
    return r, (ds[0] if ds else {})

def trace_op(name, scope):
    for line in open(f"{O}/{name}.jsonl"):
        e = json.loads(line)
        if e.get("type") == "op" and e.get("scope") == scope and e.get("decision") == "deny":
            return e
    bad.append(f"{name}: no denied op for {scope} in the trace")
    return {}

cases = [("c", "203.0.113.7:443", os.path.join(BIN, "pl_net")),
         ("ghbn", "203.0.113.7:8443", os.path.join(BIN, "pl_net")),
         ("py", "203.0.113.7:80", PY)]
if CURL == "yes":
    cases.append(("curl", "203.0.113.7:8080", os.path.realpath("/usr/bin/curl")))
for name, scope, prog in cases:
    r, d = denial(name)
    # enforcement_denied unless the program went on and exited 0 (issue 17 item 11)
    check(r["outcome"]["kind"] == ("success" if d.get("tolerated") else "enforcement_denied"),
          f"{name}: outcome {r['outcome']['kind']}")
    check(d.get("capability", {}).get("scope") == scope, f"{name}: scope {d.get('capability')}")
    check(d.get("host") == "files.example.test", f"{name}: host {d.get('host')!r}")
    check(os.path.realpath(d.get("program") or "") == os.path.realpath(prog), f"{name}: program {d.get('program')!r}, want {prog}")
    check(d.get("annotation_source") == "preload", f"{name}: annotation_source {d.get('annotation_source')!r}")
    check(d.get("site") and d.get("backtrace") and d["site"] == d["backtrace"][0], f"{name}: site/backtrace {d.get('site')!r}")
    check(not any("libcapwatch-preload" in f for f in d.get("backtrace", [])), f"{name}: the preload's own frames in the backtrace")
    check(d.get("rule") == "verify:external_network:default", f"{name}: rule {d.get('rule')!r}")
    e = trace_op(name, scope)
    check(e.get("host") == "files.example.test" and e.get("source") == "seccomp"
          and e.get("annotation_source") == "preload" and e.get("backtrace") == d.get("backtrace"),
          f"{name}: trace op lacks host/backtrace: {e}")
    procs = [p for p in r["processes"] if p["exe"] and os.path.realpath(p["exe"]) == os.path.realpath(prog)]
    check(procs and procs[0]["preload"] == "present", f"{name}: process preload {[p['preload'] for p in procs]}")
    check(r["stats"]["annotations"]["malformed"] == 0, f"{name}: malformed annotations from an honest program")

# The C program: the calling function and its caller, by name.
_, d = denial("c")
check(d.get("site", "").startswith("fetch_from_host+0x"), f"c: site {d.get('site')!r}")
check(any(f.startswith("main+0x") for f in d.get("backtrace", [])), f"c: no main in {d.get('backtrace')}")
_, d = denial("ghbn")
check(d.get("site", "").startswith("fetch_from_host+0x"), f"ghbn: site {d.get('site')!r}")
# Python: the interpreter's native frames at the connect.
_, d = denial("py")
check(any(f.startswith("_PyEval_EvalFrameDefault+0x") for f in d.get("backtrace", [])),
      f"py: no _PyEval_EvalFrameDefault in {d.get('backtrace')}")
check(any("python3" in f for f in d.get("backtrace", [])), "py: frames do not name the python module")

# Without the preload: the same decision, no host, no call site.
r0, d0 = denial("nopl")
_, d1 = denial("c")
for k in ("decision", "rule", "capability"):
    check(d0.get(k) == d1.get(k), f"without the preload the {k} differs: {d0.get(k)} vs {d1.get(k)}")
check("host" not in d0 and "site" not in d0, f"nopl: annotations without the preload: {d0}")
check(all(p["preload"] == "absent" for p in r0["processes"]), "nopl: processes not recorded preload absent")

# Schemas, when jsonschema is there.
try:
    import jsonschema
except ImportError:
    jsonschema = None
if jsonschema:
    # One validator each, its schema checked once (jsonschema.validate
    # checks the schema again on every call: seconds over a trace).
    def validator(name):
        s = json.load(open(f"{SRC}/schemas/{name}.schema.json"))
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        return cls(s)
    rv, tv = validator("report"), validator("trace")
    for name, _, _ in cases:
        try:
            rv.validate(json.load(open(f"{O}/{name}.json")))
            for line in open(f"{O}/{name}.jsonl"):
                tv.validate(json.loads(line))
        except jsonschema.ValidationError as ex:
            bad.append(f"{name}: schema: {ex.message}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF

# explain shows the host and the call site.
grep -q 'files.example.test' "$O/explain.out" || fail "explain (report) does not name the host: $(cat "$O/explain.out")"
grep -q 'fetch_from_host' "$O/explain.out" || fail "explain (report) does not show the call site: $(cat "$O/explain.out")"
grep -q 'fetch_from_host' "$O/explain-trace.out" || fail "explain (trace) does not show the call site"
[ "$HAVE_CURL" = yes ] || echo "curl not installed: the curl case was skipped" >&2
exit 0
