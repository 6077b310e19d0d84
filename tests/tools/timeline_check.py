"""The HTML export's timeline, checked in headless Chromium (tests/tools/cdp.py).

    timeline_check.py --chromium EXE --html PAGE --trace TRACE --tmp DIR
                      --shot PNG --programs a,b --expand NAME
                      [--denial] [--max-lanes N] [--max-load SECONDS] [--netns]
    timeline_check.py --chromium EXE --tmp DIR [--netns] --smoke PAGE...

Loads PAGE (exported from TRACE) at 1200x900 and checks what a reader sees:
the page loads within --max-load seconds with no script error and no fetch
but itself; the canvas draws at most --max-lanes lanes, one per program,
labelled with the programs named and with the trace's process count; the
screenshot shows the lanes' bars and, with --denial, a red denial mark
(without it, none); hovering that mark shows the denied operation as the
trace recorded it; wheel, buttons and drags zoom and pan; a click on the
lane of --expand lists its processes, still drawing at most --max-lanes
lanes however many there are; lanes by parent process work. Saves the
first screenshot to --shot and the opened one next to it (-open.png).
With --smoke, every PAGE (e.g. from odd or damaged traces) must load and
draw without a script error, also after opening every lane.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chromium, png_rgb  # noqa: E402

BAR, MARK = bytes((0x8a, 0xb4, 0xf8)), bytes((0xb0, 0x00, 0x20))

STATE = """(() => {
  const c = document.getElementById('tl'), r = c.getBoundingClientRect();
  return {lanes: +c.dataset.lanes, groups: +c.dataset.groups, marks: +c.dataset.marks,
          win: c.dataset.window.split(' ').map(Number),
          labels: [...document.querySelectorAll('#tllanes li')].map(l => l.textContent),
          rect: [r.left, r.top, r.width, r.height], scroll: [window.scrollX, window.scrollY], info: document.getElementById('tlinfo').textContent};
})()"""
TIP = """(() => { const t = document.getElementById('tltip');
  return t.hidden ? null : [...t.children].map(e => e.textContent); })()"""


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def read_trace(path):
    procs, execs, denials, span = set(), {}, [], [None, None]
    for line in open(path, encoding="utf-8"):
        e = json.loads(line)
        t = e.get("type")
        if "time" in e:
            span[0] = e["time"] if span[0] is None else min(span[0], e["time"])
            span[1] = e["time"] if span[1] is None else max(span[1], e["time"])
        if t == "exec":
            execs[e["pid"]] = (e["exe"], e["argv"])
            procs.add(e["pid"])
        elif t == "spawn":
            procs.add(e["pid"])
        elif t == "op" and e["decision"] != "allow":
            denials.append(e)
    return procs, execs, denials


def mark_columns(png):
    """Columns of the clip holding a vertical run of at least 16 pixels of
    the denial colour (a mark spans its lane; text is never that tall)."""
    w, h, rows = png_rgb(png)
    out = []
    for x in range(w):
        run = best = 0
        for y in range(h):
            run = run + 1 if rows[y][3 * x:3 * x + 3] == MARK else 0
            if run > best:
                best, end = run, y
        if best >= 16:
            out.append((x, end - best // 2))
    bars = sum(r.count(BAR) for r in rows)  # a rough count: aligned or not, the colour is rare elsewhere
    return out, bars


def label_name(label):
    return label.split(" \u00d7")[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--smoke", nargs="+")
    ap.add_argument("--html")
    ap.add_argument("--trace")
    ap.add_argument("--shot")
    ap.add_argument("--programs")
    ap.add_argument("--expand")
    ap.add_argument("--denial", action="store_true")
    ap.add_argument("--max-lanes", type=int, default=200)
    ap.add_argument("--max-load", type=float, default=10)
    ap.add_argument("--netns", action="store_true")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.tmp, "home"), exist_ok=True)
    if a.smoke:
        br = Chromium(a.chromium, os.path.join(a.tmp, "profile"), os.path.join(a.tmp, "home"), netns=a.netns,
                      stderr=open(os.path.join(a.tmp, "chromium.err"), "w"))
        try:
            smoke(br, a.smoke)
        finally:
            br.close()
        return
    if not (a.html and a.trace and a.shot and a.programs and a.expand):
        ap.error("--html, --trace, --shot, --programs and --expand are required without --smoke")

    procs, execs, denials = read_trace(a.trace)
    check(bool(denials) == a.denial, "the trace has %d denials" % len(denials))
    br = Chromium(a.chromium, os.path.join(a.tmp, "profile"), os.path.join(a.tmp, "home"), netns=a.netns,
                  stderr=open(os.path.join(a.tmp, "chromium.err"), "w"))
    try:
        run(br, a, procs, execs, denials)
    finally:
        br.close()


def smoke(br, pages):
    for i, page in enumerate(pages):
        url = "file://" + os.path.abspath(page)
        if i == 0:
            br.open(url)
        else:
            br.navigate(url)
        check(not br.errors(), "%s: script errors: %s" % (page, br.errors()))
        s = br.eval(STATE)
        check(s["info"] and len(s["labels"]) == s["lanes"], "%s: not drawn: %s" % (page, s))
        br.eval("document.getElementById('tlexp').click()")
        br.mouse("mouseMoved", s["rect"][0] + s["rect"][2] * 0.7, s["rect"][1] + 40)
        br.frame()
        check(not br.errors(), "%s: script errors: %s" % (page, br.errors()))
        check(all(u == url for u in br.requests()), "%s fetched: %s" % (page, br.requests()))
        br.events.clear()
    print("# %d pages drawn without a script error" % len(pages), file=sys.stderr)


def run(br, a, procs, execs, denials):
    url = "file://" + os.path.abspath(a.html)
    took = br.open(url)
    print("# %s (%d bytes, %d processes): loaded in %.2f s" % (a.html, os.path.getsize(a.html), len(procs), took),
          file=sys.stderr)
    check(took < a.max_load, "the page took %.1f s to load (at most %.0f)" % (took, a.max_load))
    with open(a.shot, "wb") as f:
        f.write(br.screenshot())  # the first screen, as a reader opens it
    br.eval("document.getElementById('tl').scrollIntoView({block: 'center'})")  # the toolbar too
    br.frame()
    s = br.eval(STATE)
    check(not br.errors(), "script errors: %s" % br.errors())
    check(all(u == url for u in br.requests()), "the page fetched: %s" % br.requests())

    # lanes: one per program, bounded, labelled, counting every process
    names = [label_name(l) for l in s["labels"]]
    check(0 < s["lanes"] <= a.max_lanes and s["lanes"] == len(s["labels"]),
          "%d lanes drawn, %d labels" % (s["lanes"], len(s["labels"])))
    check(s["groups"] <= 150, "%d groups" % s["groups"])
    for p in a.programs.split(","):
        check(p in names, "no lane for %s among %s" % (p, names))
    if s["lanes"] == s["groups"]:
        n = sum(int(l.split(" \u00d7")[1].split(",")[0]) for l in s["labels"])
        check(n == len(procs), "the lanes count %d processes, the trace has %d" % (n, len(procs)))
    full = s["win"]
    x0, y0, w, h = s["rect"]

    # a clip is in page coordinates, input in the viewport's
    marks, bars = mark_columns(br.screenshot((x0 + s["scroll"][0], y0 + s["scroll"][1], w, h)))
    check(bars > 1000, "no lanes drawn in the screenshot (%d px of the bar colour)" % bars)
    if not a.denial:
        check(not marks and s["marks"] == 0, "denial marks in a run without denials: %s" % marks)
    else:
        check(marks and s["marks"] >= 1, "no denial mark in the screenshot (%d drawn)" % s["marks"])
        check(any("denied" in l for l in s["labels"]), "no lane says denied: %s" % s["labels"])
        # hover the mark: the card names the denied operation
        mx, my = marks[0]
        br.mouse("mouseMoved", x0 + mx + 0.5, y0 + my)
        tip = br.eval(TIP)
        check(tip is not None, "no hover card over the denial mark")
        text = "\n".join(tip)
        d = [e for e in denials if "process     %d" % e["pid"] in text]
        check(d, "the card names none of the denying processes: %s" % text)
        d = d[0]
        exe, argv = execs[d["pid"]]
        for want in ("DENIED", "program     " + exe, "argv        " + " ".join(argv),
                     "syscall     " + d["syscall"], "capability  " + d["capability"],
                     "scope       " + d["scope"], "decision    " + d["decision"], "rule        " + d["rule"]):
            check(want in text, "the card lacks %r:\n%s" % (want, text))
        br.mouse("mouseMoved", 2, 2)

    # zoom and pan
    def win():
        return br.eval(STATE)["win"]
    mid_y = y0 + min(h - 4, 40)
    br.mouse("mouseWheel", x0 + w * 0.6, mid_y, deltaX=0, deltaY=-600, modifiers=2)
    br.frame()
    z = win()
    check(z[1] - z[0] < 0.5 * (full[1] - full[0]) and full[0] <= z[0] < z[1] <= full[1],
          "Ctrl+wheel did not zoom in: %s -> %s" % (full, z))
    br.mouse("mouseWheel", x0 + w * 0.6, y0 + 6, deltaX=0, deltaY=300)
    br.frame()
    z2 = win()
    check(z2[1] - z2[0] > z[1] - z[0], "wheel over the axis did not zoom out: %s -> %s" % (z, z2))
    br.drag(x0 + w * 0.7, mid_y, x0 + w * 0.5, mid_y)
    p = win()
    check(abs((p[1] - p[0]) - (z2[1] - z2[0])) <= 2 and p[0] > z2[0],
          "dragging the lanes left did not pan later: %s -> %s" % (z2, p))
    br.click(x0 + w * 0.6, mid_y, count=2)
    check(win() == full, "double-click did not show the whole run: %s" % win())
    br.drag(x0 + w * 0.45, y0 + 8, x0 + w * 0.55, y0 + 8)
    b = win()
    check(0 < b[1] - b[0] < 0.2 * (full[1] - full[0]), "dragging along the axis did not zoom: %s" % b)
    r = br.eval("(() => { const r = document.getElementById('tlfit').getBoundingClientRect();"
                " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    br.click(r[0], r[1])
    check(win() == full, "the fit button did not show the whole run: %s" % win())

    # open the lane of --expand: found by hovering down the label column
    y, found = y0 + 2, None
    while y < y0 + h and found is None:
        br.mouse("mouseMoved", x0 + 40, y)
        tip = br.eval(TIP)
        if tip and tip[0] == a.expand:
            found = y
        y += 4
    check(found is not None, "no lane labelled %s under the pointer" % a.expand)
    before = br.eval(STATE)
    br.click(x0 + 40, found)
    after = br.eval(STATE)
    opened = [l for l in after["labels"] if l.startswith("process ") and (" " + a.expand) in l]
    check(after["lanes"] > before["lanes"] and opened, "clicking %s listed no processes: %s" %
          (a.expand, after["labels"]))
    check(after["lanes"] <= a.max_lanes, "%d lanes drawn with %s open" % (after["lanes"], a.expand))
    br.mouse("mouseMoved", 2, 2)
    with open(a.shot.replace(".png", "-open.png"), "wb") as f:
        f.write(br.screenshot())
    br.eval("(() => { const v = document.getElementById('tlview'); v.scrollTop = v.scrollHeight; })()")
    br.frame()
    end = br.eval(STATE)
    check(0 < end["lanes"] <= a.max_lanes and end["labels"] != after["labels"],
          "scrolled to the end: %d lanes, %s" % (end["lanes"], end["labels"][-3:]))

    # lanes by parent process
    br.eval("(() => { const s = document.getElementById('tlby'); s.value = 'parent';"
            " s.dispatchEvent(new Event('change')); })()")
    br.frame()
    par = br.eval(STATE)
    check(par["lanes"] <= a.max_lanes and any(l.startswith("under ") for l in par["labels"]),
          "lanes by parent: %s" % par["labels"])
    check(not br.errors(), "script errors: %s" % br.errors())
    check(all(u == url for u in br.requests()), "the page fetched: %s" % br.requests())
    print("# lanes %d (groups %d), opened %d, by parent %d; marks %d" %
          (s["lanes"], s["groups"], after["lanes"], par["lanes"], s["marks"]), file=sys.stderr)


if __name__ == "__main__":
    t = time.monotonic()
    main()
    print("# checked in %.1f s" % (time.monotonic() - t), file=sys.stderr)
