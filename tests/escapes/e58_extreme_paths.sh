#!/bin/sh
# E58: extreme paths: 4096 bytes with no NUL (ENAMETOOLONG), a path
# running into an unmapped page (EFAULT), a 4095-byte path that is valid,
# a 41-link symlink chain (ELOOP), and a cwd deeper than PATH_MAX outside
# the workspace. capwatch must answer what the kernel would, never
# truncate and succeed, and never let the deep write through.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e58_paths
: >"$W/ok.txt"
canary_make "$H/.bashrc"
for mode in nonul fits fault; do
	bare "$ESC_BIN/e58_paths" $mode "$W/ok.txt"
	want=$(sed -n 's/^open -> //p' "$O/bare.out")
	under verify -- "$ESC_BIN/e58_paths" $mode "$W/ok.txt"
	got=$(sed -n 's/^open -> //p' "$OUT")
	[ "$got" = "$want" ] || fail "$mode: capwatch answered $got, the kernel $want"
	# The same with the path outside: never a success.
	under verify -- "$ESC_BIN/e58_paths" $mode "$H/.bashrc"
	canary_intact "$H/.bashrc" || esc_bypass "$mode: $H/.bashrc written"
done
[ "$want" = -14 ] || fail "fault mode: the kernel gave $want, expected -EFAULT"
# 41 symlinks.
ln -s "$W/ok.txt" "$W/l0"
i=1; while [ $i -le 41 ]; do ln -s "l$((i - 1))" "$W/l$i"; i=$((i + 1)); done
bare sh -c "echo x >> '$W/l41'"
grep -q 'Too many levels' "$O/bare.out" || esc_control_failed "41-link chain did not give ELOOP bare: $(cat "$O/bare.out")"
under verify -- sh -c "echo x >> '$W/l41'"
grep -q 'Too many levels' "$OUT" || fail "41-link chain under capwatch: $(cat "$OUT")"
# A cwd deeper than PATH_MAX, outside the workspace: the writer walks down
# one component at a time, then creates "x" relative to that cwd.
cat >"$T/deep.py" <<'PYEOF'
import os, sys
os.chdir(sys.argv[1])
for i in range(30):
    n = "d" * 200
    if sys.argv[2] == "mk":
        os.mkdir(n)
    os.chdir(n)
if sys.argv[2] == "write":
    open("x", "w").write("pwn")
elif sys.argv[2] == "check":
    sys.exit(0 if os.path.exists("x") else 1)
elif sys.argv[2] == "rm" and os.path.exists("x"):
    os.unlink("x")
PYEOF
"$PY" "$T/deep.py" "$H" mk
bare "$PY" "$T/deep.py" "$H" write
"$PY" "$T/deep.py" "$H" check || esc_control_failed "bare write in the deep directory failed: $(tail -3 "$O/bare.out")"
"$PY" "$T/deep.py" "$H" rm
under verify -- "$PY" "$T/deep.py" "$H" write
"$PY" "$T/deep.py" "$H" check && esc_bypass "a write in a cwd deeper than PATH_MAX outside the workspace went through"
report_has 'outcome["kind"] in ("enforcement_denied", "application_failure")'
