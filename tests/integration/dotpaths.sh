#!/bin/sh
# Paths that end in "." or ".." (found by make fuzz-supervisor): the walk
# normalizes "d/." to "d", but the kernel never removes, renames or creates
# a directory under such a name. Under capwatch the answers are the
# kernel's (unlink EISDIR/ENOTDIR, rmdir EINVAL/ENOTEMPTY, rename EBUSY,
# mkdir/symlink/link EEXIST, chmod of "f/." ENOTDIR) and nothing happens.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat >"$T/dt.py" <<'PY'
import errno, os
def t(name, fn):
    try:
        fn(); print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
t("unlink f/.", lambda: os.unlink("f/."))
t("unlink d/.", lambda: os.unlink("d/."))
t("unlink d/..", lambda: os.unlink("d/.."))
t("rmdir d/.", lambda: os.rmdir("d/."))
t("rmdir d/..", lambda: os.rmdir("d/.."))
t("rename d/. m2", lambda: os.rename("d/.", "m2"))
t("rename f d/.", lambda: os.rename("f", "d/."))
t("mkdir d/.", lambda: os.mkdir("d/."))
t("mkdir nodir/.", lambda: os.mkdir("nodir/."))
t("symlink x d/.", lambda: os.symlink("x", "d/."))
t("chmod f/.", lambda: os.chmod("f/.", 0o644))
t("chmod d/.", lambda: os.chmod("d/.", 0o755))
t("link f d/.", lambda: os.link("f", "d/."))
t("rmdir m/.", lambda: os.rmdir("m/."))
print(sorted(os.listdir(".")))
PY
setup() { rm -rf "$1" && mkdir -p "$1/d" "$1/m" && : >"$1/f"; }
setup "$T/bare"
(cd "$T/bare" && "$CW_PY" "$T/dt.py") >"$O/bare.out" 2>&1
setup "$W/t"
cd "$W/t" || fail "cd"
cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/dt.py" >"$O/cw.out" 2>"$O/err"
cmp -s "$O/bare.out" "$O/cw.out" || { diff "$O/bare.out" "$O/cw.out" >&2; fail "answers or effects differ from bare"; }
grep -q "^rmdir m/. EINVAL$" "$O/cw.out" || fail "rmdir m/. was not EINVAL"
[ -d "$W/t/m" ] && [ -f "$W/t/f" ] || fail "m or f was removed"
exit 0
