"""Drive headless Chromium through the DevTools protocol on a pipe.

Chromium started with --remote-debugging-pipe reads protocol messages on
descriptor 3 and writes its answers on descriptor 4, each a JSON text ended
by a NUL byte: no socket, no port, nothing on the network, and nothing to
install besides Debian's chromium. Enough of the protocol for the HTML
export's tests: open a page, evaluate script in it, send mouse input, take
a screenshot, and see what the page fetched or threw.
"""
import base64
import json
import os
import select
import struct
import subprocess
import time
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class CDPError(Exception):
    pass


class Chromium:
    def __init__(self, exe, profile, home, width=1200, height=900, netns=False, stderr=None):
        r3, w3 = os.pipe()  # our commands: chromium's descriptor 3
        r4, w4 = os.pipe()  # its answers: chromium's descriptor 4

        def child():
            a, b = os.dup(r3), os.dup(w4)  # copies first: r3 or w4 may be 3 or 4
            os.dup2(a, 3)
            os.dup2(b, 4)

        argv = [exe] + FLAGS + ["--user-data-dir=" + profile, "--remote-debugging-pipe",
                                "--window-size=%d,%d" % (width, height), "about:blank"]
        if netns:
            argv = ["unshare", "-n"] + argv
        env = dict(os.environ, HOME=home)
        self.proc = subprocess.Popen(argv, preexec_fn=child, pass_fds=(3, 4), env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=stderr or subprocess.DEVNULL)
        os.close(r3)
        os.close(w4)
        self.wfd, self.rfd = w3, r4
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.width, self.height = width, height

    def _read(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
            raise CDPError("chromium did not answer in time")
        chunk = os.read(self.rfd, 1 << 20)
        if not chunk:
            raise CDPError("chromium closed its DevTools pipe (exit %s)" % self.proc.poll())
        self.buf += chunk

    def _messages(self, deadline):
        while True:
            while b"\0" in self.buf:
                msg, self.buf = self.buf.split(b"\0", 1)
                yield json.loads(msg)
            self._read(deadline)

    def call(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        mid = self.next_id
        m = {"id": mid, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        data = json.dumps(m).encode() + b"\0"
        while data:
            data = data[os.write(self.wfd, data):]
        for msg in self._messages(time.monotonic() + timeout):
            if msg.get("id") == mid:
                if "error" in msg:
                    raise CDPError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self.events.append(msg)

    def wait_event(self, method, timeout=60):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        for msg in self._messages(time.monotonic() + timeout):
            if msg.get("method") == method:
                return msg
            self.events.append(msg)

    def open(self, url, timeout=60):
        """Attach to the first page, size it, load URL; returns the seconds
        from the navigation to the load event."""
        page = [t for t in self.call("Target.getTargets", session=False)["targetInfos"]
                if t["type"] == "page"][0]
        self.session = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        return self.navigate(url, timeout)

    def navigate(self, url, timeout=60):
        """Load URL in the attached page; the seconds to its load event."""
        t0 = time.monotonic()
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", timeout)
        took = time.monotonic() - t0
        self.frame()
        return took

    def eval(self, expr, timeout=60):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True},
                      timeout=timeout)
        if "exceptionDetails" in r:
            raise CDPError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def frame(self):
        """Wait until what the page drew so far is on screen."""
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def mouse(self, kind, x, y, **kw):
        p = {"type": kind, "x": x, "y": y}
        p.update(kw)
        self.call("Input.dispatchMouseEvent", p)

    def click(self, x, y, count=1):
        self.mouse("mouseMoved", x, y)
        for n in range(1, count + 1):
            self.mouse("mousePressed", x, y, button="left", buttons=1, clickCount=n)
            self.mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=n)
        self.frame()

    def drag(self, x0, y0, x1, y1, steps=8):
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
        for i in range(1, steps + 1):
            self.mouse("mouseMoved", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps,
                       button="left", buttons=1)
        self.mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)
        self.frame()

    def screenshot(self, clip=None):
        """PNG of the viewport, or of CLIP (x, y, width, height in CSS pixels)."""
        p = {"format": "png"}
        if clip:
            p["clip"] = dict(zip(("x", "y", "width", "height"), clip), scale=1)
        return base64.b64decode(self.call("Page.captureScreenshot", p)["data"])

    def errors(self):
        """Exceptions thrown and errors logged by the page so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(json.dumps(p.get("exceptionDetails"))[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append(json.dumps(p.get("args"))[:500])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(p["entry"].get("text", "")[:500])
        return out

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.wfd)
        os.close(self.rfd)


def png_rgb(b):
    """(width, height, rows): rows[y][3x:3x+3] is the RGB of pixel (x, y)."""
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8])
        body = b[pos + 8:pos + 8 + n]
        assert zlib.crc32(t + body) == struct.unpack(">I", b[pos + 8 + n:pos + 12 + n])[0], "bad CRC"
        if t == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif t == b"IDAT":
            idat += body
        elif t == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, ihdr
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, pos = bytearray(stride), [], 0
    for _ in range(h):
        f, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            up = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c
                pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
            else:
                assert f == 0, "filter %d" % f
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
    return w, h, rows
