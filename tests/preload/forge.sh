#!/bin/sh
# Issue 5: the preload channel is an untrusted annotation channel. A member
# of the tree that writes forged, malformed, truncated, oversized and
# flooding messages into it (pl_forge, raw syscalls) cannot change a
# decision in either direction: a denied connect stays denied, an approved
# one stays allowed; the bad messages are counted in stats.annotations and
# flagged by a "note" event; injected text never reaches the report raw.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"

cat >"$T/run.sh" <<RUNEOF
cd "$W"
"$CAPWATCH" --report "$O/deny.json" --trace "$O/deny.jsonl" -- "$PL_BIN/pl_forge" 203.0.113.7 443 approved.example >"$O/deny.out" 2>"$O/deny.err"
"$CAPWATCH" --approve-risk forge-test --report "$O/allow.json" -- "$PL_BIN/pl_forge" 203.0.113.7 443 >"$O/allow.out" 2>"$O/allow.err"
"$CAPWATCH" --report "$O/honest.json" -- "$PL_BIN/pl_static" 203.0.113.7 443 >"$O/honest.out" 2>&1
exit 0
RUNEOF
pl_ns "sh '$T/run.sh'"

grep -qx 'connect: EPERM' "$O/deny.out" || fail "forger under verify: expected EPERM, got: $(cat "$O/deny.out")"
grep -qx 'connect: ENETUNREACH' "$O/allow.out" || fail "forger with --approve-risk: expected the allowed connect (ENETUNREACH), got: $(cat "$O/allow.out")"
grep -qx 'connect: EPERM' "$O/honest.out" || fail "control: expected EPERM, got: $(cat "$O/honest.out")"

"$CW_PY" - "$O" <<'PYEOF' || fail "report/trace checks"
import json, sys
O = sys.argv[1]
bad = []
def check(c, what):
    if not c:
        bad.append(what)
deny = json.load(open(f"{O}/deny.json"))
allow = json.load(open(f"{O}/allow.json"))
honest = json.load(open(f"{O}/honest.json"))
def net(r):
    return [d for d in r["denials"] if d["capability"]["kind"] == "external_network"]
# The decision is the one taken without any annotation.
dn, hn = net(deny), net(honest)
check(len(dn) == 1 and len(hn) == 1, f"denials: {len(dn)} with forgery, {len(hn)} without")
if dn and hn:
    for k in ("decision", "rule", "capability", "reason"):
        check(dn[0].get(k) == hn[0].get(k), f"{k}: {dn[0].get(k)!r} with forgery, {hn[0].get(k)!r} without")
# enforcement_denied unless the program went on and exited 0 (issue 17 item 11)
check(dn and deny["outcome"]["kind"] == ("success" if dn[0]["tolerated"] else "enforcement_denied"),
      f"deny outcome {deny['outcome']['kind']}")
check(not net(allow), "an approved connect was denied after forged annotations")
check(allow["outcome"]["kind"] in ("success",), f"allow outcome {allow['outcome']['kind']}")
# Counted and flagged.
a = deny["stats"]["annotations"]
check(a["malformed"] >= 6, f"malformed {a['malformed']} < 6 (bad magic, truncated, oversized, bad host, foreign tid, unknown type)")
check(a["received"] <= 2100 or a["flooded"] >= 1, f"{a['received']} received in a burst but none dropped by the rate limit")
notes = [json.loads(l) for l in open(f"{O}/deny.jsonl")]
notes = [e for e in notes if e.get("type") == "note" and "preload channel" in e.get("message", "")]
check(any("malformed" in e["message"] for e in notes), "no note flags the malformed annotations")
# Injected text never appears raw.
text = open(f"{O}/deny.json").read() + open(f"{O}/deny.jsonl").read()
check("ALLOW external_network" not in text, "the forged host name reached the report or trace")
check("init.example" not in text, "a name claimed for another process's thread was used")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
exit 0
