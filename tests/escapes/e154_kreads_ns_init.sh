#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1): the PID namespace's
# init. ns_init_main (supervisor/kernel.c) is a fork of capwatch without
# exec: its memory, and its environment block, are capwatch's at fork
# time, including the variables the environment sanitizer drops for the
# command (CW_TEST_SECRET here), and it is pid 1 of the tree's /proc.
# Tried: /proc/1/environ, /proc/1/mem (stack and heap, through maps),
# /proc/1/root and /proc/1/cwd (its chroot, and beyond), /proc/1/fd/N,
# process_vm_readv(1), pidfd_open(1) + pidfd_getfd, ptrace(ATTACH, 1).
# Positive control: the same reads of a same-uid process holding the
# secret in its environment (a fork of the test's shell) work bare.
# Held: it is not dumpable (EACCES on everything ptrace-checked), the
# calls naming pid 1 are refused (cw_task_named_in_tree: 1 is never a
# member).
# Capability sought: the sanitized environment (filesystem_read of
# capwatch's secrets) under readonly.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
secret="cw-secret-$$-$(od -An -N6 -tx1 /dev/urandom | tr -d ' ')"
cat >"$T/leak.py" <<'PYEOF'
import ctypes, os, sys
pid, want = int(sys.argv[1]), sys.argv[2].encode()
found = []
def rd(p):
    with open(p, "rb") as f:
        return f.read()
try:
    if want in rd("/proc/%d/environ" % pid):
        found.append("environ")
except OSError as e:
    print("environ:", e)
try:
    maps = open("/proc/%d/maps" % pid).read().splitlines()
    with open("/proc/%d/mem" % pid, "rb", 0) as m:
        for l in maps:
            a, perm = l.split()[0], l.split()[1]
            if "r" not in perm or not ("[stack]" in l or "[heap]" in l):
                continue
            lo, hi = (int(x, 16) for x in a.split("-"))
            m.seek(lo)
            if want in m.read(hi - lo):
                found.append("mem")
except (OSError, ValueError) as e:
    print("mem:", e)
for l in ("root", "cwd"):
    try:
        os.listdir("/proc/%d/%s/" % (pid, l))
        found.append(l)
    except OSError as e:
        print(l + ":", e)
# (Listing /proc/PID/fd is the owner uid's, 0 here, and names no file.)
for n in range(0, 20):
    try:
        os.readlink("/proc/%d/fd/%d" % (pid, n))
        found.append("fd/%d" % n)
        break
    except OSError:
        pass
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(4096)
try:
    lo = [int(l.split("-")[0], 16) for l in open("/proc/%d/maps" % pid) if "[stack]" in l][0]
except (OSError, IndexError):
    lo = 0x400000
loc, rem = iovec(ctypes.addressof(buf), 4096), iovec(lo, 4096)
r = libc.syscall(310, pid, ctypes.byref(loc), 1, ctypes.byref(rem), 1, 0)
if r > 0:
    found.append("process_vm_readv")
else:
    print("process_vm_readv:", ctypes.get_errno())
pfd = libc.syscall(434, pid, 0)
if pfd >= 0:
    for n in range(3, 20):
        if libc.syscall(438, pfd, n, 0) >= 0:
            found.append("pidfd_getfd")
            break
else:
    print("pidfd_open:", ctypes.get_errno())
if libc.syscall(101, 16, pid, 0, 0) == 0:
    found.append("ptrace")
    os.waitpid(pid, os.WNOHANG | 0x40000000)
    libc.syscall(101, 17, pid, 0, 0)
else:
    print("ptrace:", ctypes.get_errno())
print("LEAKED" if found else "not found", found)
PYEOF
# Bare control: a same-uid process holding the secret (not dumpable-off).
CW_TEST_SECRET="$secret" sleep 60 &
other=$!; esc_bg_started $other
bare "$PY" "$T/leak.py" "$other" "$secret"
grep -q "LEAKED.*environ" "$O/bare.out" || esc_control_failed "bare read of a process's environ found nothing: $(cat "$O/bare.out")"
esc_log "bare: $(tail -1 "$O/bare.out")"
esc_kill "$other"

CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
CW_TEST_SECRET="$secret" timeout -k 5 60 "$CAPWATCH" --profile readonly --report "$R" --trace "$TR" -- "$PY" "$T/leak.py" 1 "$secret" >"$OUT" 2>&1
esc_log "backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'): $(grep -E 'LEAKED|not found' "$OUT")"
grep -q LEAKED "$OUT" && esc_bypass "the command reached pid 1 of its namespace (capwatch's fork): $(grep LEAKED "$OUT")"
grep -q "not found" "$OUT" || { cat "$OUT" >&2; fail "the probe did not finish"; }
exit 0
