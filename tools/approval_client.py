#!/usr/bin/env python3
"""An example client of capwatch's approval socket (docs/agents.md).

capwatch --approval-socket PATH creates a unix stream socket at PATH. Every
operation the profile says "ask" for waits (the syscall is held in the
kernel) until a client answers. The protocol is newline-delimited JSON:

  request  (capwatch -> client):
    {"id": 7, "pid": 1234, "tid": 1234, "program": "/usr/bin/python3.11",
     "operation": "connect", "capability": "external_network",
     "scope": "203.0.113.7:80", "rule": "verify:external_network:default",
     "reason": "...", "timeout": 60}
  response (client -> capwatch):
    {"id": 7, "decision": "allow" | "deny", "remember": false | true}

"remember": true applies the answer to the same (capability, scope) for the
rest of the run. No answer before the timeout, or a client that disconnects
with questions open, means deny. A malformed line gets {"error": "..."}.

Usage:
  approval_client.py SOCKET [--allow PATTERN]... [--remember]
                     [--sequence allow,deny,...] [--wait-for FILE]
                     [--drop] [--log FILE] [--max N]

PATTERN is a shell-style glob over "capability:scope", e.g.
"external_network:203.0.113.*:443". Requests that match no --allow are
denied. --sequence answers the first requests in the given order instead
(then the patterns apply). --wait-for holds every answer until FILE exists.
--drop disconnects at the first request without answering. Each request is
appended to --log as one JSON line. The client exits when capwatch closes
the socket, or after --max answers.
"""
import argparse
import fnmatch
import json
import os
import socket
import sys
import time


def connect(path, deadline):
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("socket")
    ap.add_argument("--allow", action="append", default=[])
    ap.add_argument("--remember", action="store_true")
    ap.add_argument("--sequence", default="")
    ap.add_argument("--wait-for")
    ap.add_argument("--drop", action="store_true")
    ap.add_argument("--log")
    ap.add_argument("--max", type=int, default=0)
    ap.add_argument("--connect-timeout", type=float, default=30)
    a = ap.parse_args()

    seq = [x for x in a.sequence.split(",") if x]
    s = connect(a.socket, time.monotonic() + a.connect_timeout)
    f = s.makefile("rwb", buffering=0)
    answered = 0
    for raw in f:
        req = json.loads(raw)
        if "id" not in req:
            print("capwatch said: %s" % req, file=sys.stderr)
            continue
        if a.log:
            with open(a.log, "a") as lf:
                lf.write(json.dumps(req) + "\n")
        if a.drop:
            return 0
        if a.wait_for:
            while not os.path.exists(a.wait_for):
                time.sleep(0.02)
        what = "%s:%s" % (req["capability"], req["scope"])
        if seq:
            decision = seq.pop(0)
        else:
            decision = "allow" if any(fnmatch.fnmatchcase(what, p) for p in a.allow) else "deny"
        resp = {"id": req["id"], "decision": decision, "remember": a.remember}
        f.write((json.dumps(resp) + "\n").encode())
        answered += 1
        if a.max and answered >= a.max:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
