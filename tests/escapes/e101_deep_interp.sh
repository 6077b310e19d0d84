#!/bin/sh
# E101: a #! interpreter deeper than PATH_MAX. The script $W/s (allowed by
# the profile) says `#!./interp`; the command chdir()s, one relative step
# at a time, into a directory 24 levels of 200-byte names deep (~4.8 KB,
# built with mkdirat/openat relative steps) and execs the script by its
# absolute path. The notification sees an allowed path; the kernel loads
# ./interp relative to the deep cwd; at the exec stop /proc/PID/exe is
# longer than PATH_MAX, readlink fails ENAMETOOLONG, and the check of the
# loaded image has nothing to check (ptrace.c on_exec: `if (!p->exe)
# return;`): fail open.
# Capability sought: process_spawn of an unapproved program.
# Expected after the fix: an exec whose image cannot be named is denied at
# the exec stop (killed before its first instruction) and recorded as a
# process_spawn denial; the payload never runs.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
"$PY" - "$W" "$ESC_BIN/payload" <<'PYEOF' || fail "cannot build the deep directory"
import os, shutil, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
name = "d" * 200
for i in range(24):
    os.mkdir(name, dir_fd=fd)
    nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    os.close(fd); fd = nfd
src = os.open(sys.argv[2], os.O_RDONLY)
dst = os.open("interp", os.O_WRONLY | os.O_CREAT, 0o755, dir_fd=fd)
os.sendfile(dst, src, 0, os.fstat(src).st_size)
os.close(dst)
PYEOF
printf '#!./interp %s\n' "$W/PAYLOAD_RAN" >"$W/s"
chmod +x "$W/s"
cat >"$T/go.py" <<'PYEOF'
import os, sys
os.chdir(sys.argv[1])
for i in range(24):
    os.chdir("d" * 200)
os.execv(sys.argv[1] + "/s", ["s"])
PYEOF
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s"]}}' verify)
bare "$PY" "$T/go.py" "$W"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare exec of the script did not run its deep interpreter: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
under "$prof" -- "$PY" "$T/go.py" "$W"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "an unapproved #! interpreter deeper than PATH_MAX ran under a profile that allows only the script (the exec stop could not name the image)"
expect_denied process_spawn
exit 0
