#!/bin/sh
# E58 (issue 14 item 10): a tree deeper than PATH_MAX inside the workspace.
# The kernel takes no path of PATH_MAX bytes, but a process that walks
# down with relative chdir()s names its files relative to a cwd whose
# absolute name is longer (readlink of /proc/PID/cwd says ENAMETOOLONG).
# capwatch must decide on the full name and act through descriptors:
# what works bare works under `verify` (mkdir, create, read, rename,
# unlink, symlink, chmod, fchmod, utime, link, rmtree), and an escape from down there (a relative
# "../" path, a planted symlink, a rename) is denied and reported, the
# canary outside the workspace untouched. The report carries names
# longer than PATH_MAX whole. Before the fix the first mkdir past 4096
# bytes failed ENAMETOOLONG.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
DEPTH=30
cat >"$T/deep.py" <<'PYEOF'
import os, shutil, sys
depth = int(sys.argv[1])
n = "d" * 200
b = os.getcwd()
for i in range(depth):
    os.mkdir(n)
    os.chdir(n)
open("f.txt", "w").write("hello\n")
print(open("f.txt").read().strip(), len(os.getcwd()))
fd = os.open("f.txt", os.O_RDONLY)
os.fchmod(fd, 0o600)  # on a descriptor the kernel cannot name
os.close(fd)
os.chmod("f.txt", 0o644)
os.utime("f.txt")
os.link("f.txt", "h.txt")
os.unlink("h.txt")
os.rename("f.txt", "g.txt")
os.unlink("g.txt")
os.symlink("x", "l")
os.unlink("l")
os.chdir(b)
shutil.rmtree(n)
print("removed", os.path.exists(n))
PYEOF
cat >"$T/esc.py" <<'PYEOF'
import os, sys
mode, depth, canary = sys.argv[1], int(sys.argv[2]), sys.argv[3]
n = "d" * 200
for i in range(depth):
    os.makedirs(n, exist_ok=True)
    os.chdir(n)
# From the deep cwd up to where it started ($W/t), two more up (out of the
# workspace, into $T), then down to the canary.
up = "../" * (depth + 2) + os.path.basename(os.path.dirname(canary)) + "/" + os.path.basename(canary)
try:
    if mode == "dots":
        open(up, "a").write("pwned by dots\n")
    elif mode == "link":
        os.symlink(canary, "l")
        open("l", "a").write("pwned by link\n")
    elif mode == "rename":
        open("f", "w").write("pwned by rename\n")
        os.rename("f", up)
    elif mode == "git":
        os.mkdir(".git")
    elif mode == "keep":
        open("kept.txt", "w").write("kept\n")
    print(mode, "done")
except OSError as e:
    print(mode, "refused", e.errno)
PYEOF
canary=$H/canary.txt
canary_make "$canary"
deep_name() {
	_p=$1
	_i=0
	while [ $_i -lt $DEPTH ]; do _p=$_p/$(printf 'd%.0s' $(seq 1 200)); _i=$((_i + 1)); done
	echo "$_p"
}

# 1. Positive control: the deep tree works bare, and its cwd cannot be
#    read back from /proc (the condition this test is about).
mkdir "$W/t" && cd "$W/t" || fail "mkdir $W/t"
bare "$PY" "$T/deep.py" $DEPTH
[ "$rc" = 0 ] && grep -q '^hello [0-9]*$' "$O/bare.out" && grep -q '^removed False$' "$O/bare.out" ||
	esc_control_failed "the deep tree does not work bare: $(tail -3 "$O/bare.out")"
cp "$O/bare.out" "$O/bare_deep.out"
len=$(sed -n 's/^hello //p' "$O/bare.out")
[ "$len" -gt 4096 ] || fail "the tree is only $len bytes deep"

# 2. The same under capwatch verify: the same output, nothing denied.
under verify -- "$PY" "$T/deep.py" $DEPTH
cmp -s "$O/bare_deep.out" "$OUT" || { cat "$OUT" >&2; fail "under capwatch the deep tree gave other output (exit $rc)"; }
[ "$rc" = 0 ] || fail "exit $rc under capwatch"
report_has 'outcome["kind"] == "success"' 'not denials()'
# The trace names the deep file by its whole name.
want_f=$(deep_name "$W/t")/f.txt
trace_has "any(e.get('resolved') == '$want_f' for e in ops(syscall=R('^(open|openat)\$')))"
[ -e "$W/t/$(printf 'd%.0s' $(seq 1 200))" ] && fail "the deep tree was not removed under capwatch"

# 3. Escapes from the deep cwd: bare they reach the canary outside the
#    workspace; under verify they are denied as a write outside every
#    workspace (unrestricted, scope the canary) and the canary is intact.
for mode in dots link rename; do
	cd "$W" && rm -rf "$W/t" && mkdir "$W/t" && cd "$W/t" || fail "reset $W/t"
	bare "$PY" "$T/esc.py" $mode $DEPTH "$canary"
	grep -q "^$mode done" "$O/bare.out" && ! canary_intact "$canary" ||
		esc_control_failed "$mode: the bare escape did not reach the canary: $(tail -3 "$O/bare.out")"
	canary_make "$canary"
	cd "$W" && rm -rf "$W/t" && mkdir "$W/t" && cd "$W/t" || fail "reset $W/t"
	under verify -- "$PY" "$T/esc.py" $mode $DEPTH "$canary"
	canary_intact "$canary" || esc_bypass "$mode: the canary outside the workspace was changed from the deep tree ($(canary_diff "$canary"))"
	grep -q "^$mode refused 13" "$OUT" || { cat "$OUT" >&2; fail "$mode: not refused EACCES"; }
	expect_denied unrestricted "'$canary'"
	esc_log "$mode: denied, unrestricted $canary"
done

# 4. A denial deep down is reported with its whole name (> PATH_MAX):
#    creating .git there is protected metadata.
cd "$W" && rm -rf "$W/t" && mkdir "$W/t" && cd "$W/t" || fail "reset $W/t"
under verify -- "$PY" "$T/esc.py" git $DEPTH "$canary"
want_git=$(deep_name "$W/t")/.git
grep -q "^git refused 13" "$OUT" || { cat "$OUT" >&2; fail "mkdir .git deep down: not refused"; }
expect_denied protected_metadata "'$want_git'"
report_has "len(denial['capability']['scope']) > 4096"

# 5. A file created down there and kept is in outcome.changes by its
#    whole name.
cd "$W" && rm -rf "$W/t" && mkdir "$W/t" && cd "$W/t" || fail "reset $W/t"
under verify -- "$PY" "$T/esc.py" keep $DEPTH "$canary"
grep -q "^keep done" "$OUT" || { cat "$OUT" >&2; fail "a file deep down could not be created"; }
report_has 'outcome["kind"] == "success"' "changes('created', '$(deep_name "$W/t")/kept.txt')"
cd "$W" && rm -rf "$W/t"
exit 0
