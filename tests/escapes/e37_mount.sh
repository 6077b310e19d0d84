#!/bin/sh
# E37: mount --bind (classic API) and open_tree/move_mount (new API) to
# alias a path: here a fake file over a file outside the workspace. Runs in
# a private mount namespace of this test; root only.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
esc_mounted "$H/authorized_keys"
printf 'trusted\n' >"$H/authorized_keys"
printf 'attacker key\n' >"$W/fake"
bare mount --bind "$W/fake" "$H/authorized_keys"
grep -q attacker "$H/authorized_keys" || esc_control_failed "bare bind mount did not alias the file: $(cat "$O/bare.out")"
umount "$H/authorized_keys"
under verify -- mount --bind "$W/fake" "$H/authorized_keys"
grep -q attacker "$H/authorized_keys" && { umount "$H/authorized_keys"; esc_bypass "mount --bind worked under capwatch"; }
expect_denied unrestricted "'mount'"
