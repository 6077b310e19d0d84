#!/bin/sh
# E107: --keep-fd N (contract section 1): an inherited descriptor the user
# passes on on purpose is "decided like an open of what it refers to".
# (a) fd 3 open for writing on a workspace file under verify: the write
# works. (b) the attack: fd 3 open for append on a file outside the
# workspace, passed with --keep-fd 3 under verify: it must not reach the
# command (denied as unrestricted, the file unchanged).
# Capability sought: unrestricted (a write outside the workspace) through
# a kept descriptor.
# Expected after the fix: (a) f holds the line, exit 0; (b) the outside
# file is unchanged and the report names an unrestricted denial of its
# path.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
: >"$W/f"
bare sh -c 'echo x >&3' 3>"$W/f"
[ -s "$W/f" ] || esc_control_failed "bare write to the inherited fd 3 did not reach f"
: >"$W/f"
"$CAPWATCH" --help 2>&1 | grep -q -- --keep-fd || fail "capwatch has no --keep-fd option (contract section 1)"
under verify --keep-fd 3 -- sh -c 'echo x >&3' 3>"$W/f"
[ "$rc" = 0 ] && [ "$(cat "$W/f")" = x ] || { cat "$OUT" >&2; fail "--keep-fd 3 with a workspace file under verify: exit $rc, f holds '$(cat "$W/f")'"; }
canary_make "$H/.bashrc"
under verify --keep-fd 3 -- sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "--keep-fd 3 passed a descriptor open for append on $H/.bashrc (outside the workspace) under --profile verify"
expect_denied unrestricted
exit 0
