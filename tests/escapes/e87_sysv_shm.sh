#!/bin/sh
# E87: a SysV shared-memory segment made outside capwatch (by this test,
# as another program of the user would) is found by id and attached by the
# command: data of processes outside the tree, read without any open.
# Capability sought: reading (and, read-write, changing) another process's
# memory: process_control / filesystem_read outside any path check.
# Expected after the fix: capwatch gives the command an IPC namespace of
# its own: the segment is invisible (shmat fails EINVAL/ENOENT), its bytes
# never reach the command's stdout.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="E87-SHM-SECRET-$$"
SHMID=$("$PY" - "$SECRET" <<'PYEOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
i = libc.shmget(0, 4096, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
if i < 0: sys.exit("shmget: %d" % ctypes.get_errno())
a = libc.shmat(i, None, 0)
ctypes.memmove(a, sys.argv[1].encode() + b"\0", len(sys.argv[1]) + 1)
libc.shmdt(ctypes.c_void_p(a))
print(i)
PYEOF
) || fail "cannot create a SysV segment"
trap 'ipcrm -m "$SHMID" 2>/dev/null; esc_cleanup' EXIT
cmd='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
a = libc.shmat(int(sys.argv[1]), None, 0o10000)  # SHM_RDONLY
if a in (None, ctypes.c_void_p(-1).value):
    print("shmat failed", ctypes.get_errno())
else:
    print("read:", ctypes.string_at(a).decode())'
bare "$PY" -c "$cmd" "$SHMID"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare shmat of the segment did not read it: $(cat "$O/bare.out")"
under readonly -- "$PY" -c "$cmd" "$SHMID"
grep -q "$SECRET" "$OUT" && esc_bypass "the command attached a SysV segment made outside the tree and read it under --profile readonly"
exit 0
