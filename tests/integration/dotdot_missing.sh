#!/bin/sh
# ".." after a component that is not there, or that is no directory (issue
# 17): the kernel walks every component but the last, so "nodir/../x" and
# "f/../x" fail (ENOENT, ENOTDIR) whatever the call, creations included.
# capwatch performs path calls itself on the name it resolved, and used to
# apply such a ".." lexically: mkdir("nodir/../x") made ./x. Bare and
# supervised (verify, observe) must give the same answers and leave the
# same tree, with no denial, and nothing is recorded under the name the
# lexical ".." would give (a read of "nodir/../.env" is no secret read,
# even under observe). Also open(O_CREAT) of "f/": EISDIR, whatever
# is there (the kernel says it before it looks).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat >"$T/dd.py" <<'PY'
import errno, os, socket, stat
def t(name, fn):
    try:
        fn(); print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
W = os.O_WRONLY | os.O_CREAT
def op(p, fl=W, **kw):
    return lambda: os.close(os.open(p, fl, 0o644, **kw))
t("mkdir nodir/../x", lambda: os.mkdir("nodir/../x"))
t("mkdir nodir/x/..", lambda: os.mkdir("nodir/x/.."))
t("mkdir f/../x", lambda: os.mkdir("f/../x"))
t("mkdir dl/../x", lambda: os.mkdir("dl/../x"))
t("creat nodir/../c", op("nodir/../c"))
t("creat f/../c", op("f/../c"))
t("creat ln/../c", op("ln/../c"))
t("creat dangling", op("dangling"))
t("creat f/", op("f/"))
t("creat d/", op("d/"))
t("open rdwr f/", op("f/", os.O_RDWR))
t("open rdonly nodir/../e", op("nodir/../e", os.O_RDONLY))
t("open rdonly nodir/../.env", op("nodir/../.env", os.O_RDONLY))
t("open rdwr nodir/../e", op("nodir/../e", os.O_RDWR))
t("open trunc nodir/../e", op("nodir/../e", os.O_WRONLY | os.O_TRUNC))
t("symlink nodir/../s", lambda: os.symlink("e", "nodir/../s"))
t("link e nodir/../h", lambda: os.link("e", "nodir/../h"))
t("rename e nodir/../r", lambda: os.rename("e", "nodir/../r"))
t("rename nodir/../e r", lambda: os.rename("nodir/../e", "r"))
t("unlink nodir/../e", lambda: os.unlink("nodir/../e"))
t("unlink f/../e", lambda: os.unlink("f/../e"))
t("rmdir nodir/../d", lambda: os.rmdir("nodir/../d"))
t("chmod nodir/../e", lambda: os.chmod("nodir/../e", 0o600))
t("truncate nodir/../e", lambda: os.truncate("nodir/../e", 0))
t("utime nodir/../e", lambda: os.utime("nodir/../e", (0, 0)))
t("mkfifo nodir/../p", lambda: os.mkfifo("nodir/../p"))
d = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
t("mkdirat(d) nodir/../m", lambda: os.mkdir("nodir/../m", dir_fd=d))
t("openat(d) nodir/../m2", op("nodir/../m2", dir_fd=d))
t("openat(d) ../m3", op("../m3", dir_fd=d))
t("bind unix nodir/../sock", lambda: socket.socket(socket.AF_UNIX).bind("nodir/../sock"))
t("exec nodir/../prog", lambda: os.execv("nodir/../prog", ["prog"]))
for root, dirs, files in sorted(os.walk(".")):
    for n in sorted(dirs + files):
        p = os.path.join(root, n)
        st = os.lstat(p)
        print(p, stat.filemode(st.st_mode), st.st_size, int(st.st_mtime == 0))
PY
setup() {
	rm -rf "$1" && mkdir -p "$1/d" && printf 'data\n' >"$1/e" && : >"$1/f" &&
		ln -s d "$1/ln" && ln -s nothere/new "$1/dangling" && ln -s f "$1/dl" &&
		printf 'SECRET=1\n' >"$1/.env" &&
		cp /bin/true "$1/prog"
}
setup "$T/bare"
(cd "$T/bare" && "$CW_PY" "$T/dd.py") >"$O/bare.out" 2>&1
# The kernel's answers, so that a broken comparison cannot pass.
for want in "mkdir nodir/../x ENOENT" "creat nodir/../c ENOENT" "mkdir f/../x ENOTDIR" \
	"rename e nodir/../r ENOENT" "creat ln/../c OK" "openat(d) ../m3 OK" "creat f/ EISDIR"; do
	grep -qx "$want" "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: no line '$want'"; }
done
for prof in verify observe; do
	setup "$W/$prof"
	cd "$W/$prof" || fail "cd"
	cw --profile "$prof" --report "$O/$prof.json" --trace "$O/$prof.jsonl" \
		-- "$CW_PY" "$T/dd.py" >"$O/$prof.out" 2>"$O/$prof.err"
	cd "$W" || fail "cd"
	cmp -s "$O/bare.out" "$O/$prof.out" ||
		{ diff "$O/bare.out" "$O/$prof.out" >&2; fail "$prof: answers or effects differ from bare"; }
	report_assert "$O/$prof.json" "denials() == []" "outcome['kind'] == 'success'"
	# No read of .env is recorded (observe would flag one): the kernel
	# never reached it.
	trace_assert "$O/$prof.jsonl" "ops(resolved='$W/$prof/.env') == []"
done
exit 0
