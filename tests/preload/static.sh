#!/bin/sh
# Issue 5: a static binary has no loader and so no preload. It is recorded
# "preload": "absent" (trace exec event and report process), the run is not
# degraded, and enforcement is unchanged: the connect is denied under
# verify and allowed with --approve-risk, exactly as for a dynamic program.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"
[ -x "$PL_BIN/pl_static" ] || fail "pl_static not built"

cat >"$T/run.sh" <<RUNEOF
cd "$W"
"$CAPWATCH" --report "$O/s.json" --trace "$O/s.jsonl" -- "$PL_BIN/pl_static" 203.0.113.7 443 >"$O/s.out" 2>&1
"$CAPWATCH" --approve-risk static-test --report "$O/a.json" -- "$PL_BIN/pl_static" 203.0.113.7 443 >"$O/a.out" 2>&1
exit 0
RUNEOF
pl_ns "sh '$T/run.sh'"

grep -qx 'connect: EPERM' "$O/s.out" || fail "static binary under verify: expected EPERM, got: $(cat "$O/s.out")"
grep -qx 'connect: ENETUNREACH' "$O/a.out" || fail "static binary with --approve-risk: expected ENETUNREACH, got: $(cat "$O/a.out")"

"$CW_PY" - "$O" "$PL_BIN/pl_static" <<'PYEOF' || fail "report/trace checks"
import json, os, sys
O, prog = sys.argv[1], os.path.realpath(sys.argv[2])
bad = []
def check(c, what):
    if not c:
        bad.append(what)
r = json.load(open(f"{O}/s.json"))
ds = [d for d in r["denials"] if d["capability"]["kind"] == "external_network"]
check(len(ds) == 1 and ds[0]["capability"]["scope"] == "203.0.113.7:443", f"denials {ds}")
# enforcement_denied unless the program went on and exited 0 (issue 17 item 11)
check(ds and r["outcome"]["kind"] == ("success" if ds[0]["tolerated"] else "enforcement_denied"),
      f"outcome {r['outcome']['kind']}")
check(not r["outcome"]["enforcement"]["degraded"], "a static binary degraded the run")
check(ds and "site" not in ds[0] and "host" not in ds[0], "annotations for a process without the preload")
ps = [p for p in r["processes"] if p["exe"] and os.path.realpath(p["exe"]) == prog]
check(ps and ps[0]["preload"] == "absent", f"process preload {[p['preload'] for p in ps]}")
ex = [json.loads(l) for l in open(f"{O}/s.jsonl")]
ex = [e for e in ex if e.get("type") == "exec" and e.get("exe") and os.path.realpath(e["exe"]) == prog]
check(ex and ex[0]["preload"] == "absent", f"trace exec preload {[e.get('preload') for e in ex]}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
exit 0
