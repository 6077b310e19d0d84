#!/bin/sh
# The preload loads libunwind only for a full backtrace (issue 8: the
# per-process cost). A process that takes none (/bin/true; a connect to a
# numeric address, async-signal-safe, with no resolver call before it)
# opens neither libunwind nor liblzma and still says hello; the connect
# still has its call site. A resolver call loads the unwinder, and the
# connect after it has the whole chain.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"

cd "$W" || fail "cd $W"
"$CAPWATCH" --report "$O/true.json" --trace "$O/true.jsonl" -- /bin/true >"$O/true.out" 2>&1 ||
	fail "capwatch /bin/true: $(cat "$O/true.out")"

cat >"$T/run.sh" <<RUNEOF
cd "$W"
run() { name=\$1; shift; "$CAPWATCH" --report "$O/\$name.json" --trace "$O/\$name.jsonl" -- "\$@" >"$O/\$name.out" 2>&1; echo \$? >"$O/\$name.rc"; }
run num "$PL_BIN/pl_net" 203.0.113.7 443
run name "$PL_BIN/pl_net" files.example.test 443
exit 0
RUNEOF
pl_ns "sh '$T/run.sh'"
[ -f "$O/num.rc" ] || fail "the namespace script did not run"
for n in num name; do
	grep -qx 'connect: EPERM' "$O/$n.out" || fail "$n: expected a denied connect, got: $(cat "$O/$n.out")"
done

"$CW_PY" - "$O" "$PL_BIN" <<'PYEOF' || fail "report/trace checks"
import json, os, sys
O, BIN = sys.argv[1:3]
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

def unwinder_opens(name):
    return [e for e in map(json.loads, open(f"{O}/{name}.jsonl"))
            if e.get("type") == "op" and any(s in (e.get("resolved") or "") for s in ("libunwind", "liblzma"))]

def opens(name):
    return [e for e in map(json.loads, open(f"{O}/{name}.jsonl")) if e.get("type") == "op"]

# /bin/true: the preload runs (hello), the unwinder is not loaded.
r = json.load(open(f"{O}/true.json"))
procs = [p for p in r["processes"] if p["exe"] and os.path.basename(p["exe"]) == "true"]
check(procs and procs[0]["preload"] == "present", f"true: preload {[p['preload'] for p in procs]}")
check(any("libcapwatch-preload" in (e.get("resolved") or "") for e in opens("true")),
      "true: the preload library was not opened (is the preload on?)")
check(not unwinder_opens("true"), f"true: unwinder loaded: {[e.get('resolved') for e in unwinder_opens('true')]}")

def denial(name):
    r = json.load(open(f"{O}/{name}.json"))
    ds = [d for d in r["denials"] if d["capability"]["kind"] == "external_network"]
    check(len(ds) == 1, f"{name}: {len(ds)} external_network denials")
    return ds[0] if ds else {}

# A numeric connect: no resolver annotation, the call site only.
d = denial("num")
check(d.get("site", "").startswith("fetch_from_host+0x"), f"num: site {d.get('site')!r}")
check(d.get("backtrace") == [d.get("site")], f"num: backtrace {d.get('backtrace')!r}, want the call site alone")
check(not unwinder_opens("num"), f"num: unwinder loaded: {[e.get('resolved') for e in unwinder_opens('num')]}")

# By name: getaddrinfo loads the unwinder; the connect has the chain.
d = denial("name")
check(d.get("host") == "files.example.test", f"name: host {d.get('host')!r}")
check(d.get("site", "").startswith("fetch_from_host+0x"), f"name: site {d.get('site')!r}")
check(any(f.startswith("main+0x") for f in d.get("backtrace", [])), f"name: no main in {d.get('backtrace')}")
check(unwinder_opens("name"), "name: libunwind was not opened for the resolver's backtrace")

for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
exit 0
