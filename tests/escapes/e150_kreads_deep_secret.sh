#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1): a secret read past
# PATH_MAX. decide_read (supervisor/kernel.c) decides a read-only open on
# the name the kernel gives the open file; for a file deeper than
# PATH_MAX there is none (readlink ENAMETOOLONG) and it falls back to the
# inode (cw_secret_ids_find) and the content. But cw_secret_ids_find
# answers only for an inode with other links (st_nlink > 1) or an orphan:
# a secret with its one name is "known by name", and that name is exactly
# what is missing here. So the workspace's own .env, moved (with its
# directory, under its own name: allowed, e110) below a chain of
# directories longer than PATH_MAX, opens: no secret name, no alias, no
# key in its content. The portable back end decides the open on the whole
# name (e113) and denies it: filesystem_read of a .env. No race and
# nothing lost: the tree can move the directory back afterwards.
# Capability sought: filesystem_read of a secret (.env) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
SECRET="E150_TOKEN=$$-hunter2"
cat >"$T/deep.py" <<'PYEOF'
import os, sys
# $W/proj/.env, moved with its directory below 25 names of 200 bytes,
# then read by a relative name from a cwd deeper than PATH_MAX.
n = "d" * 200
top = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
for i in range(25):
    os.mkdir(n)
    os.chdir(n)
os.rename("proj", "proj", src_dir_fd=top, dst_dir_fd=os.open(".", os.O_RDONLY | os.O_DIRECTORY))
os.chdir("proj")
try:
    print(open(".env").read().strip())
except OSError as e:
    print("refused", e.errno)
PYEOF
setup() {
	rm -rf "$W/proj" "$W/$(printf 'd%.0s' $(seq 1 200))"
	mkdir "$W/proj" && printf '%s\n' "$SECRET" >"$W/proj/.env" || fail "setup"
}
setup
bare "$PY" "$T/deep.py"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "the deep read did not print the secret bare: $(cat "$O/bare.out")"

# The mode under attack (auto: the kernel back end as root; under
# CW_BACKEND=portable the same run shows the portable back end's answer).
setup
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
under verify -- "$PY" "$T/deep.py"
esc_log "backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'), layers $(json_get "$R" 'd["outcome"]["enforcement"].get("layers")')"
grep -q "$SECRET" "$OUT" && esc_bypass "the workspace's .env, moved below a chain longer than PATH_MAX, was read under CAPWATCH_KERNEL_READS=1 (decide_read: no name, cw_secret_ids_find ignores a one-link inode): $(tail -1 "$OUT")"
expect_denied filesystem_read
exit 0
