#!/bin/sh
# E62: personality(): READ_IMPLIES_EXEC makes PROT_READ mappings
# executable, ADDR_NO_RANDOMIZE makes race addresses fixed; both persist
# across exec. The catalogue's defence is a BPF allow-list of the
# personality argument (0x0, 0x8, 0x20000, 0x20008, 0xffffffff). Attack:
# set READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE and observe a PROT_READ mapping
# that is executable (6.18 clears READ_IMPLIES_EXEC at exec for binaries
# with a non-executable stack, so the effect is shown in-process).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/pers.py" <<'PYEOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.personality(0x0400000 | 0x0040000)  # READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE
if r < 0:
    print("personality failed", ctypes.get_errno()); sys.exit(1)
libc.mmap.restype = ctypes.c_void_p
p = libc.mmap(None, 4096, 1, 0x22, -1, 0)  # PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS
ok = any(l.startswith("%x-" % p) and l.split()[1][2] == "x" for l in open("/proc/self/maps"))
print("PROT_READ mapping is executable" if ok else "not executable",
      "personality=%#x" % libc.personality(0xffffffff))
PYEOF
bare "$PY" "$T/pers.py"
grep -q 'is executable' "$O/bare.out" || esc_control_failed "bare READ_IMPLIES_EXEC did not make PROT_READ executable: $(cat "$O/bare.out")"
under readonly -- "$PY" "$T/pers.py"
grep -q 'is executable' "$OUT" && esc_bypass "personality(READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE) accepted under --profile readonly (not in the filter): $(cat "$OUT")"
exit 0
