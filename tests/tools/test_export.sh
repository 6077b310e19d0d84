#!/bin/sh
# export: Chrome trace-event JSON and a self-contained, escaped HTML page.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
"$GEN" build verify >"$T/b.jsonl"
run_cw "$T/out" "$T/err" export --format chrome "$T/b.jsonl" -o "$T/c.json"
expect_rc 0 "export chrome"
[ ! -s "$T/out" ] || fail "export -o wrote to stdout"
"$PYTHON3" - "$T/c.json" <<'P' || fail "chrome trace checks"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev, "no traceEvents"
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert names[102].startswith("gcc"), names
assert set(names) == {100, 101, 102, 103, 104}, names
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == 5 and all(e["dur"] >= 0 for e in x), x
inst = [e for e in ev if e["ph"] == "i"]
assert any(e["args"].get("scope") == "/ws/out/a.o" for e in inst)
den = [e for e in ev if e.get("cat") == "denial"]
assert len(den) == 3, den
assert all(e["name"].startswith("DENIED ") for e in den), den
assert {e["pid"] for e in den} == {103, 104}
P
# to stdout as well
run_cw "$T/out" "$T/err" export --format chrome "$T/b.jsonl"
expect_rc 0 "export chrome to stdout"
"$PYTHON3" -c 'import json,sys; json.load(open(sys.argv[1]))["traceEvents"]' "$T/out" || fail "stdout not JSON"

# html: self-contained, every string escaped
"$GEN" script verify >"$T/s.jsonl"
run_cw "$T/out" "$T/err" export --format html -o "$T/s.html" "$T/s.jsonl"
expect_rc 0 "export html"
has "$T/s.html" "<!DOCTYPE html>"
has "$T/s.html" "&lt;script&gt;alert(1)&lt;/script&gt;"
has "$T/s.html" "/etc/&lt;img src=x onerror=alert(2)&gt;"
has "$T/s.html" "&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;"
hasnt "$T/s.html" "<script>alert"
hasnt "$T/s.html" "<img"
hasnt "$T/s.html" "http://"
hasnt "$T/s.html" "https://"
# no element loads anything: no src/href/action attributes, no CSS imports
"$PYTHON3" - "$T/s.html" <<'P' || fail "html references a resource"
import html.parser, sys
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            assert k not in ("src", "href", "action", "srcset", "data", "poster"), (tag, k, v)
        assert tag not in ("link", "iframe", "img", "object", "embed", "base"), tag
    def handle_data(self, data):
        if self.lasttag == "style":
            assert "@import" not in data and "url(" not in data, data
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
P
# the three parts
has "$T/s.html" "<h2>Process tree</h2>"
has "$T/s.html" "<h2>Timeline</h2>"
has "$T/s.html" "<h2>Denials (2)</h2>"
has "$T/s.html" "<h2>Programs (1)</h2>"
has "$T/s.html" '<canvas id="tl"'
# the page has exactly one inline script of ours, which nothing in the
# trace ends early: its data holds the names with '<' as \u003c
[ "$(grep -c '<script>' "$T/s.html")" -eq 1 ] || fail "unexpected script elements"
[ "$(grep -c '</script' "$T/s.html")" -eq 1 ] || fail "something ends the script element early"
hasnt "$T/s.html" "<!--"
has "$T/s.html" '"/ws/\u003cscript>alert(1)\u003c/script>"'
# the data block: every process, every operation of this small trace, and
# indices that stay inside the string table
"$PYTHON3" - "$T/s.html" "$T/s.jsonl" <<'P' || fail "the timeline's data block"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"var CWD=(\{.*?\});\n", page, re.S)
assert m, "no data block"
d = json.loads(m.group(1))
ev = [json.loads(l) for l in open(sys.argv[2])]
ops = [e for e in ev if e.get("type") == "op"]
P, E, S = d["P"], d["E"], d["S"]
assert len(P) == 10 * d["procs"], (len(P), d["procs"])
assert len(E) == 8 * len(ops), (len(E), len(ops))
assert all(0 <= P[i] < len(S) for k in range(0, len(P), 10) for i in (k + 2, k + 3, k + 6, k + 9))
assert all(0 <= E[i] < len(S) for k in range(0, len(E), 8) for i in (k + 2, k + 3, k + 4, k + 5, k + 7))
den = [k for k in range(0, len(E), 8) if E[k + 6] & 1]
assert len(den) == 2, den
assert "/ws/<script>alert(1)</script>" in S, S
assert "203.0.113.7:443 (\"><script>alert(3)</script>)" in S, S
P

# a trace too large to draw every operation: the page holds a bounded
# sample with every denial, spread over the whole run
"$GEN" big 100000 verify >"$T/big.jsonl"
run_cw "$T/out" "$T/err" export --format html -o "$T/big.html" "$T/big.jsonl"
expect_rc 0 "export html of a large trace"
"$PYTHON3" - "$T/big.html" "$T/big.jsonl" <<'P' || fail "the large trace's sample"
import json, os, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r"var CWD=(\{.*?\});\n", page, re.S).group(1))
E, S = d["E"], d["S"]
times = [json.loads(l).get("time", 0) for l in open(sys.argv[2])]
ops = sum(1 for l in open(sys.argv[2]) if '"type":"op"' in l)
den = sum(1 for l in open(sys.argv[2]) if '"type":"op"' in l and '"decision":"allow"' not in l)
assert sum(d["seen"]) == ops == d["ops"], (d["seen"], ops)
assert len(E) == 8 * 20000, len(E) // 8
assert sum(1 for k in range(0, len(E), 8) if E[k + 6] & 1) == den == d["denials"] == 100, den
kinds = {S[E[k + 3]] for k in range(0, len(E), 8)}
assert {"filesystem_read", "workspace_write", "external_network"} <= kinds, kinds
t = sorted(E[k] for k in range(0, len(E), 8) if not E[k + 6] & 1)
assert t == sorted(t) and t[0] < 0.01 * d["span"] and t[-1] > 0.99 * d["span"], (t[0], t[-1], d["span"])
# evenly spread: no tenth of the run holds more than twice its share
tenth = [0] * 10
for x in t:
    tenth[min(9, int(10 * x / d["span"]))] += 1
assert max(tenth) < 2 * len(t) / 10, tenth
assert os.path.getsize(sys.argv[1]) < 2_000_000, os.path.getsize(sys.argv[1])
P
has "$T/big.html" "The timeline draws 20000 of the 100150 operations"

# bad arguments
run_cw "$T/out" "$T/err" export --format svg "$T/s.jsonl"
expect_rc 125 "export --format svg"
run_cw "$T/out" "$T/err" export --format html "$T/nope.jsonl" -o "$T/n.html"
expect_rc 2 "export of a missing trace"
[ ! -e "$T/n.html" ] || fail "a half-written page was left behind"
exit 0
