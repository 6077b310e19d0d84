#!/bin/sh
# Red team 11 (2026-12-06), every back end: e167's fix remembers a file
# that held a private key when the tree opened it to write
# (fs_open.c key_note_before_write -> secret_ids.c cw_secret_ids_key_note),
# and forgets it when "its last name" is removed: fs_path.c prepare_fs
# calls cw_secret_ids_unlinking on the destination of every rename (and
# on every unlink) before the call runs, and that drops the entry when
# the name's inode has one link. Nothing checks that the name really
# goes away:
#   (a) rename(key, key): the kernel does nothing (same inode), capwatch
#       forgets the key;
#   (b) rename(missing, key): fails ENOENT, capwatch forgets the key;
#   (c) unlink(key) while the tree still holds the write descriptor of
#       the defang, then a reopen of /proc/self/fd/N for reading (a magic
#       link reopen checks the inode's mode, not the descriptor's): with
#       reads decided in the kernel the deleted file is read (the other
#       back ends reopen by name: ENOENT).
# Each after e167's defang (two bytes of the PEM armour overwritten), on
# server.pem (a secret by name) and deploy_key (by content only): the
# key body is then read.
# Capability sought: filesystem_read of a private key under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
body="MC4CAQAwBQYDK2VwBCIEIE169x$$"
mk() {
	for f in server.pem deploy_key; do
		printf -- '-----BEGIN PRIVATE KEY-----\n%s%s\n-----END PRIVATE KEY-----\n' "$body" "$f" >"$W/$f"
	done
}
# (No marker in the script: the tree's read of it would be a secret read.)
cat >"$T/forget.py" <<'PYEOF'
import os, sys
how = sys.argv[1]
for f in sys.argv[2:]:
    try:
        size = os.stat(f).st_size
        fd = os.open(f, os.O_WRONLY)
        os.pwrite(fd, b"x", 24)
        os.pwrite(fd, b"x", size - 2)
        if how == "self":
            os.rename(f, f)
        elif how == "missing":
            try:
                os.rename(f + ".missing", f)
            except OSError:
                pass
        elif how == "unlink":
            os.unlink(f)
            f = "/proc/self/fd/%d" % fd
        print("after:", open(f).read())
    except OSError as e:
        print("refused:", e.errno)
PYEOF
mk
bare sh -c "$PY $T/forget.py self $W/server.pem $W/deploy_key"
[ "$(grep -c "$body" "$O/bare.out")" = 2 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	for how in self missing unlink; do
		mk
		under verify "$@" -- sh -c "$PY $T/forget.py $how $W/server.pem $W/deploy_key"
		grep -q "$body" "$OUT" &&
			esc_bypass "$_w, $how: a private key read after capwatch forgot it: $(grep "$body" "$OUT" | tr '\n' ' ')"
		[ "$how" = unlink ] || expect_denied filesystem_read
		esc_log "$_w, $how: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
	done
}
esc_each_backend check
exit 0
