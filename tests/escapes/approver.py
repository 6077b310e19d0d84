#!/usr/bin/env python3
"""A scripted approver on capwatch's approval socket, for the escape corpus
(e143, e145).

  approver.py SOCKET LOG ANSWERS [ASKED WAIT]

Every question is appended to LOG as one JSON line. ANSWERS is a comma
list (allow, deny) for the first questions in order; the rest are denied.
With ASKED and WAIT: at the first question, create the file ASKED, then
hold the answer until the file WAIT exists (at most 10 s), so that the
command can act while its question is open."""
import json
import os
import socket
import sys
import time


def main():
    path, log, answers = sys.argv[1:4]
    answers = [a for a in answers.split(",") if a]
    asked = sys.argv[4] if len(sys.argv) > 5 else None
    wait = sys.argv[5] if len(sys.argv) > 5 else None
    end = time.monotonic() + 30
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            break
        except OSError:
            s.close()
            if time.monotonic() > end:
                sys.exit(3)
            time.sleep(0.02)
    f = s.makefile("rwb", buffering=0)
    n = 0
    for raw in f:
        req = json.loads(raw)
        if "id" not in req:
            continue
        n += 1
        with open(log, "a") as lf:
            lf.write(json.dumps(req) + "\n")
        if asked and n == 1:
            open(asked, "w").close()
            t = time.monotonic() + 10
            while not os.path.exists(wait) and time.monotonic() < t:
                time.sleep(0.01)
            time.sleep(0.05)
        dec = answers[n - 1] if n <= len(answers) else "deny"
        f.write((json.dumps({"id": req["id"], "decision": dec, "remember": False}) + "\n").encode())


if __name__ == "__main__":
    main()
