#!/bin/sh
# The name of a unix socket bound under capwatch (issue 17): the kernel
# records the name bind() was given, and getsockname(), getpeername() and
# accept() give it back. capwatch performs the bind itself in the
# directory it decided on, and used to bind the basename there, so
# getsockname() said "abs.sock" for "/dir/abs.sock", and a client that
# connected to that name from another directory got ENOENT (CPython's
# test_socket hung in accept()). Bare, under verify and under observe
# must give the same names, peers and socket files (mode with the
# target's umask, owner) for absolute names, relative ones, names with
# "..", "." and "//" (into the cwd, above it, elsewhere), through a
# symlinked directory, of 107 bytes, and of 108 bytes without a NUL; a client in another cwd ("/" for an absolute
# name) connects to what getsockname() returned. As root, once more as an
# unprivileged user (capwatch's helper then needs a user namespace).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat >"$T/ub.py" <<'PY'
import ctypes, os, socket, stat, sys
base = sys.argv[1]
os.chdir(base + "/a/b")
names = [base + "/s/abs.sock", "rel.sock", "../../s/r2.sock", base + "/a/../s/dd.sock",
         "./../..//s/./dot.sock", "../../l/ln.sock", "../../s/" + "x" * 60,
         base + "/s/" + "y" * (107 - len(base + "/s/")), "/" + base.lstrip("/") + "//s//sl.sock",
         "./cw.sock", "../b/lf.sock", "../up.sock"]
libc = ctypes.CDLL(None, use_errno=True)
def sockaddr(n):
    buf = ctypes.create_string_buffer(2 + 108)
    buf[0:2] = socket.AF_UNIX.to_bytes(2, sys.byteorder)
    buf[2:2 + len(n)] = n.encode()
    return buf
def show(i, n, s):
    got = s.getsockname()
    print(i, "name", repr(got), got == n)
    s.listen(1)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.chdir("/" if got.startswith("/") else os.getcwd())
        c = socket.socket(socket.AF_UNIX)
        try:
            if len(got) < 108:
                c.connect(got)
            elif libc.connect(c.fileno(), sockaddr(got), 110) < 0:
                raise OSError(ctypes.get_errno(), "connect")
            print(i, "connect ok", repr(c.getpeername()), flush=True)
        except OSError as e:
            print(i, "connect", e.errno, flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
    s.settimeout(5)
    try:
        a, peer = s.accept()
        print(i, "accept", repr(peer), repr(a.getsockname()))
    except OSError as e:
        print(i, "accept", e)
    st = os.lstat(n)
    print(i, "file", stat.filemode(st.st_mode), st.st_uid == os.getuid(), st.st_gid == os.getgid())
    sys.stdout.flush()
for i, n in enumerate(names):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(n)
    except OSError as e:
        print(i, "bind", e.errno)
        continue
    show(i, n, s)
# 108 bytes of sun_path, no NUL (ctypes: Python's bind wants room for one)
n = (base + "/s/" + "z" * 200)[:108]
s = socket.socket(socket.AF_UNIX)
if libc.bind(s.fileno(), sockaddr(n), 110) == 0:
    show("nonul", n, s)
else:
    print("nonul bind", ctypes.get_errno())
os.umask(0o077)
s = socket.socket(socket.AF_UNIX)
s.bind("../../s/um.sock")
print("umask", stat.filemode(os.lstat(base + "/s/um.sock").st_mode), repr(s.getsockname()))
PY
# One fixed place for every run, so that absolute names compare.
R=$W/r
prep() { rm -rf "$R" && mkdir -p "$R/a/b" "$R/s" && ln -s s "$R/l" && chown -R "$1" "$R"; }
prep "$(id -u)"
"$CW_PY" "$T/ub.py" "$R" >"$O/bare.out" 2>&1
grep -c ' name .* True$' "$O/bare.out" | grep -qx 13 && grep -c ' connect ok ' "$O/bare.out" | grep -qx 13 ||
	{ cat "$O/bare.out" >&2; fail "bare: not every name came back or was reached"; }
grep -qx "umask srwx------ '../../s/um.sock'" "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: umask line"; }
for prof in verify observe; do
	prep "$(id -u)"
	cw --profile "$prof" --report "$O/$prof.json" --trace "$O/$prof.jsonl" -- "$CW_PY" "$T/ub.py" "$R" \
		>"$O/$prof.out" 2>"$O/$prof.err"
	cmp -s "$O/bare.out" "$O/$prof.out" ||
		{ diff "$O/bare.out" "$O/$prof.out" >&2; cat "$O/$prof.err" >&2; fail "$prof: names, peers or files differ from bare"; }
	report_assert "$O/$prof.json" "denials() == []" "outcome['kind'] == 'success'"
done
# Unprivileged: capwatch has no CAP_SYS_ADMIN, the helper needs a user
# namespace of its own.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid 65534 --regid 65534 --clear-groups "$CW_PY" -c 'print()' >/dev/null 2>&1; then
	chmod 755 "$T" "$W" && chmod 644 "$T/ub.py"
	prep 65534:65534
	setpriv --reuid 65534 --regid 65534 --clear-groups "$CW_PY" "$T/ub.py" "$R" >"$O/nb-bare.out" 2>&1
	prep 65534:65534
	(cd "$R" && setpriv --reuid 65534 --regid 65534 --clear-groups timeout -k 5 60 "$CAPWATCH" --profile verify \
		--report "$R/nb.json" -- "$CW_PY" "$T/ub.py" "$R") >"$O/nb.out" 2>"$O/nb.err"
	if grep -q 'private view' "$R/nb.json" 2>/dev/null; then
		echo "no user namespace for an unprivileged capwatch here: the basename fallback ran" >&2
	else
		cmp -s "$O/nb-bare.out" "$O/nb.out" ||
			{ diff "$O/nb-bare.out" "$O/nb.out" >&2; cat "$O/nb.err" >&2; fail "unprivileged verify: differs from bare"; }
		echo "unprivileged verify: the same as bare ($(grep -c ' connect ok ' "$O/nb.out") connects)" >&2
	fi
fi
exit 0
