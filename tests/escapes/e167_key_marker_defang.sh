#!/bin/sh
# Red team 10 (2026-12-06), every back end: a private key the profile lets
# the tree write but not read, "declassified" by overwriting two bytes of
# its PEM armour, then read. A *.pem or *.key holding no private key block
# is no secret (a certificate: cw_path_secret_by_key_name + cw_keys_free in
# fs_open.c, key_free in kernel.c decide_read), and any other file is a
# secret by its content only while it holds one (cw_keys_scan_fd looks for
# "PRIVATE KEY-----"). Both are judged on the content at the time of the
# read, which the tree may change: an O_WRONLY open of server.pem (a
# workspace write, allowed under verify), one byte written at offset 24
# (inside the BEGIN line's marker for every PEM key type: PKCS#8, RSA, EC,
# DSA, OPENSSH, ENCRYPTED) and one at size-2 (inside the END line's), and
# the whole key body is read: nothing but punctuation was lost (the tree
# can even write the two bytes back afterwards). The start-up scan knew
# the inode as a secret, but cw_secret_ids_find ignores a known inode with
# one link. (a) server.pem, a secret by name; (b) deploy_key, a secret by
# content only.
# Capability sought: filesystem_read of a private key under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
body="MC4CAQAwBQYDK2VwBCIEIE167x$$"
mk() {
	for f in server.pem deploy_key; do
		printf -- '-----BEGIN PRIVATE KEY-----\n%s%s\n-----END PRIVATE KEY-----\n' "$body" "$f" >"$W/$f"
	done
}
# (No marker in the script: the tree's read of it would be a secret read.)
cat >"$T/defang.py" <<'PYEOF'
import os, sys
for f in sys.argv[1:]:
    try:
        print("before:", open(f).read())
    except OSError as e:
        print("before refused:", e.errno)
    try:
        size = os.stat(f).st_size
        fd = os.open(f, os.O_WRONLY)
        os.pwrite(fd, b"x", 24)
        os.pwrite(fd, b"x", size - 2)
        os.close(fd)
        print("after:", open(f).read())
    except OSError as e:
        print("after refused:", e.errno)
PYEOF
ATTACK="$PY $T/defang.py $W/server.pem $W/deploy_key"
mk
bare sh -c "$ATTACK"
[ "$(grep -c "$body" "$O/bare.out")" = 4 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	mk
	under verify "$@" -- sh -c "$ATTACK"
	grep -q "$body" "$OUT" &&
		esc_bypass "$_w: a private key read after two bytes of its armour were overwritten: $(grep "$body" "$OUT" | tr '\n' ' ')"
	expect_denied filesystem_read
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}
esc_each_backend check
exit 0
