#!/bin/sh
# E90: keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, create=1):
# the kernel keyring, a store shared with other processes of the user
# (session and user keyrings hold credentials: kerberos, ecryptfs, nfs).
# Capability sought: the kernel keyring (unrestricted).
# Expected: keyctl refused (the catalogue lists it as an escape) and
# recorded as an unrestricted denial naming keyctl.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(250, 0, -2, 1)  # keyctl(GET_KEYRING_ID, PROCESS_KEYRING, create)
print("keyctl ok %d" % r if r >= 0 else "keyctl failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'keyctl ok' "$O/bare.out" || { grep -q 'keyctl failed 38' "$O/bare.out" && skip "no keyrings in this kernel"; esc_control_failed "bare keyctl failed: $(cat "$O/bare.out")"; }
under readonly -- "$PY" -c "$cmd"
grep -q 'keyctl ok' "$OUT" && esc_bypass "keyctl reached the kernel keyring under --profile readonly"
expect_denied unrestricted "'keyctl'"
exit 0
