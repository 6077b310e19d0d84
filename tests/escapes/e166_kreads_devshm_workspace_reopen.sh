#!/bin/sh
# Red team 10 (2026-12-06), reads decided in the kernel
# (CAPWATCH_KERNEL_READS=1, opt-in): e163's route (a secret opened
# O_WRONLY, a workspace write verify allows, then reopened read-only
# through /proc/self/fd/N) with the workspace on /dev/shm (mktemp -d -p
# /dev/shm: a RAM-backed build directory). e163's fix opens the tree's
# files from the tree's root (run->tree_root_fd), but only in fs_open.c's
# emulation: emulable_object() sends every name under "/dev/" to
# fs_special.c, which looks the name up and opens it from capwatch's own
# "/" (fs_special.c do_lookup/do_open: cw_openat2_long, AT_FDCWD). The
# descriptor installed is then on capwatch's mount of /dev/shm, in
# capwatch's mount namespace, which fanotify does not watch; the
# read-only reopen passes the filter, follows the magic link to that
# mount, and no FAN_OPEN_PERM event is sent. The direct read of the same
# file is denied (the tree's clone of /dev/shm is watched). Under the
# portable and the default kernel back end the reopen is notified and
# decided on its object: denied.
# Capability sought: filesystem_read of a secret (.env, a private key)
# under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
S=$(mktemp -d -p /dev/shm cwtest.XXXXXX) || skip "mktemp in /dev/shm"
trap 'rm -rf "$S"; esc_cleanup' EXIT
S=$(cd "$S" && pwd -P)
SW=$S/ws
mkdir "$SW" || fail "mkdir $SW"
tok="E166-$$"
printf 'API_KEY=%s-env\n' "$tok" >"$SW/.env"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s-key\n-----END OPENSSH PRIVATE KEY-----\n' "$tok" >"$SW/server.key"
echo "a public file" >"$SW/README"
cat >"$T/reopen.py" <<'PYEOF'
import os, sys
for f in sys.argv[1:]:
    try:
        fd = os.open(f, os.O_WRONLY | os.O_CLOEXEC)
        r = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY | os.O_CLOEXEC)
        sys.stdout.write("reopen: " + os.read(r, 4096).decode())
    except OSError as e:
        print("reopen %s: %s" % (f, e))
    try:
        sys.stdout.write("direct: " + open(f).read())
    except OSError as e:
        print("direct %s: %s" % (f, e))
PYEOF
cd "$SW" || fail "cd $SW"
ATTACK="$PY '$T/reopen.py' '$SW/.env' '$SW/server.key'; cat '$SW/README'"
# Positive control: bare, both secrets come out twice (reopen, direct).
bare sh -c "$ATTACK"
[ "$(grep -c "$tok" "$O/bare.out")" = 4 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	under verify --workspace "$SW" "$@" -- sh -c "$ATTACK"
	grep -q "$tok" "$OUT" &&
		esc_bypass "$_w: secrets in a workspace on /dev/shm opened O_WRONLY and reopened read-only through /proc/self/fd: $(grep "$tok" "$OUT" | tr '\n' ' ')"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

esc_each_backend check
cd /
exit 0
