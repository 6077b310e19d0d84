#!/usr/bin/env python3
"""Run a command on a fresh pty (its controlling terminal: stdin, stdout,
stderr) and copy what it prints to our stdout. usage: ptyrun.py SECONDS
CMD... After SECONDS the command's session is killed (by the session
leader's pid, which this program started) and "PTYRUN-TIMEOUT" printed.
Used by E33 (job-control stops) and E50 (TIOCSTI)."""
import os
import pty
import select
import signal
import sys
import time

deadline = time.monotonic() + float(sys.argv[1])
pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out = b""
status = None
while status is None:
    if time.monotonic() > deadline:
        try:
            os.killpg(pid, signal.SIGKILL)  # the child is its session's leader
        except OSError:
            pass
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        out += b"\nPTYRUN-TIMEOUT\n"
        break
    r, _, _ = select.select([master], [], [], 0.1)
    if r:
        try:
            out += os.read(master, 65536)
        except OSError:
            pass
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        status = st
sys.stdout.write(out.decode("utf-8", "replace"))
print("\nPTYRUN-DONE", status, flush=True)
