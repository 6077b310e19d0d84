#!/bin/sh
# E52: mmap(MAP_SHARED, PROT_WRITE) modifies a file with no write syscall.
# Only a read-write open gives such a mapping; under readonly the open is
# denied and the O_RDONLY fallback cannot be mapped writable.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$W/src.c" "int main(void) { return 0; }"
cat >"$T/mm.py" <<PYEOF
import mmap, os
try:
    fd = os.open("$W/src.c", os.O_RDWR)
except OSError as e:
    print("O_RDWR refused", e); fd = os.open("$W/src.c", os.O_RDONLY)
try:
    m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    m[0:3] = b"pwn"; m.flush(); print("mapped and written")
except OSError as e:
    print("mmap failed", e)
PYEOF
bare "$PY" "$T/mm.py"
canary_intact "$W/src.c" && esc_control_failed "bare MAP_SHARED write did not change the file: $(cat "$O/bare.out")"
canary_make "$W/src.c" "int main(void) { return 0; }"
under readonly -- "$PY" "$T/mm.py"
canary_intact "$W/src.c" || esc_bypass "MAP_SHARED write changed $W/src.c under --profile readonly"
expect_denied workspace_write "'$W/src.c'"
