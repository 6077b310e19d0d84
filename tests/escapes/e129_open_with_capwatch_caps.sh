#!/bin/sh
# capwatch performs the tree's opens itself, as full root. Files whose open
# checks the opener's capabilities would lend the command capabilities it
# was dropped from (privs.c): /dev/kmsg needs CAP_SYSLOG under
# dmesg_restrict=1, /proc/kallsyms shows addresses to an opener with
# CAP_SYSLOG (kptr_restrict=0, checked against file->f_cred), and
# /proc/self/pagemap shows page frame numbers to an opener with
# CAP_SYS_ADMIN. fs_special.c opens these with the target's credentials.
# Blocked today (coverage): the kernel log, kernel addresses and PFNs stay
# out of reach under readonly.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root (the capabilities to lend)"
[ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" = 1 ] || skip "dmesg_restrict is not 1"
[ "$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null)" = 0 ] || skip "kptr_restrict is not 0"
cat >"$T/probe.py" <<'PY'
import os, struct
try:
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    print("KMSG", os.read(fd, 200)[:40])
except OSError as e:
    print("kmsg:", e)
with open("/proc/kallsyms") as f:
    a = f.readline().split()[0]
print("KALLSYMS" if int(a, 16) else "kallsyms zero", a)
buf = bytearray(4096); buf[0] = 1
addr = (id(buf) // 4096) * 4096
with open("/proc/self/pagemap", "rb") as f:
    f.seek(addr // 4096 * 8)
    v = struct.unpack("Q", f.read(8))[0]
print("PFN" if v & ((1 << 55) - 1) else "pfn zero", hex(v & ((1 << 55) - 1)))
PY
bare "$PY" "$T/probe.py"
for w in KMSG KALLSYMS PFN; do
	grep -q "^$w" "$O/bare.out" || esc_control_failed "bare: no $w: $(cat "$O/bare.out")"
done
under readonly -- "$PY" "$T/probe.py"
for w in KMSG KALLSYMS PFN; do
	grep -q "^$w" "$OUT" && esc_bypass "$w under readonly: capwatch's capabilities lent to the open ($(grep "^$w" "$OUT"))"
done
grep -q "kallsyms zero" "$OUT" || fail "the probe did not run under capwatch: $(cat "$OUT")"
# The tree's own /dev (CAPWATCH_KERNEL_READS=1) has no /dev/kmsg: that
# case cannot run there (nothing to lend on an open that finds nothing).
if esc_pidns; then
	grep -q '^kmsg: \[Errno 2\]' "$OUT" || esc_bypass "/dev/kmsg under the PID namespace: $(grep -i kmsg "$OUT")"
	esc_log "KMSG case skipped under the PID namespace: /dev/kmsg is not in the tree's /dev (ENOENT)"
fi
exit 0
