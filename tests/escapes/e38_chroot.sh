#!/bin/sh
# E38: chroot (possible as root, or in a user namespace) gives a root that
# differs from the supervisor's. Must be denied.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "chroot needs root (or a user namespace, see E36)"
mkdir "$W/fakeroot"
cmd="import os; os.chroot('$W/fakeroot'); print('chrooted', os.listdir('/'))"
bare "$PY" -c "$cmd"
grep -q chrooted "$O/bare.out" || esc_control_failed "bare chroot failed: $(cat "$O/bare.out")"
under verify -- "$PY" -c "$cmd"
grep -q chrooted "$OUT" && esc_bypass "chroot worked under capwatch"
expect_denied unrestricted "'chroot'"
