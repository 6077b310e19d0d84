#!/bin/sh
# The preload talks only to the socket the environment names as FD:INODE
# (preload/proto.h), parsed in its constructor without libc's strto*. A
# well-formed value gets a hello on that socket; a value that is malformed,
# out of range, or names another inode gets nothing. Run without capwatch:
# the library alone, with a socketpair end at fd 1000.
. "$top_srcdir/tests/lib.sh"
cw_tmpdir
. "$top_srcdir/tests/preload/lib.sh"

"$CW_PY" - "$PL_LIB" <<'PYEOF' || fail "channel variable parsing"
import os, socket, struct, subprocess, sys
lib = sys.argv[1]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
os.dup2(b.fileno(), 1000)
os.set_inheritable(1000, True)
ino = os.fstat(1000).st_ino
a.setblocking(False)
MAGIC = 0x31415743

def hellos(value):
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": lib}
    if value is not None:
        env["CAPWATCH_ANNOT_FD"] = value
    subprocess.run(["/bin/true"], env=env, pass_fds=(1000,), check=True)
    n = 0
    while True:
        try:
            m = a.recv(4096)
        except BlockingIOError:
            return n
        if len(m) >= 8 and struct.unpack_from("<IH", m)[0:2] == (MAGIC, 1):
            n += 1

bad = []
def want(value, n):
    got = hellos(value)
    if got != n:
        bad.append(f"CAPWATCH_ANNOT_FD={value!r}: {got} hello(s), want {n}")

want(f"1000:{ino}", 1)
# ":k": capwatch decides read-only opens in the kernel (proto.h).
want(f"1000:{ino}:k", 1)
for v in [None, "", "1000", "1000:", f"1000:{ino + 1}", f"1000:{ino}x", f" 1000:{ino}",
          f"+1000:{ino}", f"1000: {ino}", f"2:{ino}", f"65536:{ino}", f"99999999999999999999:{ino}",
          "1000:99999999999999999999999", f"1000:{ino}:1", f"-1000:{ino}", f"01000x:{ino}",
          f"1000:{ino}:", f"1000:{ino}:K", f"1000:{ino}:kk", f"1000:{ino}:k:", f"1000:{ino}k"]:
    want(v, 0)
# Leading zeros are still the same number.
want(f"01000:{ino}", 1)
for x in bad:
    print("FAIL:", x, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF
exit 0
