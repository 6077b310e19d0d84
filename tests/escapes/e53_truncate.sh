#!/bin/sh
# E53: truncation paths: open(O_RDONLY|O_TRUNC) (truncates on Linux),
# creat(), truncate(path), ftruncate() and fallocate(PUNCH_HOLE) on an
# O_RDONLY descriptor. Profile readonly; the canary is in the workspace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$W/data.bin" "precious data precious data precious data"
cat >"$T/tr.py" <<PYEOF
import ctypes, os, sys
p = "$W/data.bin"
mode = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
try:
    if mode == "rdonly_trunc":
        os.open(p, os.O_RDONLY | os.O_TRUNC)
    elif mode == "creat":
        r = libc.creat(p.encode(), 0o644)
        if r < 0: raise OSError(ctypes.get_errno(), "creat")
    elif mode == "truncate":
        os.truncate(p, 0)
    elif mode == "ftruncate":
        os.ftruncate(os.open(p, os.O_RDONLY), 0)
    elif mode == "punch":
        fd = os.open(p, os.O_RDONLY)
        r = libc.fallocate(fd, 3, ctypes.c_long(0), ctypes.c_long(16))
        if r < 0: raise OSError(ctypes.get_errno(), "fallocate")
    print(mode, "done")
except OSError as e:
    print(mode, "failed", e)
PYEOF
for mode in rdonly_trunc creat truncate; do
	bare "$PY" "$T/tr.py" $mode
	canary_intact "$W/data.bin" && esc_control_failed "$mode: bare attack did not truncate: $(cat "$O/bare.out")"
	canary_make "$W/data.bin" "precious data precious data precious data"
	under readonly -- "$PY" "$T/tr.py" $mode
	canary_intact "$W/data.bin" || esc_bypass "$mode truncated $W/data.bin under --profile readonly"
	expect_denied workspace_write "'$W/data.bin'"
done
# ftruncate/punch-hole on an O_RDONLY fd: the kernel refuses them (EINVAL/
# EBADF) even bare; checked under capwatch only for completeness.
for mode in ftruncate punch; do
	under readonly -- "$PY" "$T/tr.py" $mode
	canary_intact "$W/data.bin" || esc_bypass "$mode changed $W/data.bin under --profile readonly"
done
