#!/bin/sh
# Found while fixing e167 (2026-12-06), every back end: a private key under
# a name that is no secret's (deploy_key), in a workspace on /dev/shm (a
# RAM-backed build directory), read with cat. fs_open.c looks at what a
# file holds before a read (a private key under any name is a secret:
# keys.h), but emulable_object() sends every name under /dev/ to
# fs_special.c, which decided on the name, the inode's other names and
# the device, never the content: the key was read. The same there for
# e167's route (two bytes of the key's armour overwritten through a
# write open, then a read), which fs_special.c's write opens did not look
# at either.
# Capability sought: filesystem_read of a private key under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
S=$(mktemp -d -p /dev/shm cwtest.XXXXXX) || skip "mktemp in /dev/shm"
trap 'rm -rf "$S"; esc_cleanup' EXIT
S=$(cd "$S" && pwd -P)
SW=$S/ws
mkdir "$SW" || fail "mkdir $SW"
body="MC4CAQAwBQYDK2VwBCIEIE168x$$"
mk() {
	for f in deploy_key defanged_key; do
		printf -- '-----BEGIN PRIVATE KEY-----\n%s%s\n-----END PRIVATE KEY-----\n' "$body" "$f" >"$SW/$f"
	done
	echo "a public file" >"$SW/README"
}
# (No marker in the script: the tree's read of it would be a secret read.)
cat >"$T/read.py" <<'PYEOF'
import os, sys
direct, defang = sys.argv[1], sys.argv[2]
try:
    print("direct:", open(direct).read())
except OSError as e:
    print("direct refused:", e.errno)
try:
    size = os.stat(defang).st_size
    fd = os.open(defang, os.O_WRONLY)
    os.pwrite(fd, b"x", 24)
    os.pwrite(fd, b"x", size - 2)
    os.close(fd)
    print("defanged:", open(defang).read())
except OSError as e:
    print("defanged refused:", e.errno)
print(open(sys.argv[3]).read())
PYEOF
cd "$SW" || fail "cd $SW"
ATTACK="$PY '$T/read.py' '$SW/deploy_key' '$SW/defanged_key' '$SW/README'"
mk
bare sh -c "$ATTACK"
[ "$(grep -c "$body" "$O/bare.out")" = 2 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	mk
	under verify --workspace "$SW" "$@" -- sh -c "$ATTACK"
	grep -q "$body" "$OUT" &&
		esc_bypass "$_w: a private key read in a workspace on /dev/shm: $(grep "$body" "$OUT" | tr '\n' ' ')"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}
esc_each_backend check
cd /
exit 0
