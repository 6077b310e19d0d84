#!/usr/bin/env python3
"""A recording sink for the escape corpus. Runs only inside the test's
private network namespace (tcp/udp on 203.0.113.7) or on a socket in the
test's own temp dir (unix) / a random abstract name (abstract).

usage: sink.py tcp|udp PORT LOG READY [ADDR]
       sink.py unix PATH LOG READY [exec]
       sink.py abstract NAME LOG READY
Every accepted connection or datagram appends one line to LOG. With
"exec", a unix client's first line is run as a shell command (the
delegated-spawn service of E45)."""
import os
import socket
import subprocess
import sys

kind, arg, log, ready = sys.argv[1:5]
extra = sys.argv[5] if len(sys.argv) > 5 else None


def record(what):
    with open(log, "a") as f:
        f.write(what.replace("\n", " ") + "\n")


if kind in ("tcp", "udp"):
    addr = extra or "203.0.113.7"
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if kind == "tcp":
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_FASTOPEN, 16)
        except OSError:
            pass
    s.bind((addr, int(arg)))
elif kind == "unix":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(arg)
elif kind == "abstract":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + arg)
else:
    sys.exit("unknown kind " + kind)
if kind != "udp":
    s.listen(64)
open(ready, "w").close()
while True:
    if kind == "udp":
        data, peer = s.recvfrom(65536)
        record("udp %r %r" % (peer, data[:64]))
        continue
    c, peer = s.accept()
    c.settimeout(2)
    data = b""
    try:
        data = c.recv(4096)
    except OSError:
        pass
    record("%s %r %r" % (kind, peer, data[:64]))
    if kind == "unix" and extra == "exec" and data:
        cmd = data.split(b"\n")[0].decode("utf-8", "replace")
        subprocess.run(["/bin/sh", "-c", cmd], timeout=10)
    c.close()
