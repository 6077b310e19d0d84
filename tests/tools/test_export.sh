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
has "$T/s.html" "<svg"
# the page has exactly one inline script of ours
[ "$(grep -c '<script>' "$T/s.html")" -eq 1 ] || fail "unexpected script elements"

# bad arguments
run_cw "$T/out" "$T/err" export --format svg "$T/s.jsonl"
expect_rc 125 "export --format svg"
run_cw "$T/out" "$T/err" export --format html "$T/nope.jsonl" -o "$T/n.html"
expect_rc 2 "export of a missing trace"
[ ! -e "$T/n.html" ] || fail "a half-written page was left behind"
exit 0
