#!/bin/sh
# E28: clone(CLONE_UNTRACED): a child outside ptrace supervision (no exec
# check, no EXITKILL, missing from the tree). Must fail EPERM.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e28_clone_untraced
bare "$ESC_BIN/e28_clone_untraced" "$W/CHILD_RAN"
[ -e "$W/CHILD_RAN" ] || esc_control_failed "bare CLONE_UNTRACED child did not run: $(cat "$O/bare.out")"
rm -f "$W/CHILD_RAN"
under verify -- "$ESC_BIN/e28_clone_untraced" "$W/CHILD_RAN"
[ -e "$W/CHILD_RAN" ] && esc_bypass "a CLONE_UNTRACED child ran under capwatch: $(cat "$OUT")"
grep -q 'Operation not permitted' "$OUT" || fail "expected EPERM: $(cat "$OUT")"
expect_denied unrestricted "'clone'"
