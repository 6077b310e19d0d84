#!/bin/sh
# Least privilege at launch and default deny (issue 14 items 1 and 2).
# As root: the command runs with Docker's default capability set in every
# set but ambient (empty), in IPC and UTS namespaces of its own; a System V
# segment made outside is invisible; host setters and syscalls with no row
# in the table are refused and named in the report. Under a profile that
# grants unrestricted, nothing is dropped. As an ordinary account (when
# setpriv and an unprivileged user exist): no capabilities, not degraded.
. "$top_srcdir/tests/lib.sh"
# The probe calls sethostname: run the whole test in a UTS namespace of its
# own, so that no run (the unrestricted one keeps the namespace it is given)
# can rename the host.
if [ "$(id -u)" = 0 ] && [ -z "${CW_PRIVS_UTS:-}" ]; then
	command -v unshare >/dev/null 2>&1 || skip "unshare(1) is needed to keep sethostname off the host"
	CW_PRIVS_UTS=1 exec unshare -u "$0" "$@"
fi
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"

cat >"$T/probe.py" <<'EOF2'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *a):
    r = libc.syscall(nr, *a)
    return 0 if r >= 0 else ctypes.get_errno()
st = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
    print(k, st[k].strip())
import sys
if "nohost" not in sys.argv:
    print("sethostname", call(170, b"cwtest", 6))
print("file_setattr", call(469, -100, b"x", 0, 0, 0))
print("syscall_999", call(999))
print("ipc", os.readlink("/proc/self/ns/ipc"))
print("uts", os.readlink("/proc/self/ns/uts"))
EOF2

if [ "$(id -u)" = 0 ]; then
	# A segment capwatch's caller holds: the tree must not see it.
	shmid=$(ipcmk -M 4096 2>/dev/null | sed -n 's/.*id: *//p')
	[ -n "$shmid" ] || skip "ipcmk could not make a System V segment"
	trap 'ipcrm -m "$shmid" 2>/dev/null; rm -rf "$T"' EXIT
	cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/probe.py" >"$O/out" 2>"$O/err"
	cat "$O/out" >&2
	# Docker's default set less CAP_NET_RAW (0xa80425fb & ~(1 << 13)).
	grep -q "^CapEff 00000000a80405fb$" "$O/out" || fail "effective set is not Docker's default less NET_RAW"
	grep -q "^CapPrm 00000000a80405fb$" "$O/out" || fail "permitted set is not Docker's default less NET_RAW"
	grep -q "^CapBnd 00000000a80405fb$" "$O/out" || fail "bounding set is not Docker's default less NET_RAW"
	grep -q "^CapAmb 0000000000000000$" "$O/out" || fail "ambient set is not empty"
	grep -q "^sethostname 1$" "$O/out" || fail "sethostname was not refused with EPERM"
	grep -q "^file_setattr 38$" "$O/out" || fail "file_setattr (no row) was not refused with ENOSYS"
	grep -q "^syscall_999 38$" "$O/out" || fail "syscall 999 was not refused with ENOSYS"
	[ "$(sed -n 's/^ipc //p' "$O/out")" != "$(readlink /proc/self/ns/ipc)" ] || fail "the command shares capwatch's IPC namespace"
	[ "$(sed -n 's/^uts //p' "$O/out")" != "$(readlink /proc/self/ns/uts)" ] || fail "the command shares capwatch's UTS namespace"
	[ "$(hostname)" != cwtest ] || fail "the name of the test's UTS namespace changed"
	report_assert "$O/r.json" \
		"'capabilities:docker-default' in outcome['enforcement']['layers']" \
		"'namespaces:ipc+uts' in outcome['enforcement']['layers']" \
		"not outcome['enforcement']['degraded']" \
		"any(x['syscall'] == 'sethostname' and x['capability']['kind'] == 'unrestricted' for x in d['denials'])" \
		"any(x['syscall'] == 'file_setattr' and x['capability']['scope'] == 'file_setattr' for x in d['denials'])" \
		"any(x['syscall'] == 'syscall_999' for x in d['denials'])"
	# The segment made outside is invisible inside (its id names nothing).
	cw --profile verify --report "$O/r2.json" -- "$CW_PY" -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
r = libc.shmat($shmid, None, 0)
print('shmat', 'ok' if r not in (None, ctypes.c_void_p(-1).value) else ctypes.get_errno())
" >"$O/shm.out" 2>&1
	"$CW_PY" -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
r = libc.shmat($shmid, None, 0)
assert r not in (None, ctypes.c_void_p(-1).value), 'positive control: shmat failed bare'
" || fail "bare shmat of segment $shmid failed: the test cannot fail"
	grep -q "^shmat 22$" "$O/shm.out" || { cat "$O/shm.out" >&2; fail "the command attached a System V segment made outside its tree"; }
	# unrestricted keeps everything capwatch has.
	cat >"$T/unr.json" <<'EOF2'
{"name": "unr", "extends": "verify", "capabilities": {"unrestricted": {"default": "allow"}}}
EOF2
	cw --profile "$T/unr.json" --report "$O/r3.json" -- "$CW_PY" "$T/probe.py" nohost >"$O/out3" 2>"$O/err3"
	want=$(sed -n 's/^CapEff:\t//p' /proc/self/status)
	grep -q "^CapEff $want$" "$O/out3" || { cat "$O/out3" "$O/err3" >&2; fail "unrestricted: capabilities were dropped"; }
	report_assert "$O/r3.json" "not any(l.startswith('capabilities:') for l in outcome['enforcement']['layers'])"
	# --observe denies nothing: nothing dropped either.
	cw --observe --profile verify --report "$O/r4.json" -- "$CW_PY" "$T/probe.py" nohost >"$O/out4" 2>"$O/err4"
	grep -q "^CapEff $want$" "$O/out4" || { cat "$O/out4" "$O/err4" >&2; fail "--observe: capabilities were dropped"; }
	report_assert "$O/r4.json" "not any(l.startswith('capabilities:') for l in outcome['enforcement']['layers'])"
fi

# An ordinary account: nothing to drop, nothing degraded.
user=nobody
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id "$user" >/dev/null 2>&1; then
	uid=$(id -u "$user") gid=$(id -g "$user")
	chmod 755 "$T" "$W" "$O"; chmod 644 "$T/probe.py"
	if setpriv --reuid "$uid" --regid "$gid" --clear-groups test -x "$CAPWATCH"; then
		setpriv --reuid "$uid" --regid "$gid" --clear-groups --inh-caps=-all \
			timeout -k 5 60 "$CAPWATCH" --profile verify --report-fd 3 -- "$CW_PY" "$T/probe.py" \
			3>"$O/u.json" >"$O/uout" 2>"$O/uerr"
		cat "$O/uout" >&2
		grep -q "^CapEff 0000000000000000$" "$O/uout" || { cat "$O/uerr" >&2; fail "ordinary account: the command has capabilities"; }
		grep -q "^CapAmb 0000000000000000$" "$O/uout" || fail "ordinary account: ambient set not empty"
		report_assert "$O/u.json" \
			"'capabilities:none' in outcome['enforcement']['layers']" \
			"not outcome['enforcement']['degraded']"
	else
		echo "capwatch is not executable by $user here: ordinary-account part skipped" >&2
	fi
fi
exit 0
