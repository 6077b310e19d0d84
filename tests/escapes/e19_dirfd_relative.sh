#!/bin/sh
# E19: openat(dirfd) and fchdir() with a directory fd outside the
# workspace; also a directory fd inherited from the launching shell.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
cat >"$T/df.py" <<PYEOF
import os, sys
d = os.open("$H", os.O_DIRECTORY) if sys.argv[1] != "inherited" else 7
if sys.argv[1] == "fchdir":
    os.fchdir(d); fd = os.open(".bashrc", os.O_WRONLY | os.O_APPEND)
else:
    fd = os.open(".bashrc", os.O_WRONLY | os.O_APPEND, dir_fd=d)
os.write(fd, b"pwn\n")
PYEOF
for mode in openat fchdir inherited; do
	bare sh -c "exec 7<'$H'; exec '$PY' '$T/df.py' $mode"
	canary_intact "$H/.bashrc" && esc_control_failed "$mode: bare attack did not change the canary: $(cat "$O/bare.out")"
	canary_make "$H/.bashrc"
	under verify -- sh -c "exec 7<'$H'; exec '$PY' '$T/df.py' $mode"
	canary_intact "$H/.bashrc" || esc_bypass "$mode: write through a directory fd reached $H/.bashrc under --profile verify"
	expect_denied unrestricted "'$H/.bashrc'"
done
