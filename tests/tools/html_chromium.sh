#!/bin/sh
# export --format html, rendered by a real browser: a real trace is exported,
# headless Chromium (Debian's chromium) takes a screenshot and dumps the DOM
# after the page's script ran. The screenshot must show a drawn report (the
# timeline's bar colour and a denial mark among its pixels), the DOM must
# carry the denial, the path and the programs, and a file name holding
# <script>alert(1)</script> must stay text, never become an element.
# Chromium opens only the file:// page, with its fetching features off, and
# inside a private network namespace when one can be made.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$CHROMIUM" ] && [ -x "$CHROMIUM" ] || skip "chromium is not installed (tools/install-deps installs it)"
[ "$CW" = "$CAPWATCH" ] || skip "capwatch does not dispatch subcommands yet"
cw_workdir
set -e
# a file name with markup in it: "<script>alert(1)<" is a directory,
# "script>" the file in it
EVIL='<script>alert(1)</script>'
mkdir "$W/<script>alert(1)<"
echo y >"$W/$EVIL"
set +e
cw --profile readonly --trace "$O/t.jsonl" -- \
	sh -c 'echo x > f; echo z > "<script>alert(1)</script>"; ls >/dev/null; cat "<script>alert(1)</script>"' \
	>"$O/out" 2>"$O/err"
set -e
if [ ! -s "$O/t.jsonl" ]; then
	cat "$O/err" >&2
	skip "the supervisor did not record a trace (exit $rc)"
fi
# both writes are denied; the shell goes on, its last command (cat) succeeds
[ "$rc" -eq 0 ] || { cat "$O/err" >&2; fail "the readonly run exited $rc"; }
[ "$(cat "$O/out")" = y ] || fail "the run printed: $(cat "$O/out")"
[ ! -e "$W/f" ] || fail "the denied write created f"
has "$O/t.jsonl" "\"scope\":\"$W/f\""
run_cw "$O/r.html" "$O/err" export --format html "$O/t.jsonl" -o "$O/r.html"
expect_rc 0 "export html of a real trace"

# chromium, bounded, never given anything but the file:// page
NS=""
unshare -n true 2>/dev/null && NS="unshare -n"
mkdir "$T/home"
chrome() {
	HOME=$T/home $NS timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$T/prof" \
		--window-size=1200,900 "$@" "file://$O/r.html"
}
chrome --screenshot="$O/shot.png" >"$O/c1.out" 2>"$O/c1.err" ||
	{ tail -20 "$O/c1.err" >&2; fail "chromium --screenshot failed"; }
chrome --dump-dom >"$O/dom.html" 2>"$O/c2.err" ||
	{ tail -20 "$O/c2.err" >&2; fail "chromium --dump-dom failed"; }

# the screenshot: a valid 1200x900 PNG with the report drawn in it
"$PYTHON3" - "$O/shot.png" <<'P' || fail "the screenshot does not show the report"
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert len(b) > 5000, f"screenshot only {len(b)} bytes"
pos, idat, ihdr = 8, b"", None
while pos < len(b):
    n, t = struct.unpack(">I4s", b[pos:pos + 8])
    body = b[pos + 8:pos + 8 + n]
    assert zlib.crc32(t + body) == struct.unpack(">I", b[pos + 8 + n:pos + 12 + n])[0], f"bad CRC in {t}"
    if t == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
    elif t == b"IDAT": idat += body
    elif t == b"IEND": break
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = ihdr
assert (w, h) == (1200, 900), (w, h)
assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, pos = bytearray(stride), {}, 0
for y in range(h):
    f, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
    pos += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        up = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + up) & 255
        elif f == 3: line[i] = (line[i] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c
            pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        else: assert f == 0, f"filter {f}"
    for x in range(0, stride, bpp):
        k = bytes(line[x:x + 3])
        colours[k] = colours.get(k, 0) + 1
    prev = line
top = sorted(colours.items(), key=lambda kv: -kv[1])
assert top[0][1] < w * h * 0.98, f"the page is nearly one colour: {top[:3]}"
assert len(colours) > 20, f"only {len(colours)} colours"
# the timeline's process bars (.bar, #8ab4f8) and the denial mark (#b00020)
bar, mark = bytes((0x8a, 0xb4, 0xf8)), bytes((0xb0, 0x00, 0x20))
assert colours.get(bar, 0) > 1000, f"no timeline bars drawn ({colours.get(bar, 0)} px)"
assert colours.get(mark, 0) > 10, f"no denial mark drawn ({colours.get(mark, 0)} px)"
P

# the DOM after the script ran
D=$O/dom.html
has "$D" "<h2>Process tree</h2>"
has "$D" "<h2>Timeline</h2>"
has "$D" "<td>workspace_write</td>"
has "$D" "<td class=\"m\">$W/f</td>"
# every program the trace saw exec'd is in the process tree
"$PYTHON3" -c '
import json, sys
for l in open(sys.argv[1]):
	d = json.loads(l)
	if d["type"] == "exec": print(d["exe"])
' "$O/t.jsonl" >"$O/exes"
[ -s "$O/exes" ] || fail "the trace has no exec records"
while read -r exe; do has "$D" "<b>$exe</b>"; done <"$O/exes"
# the name with markup is text: escaped, and no element came of it
has "$D" "$W/&lt;script&gt;alert(1)&lt;/script&gt;"
hasnt "$D" "<script>alert"
"$PYTHON3" - "$D" <<'P' || fail "the dumped DOM has unexpected elements"
import html.parser, sys
class P(html.parser.HTMLParser):
    scripts = 0
    def handle_starttag(self, tag, attrs):
        if tag == "script": self.scripts += 1
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
assert p.scripts == 1, f"{p.scripts} script elements, the page ships 1"
P
exit 0
