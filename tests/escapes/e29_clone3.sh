#!/bin/sh
# E29: clone3() with its flags in memory (CLONE_UNTRACED). Must be ENOSYS
# (glibc falls back to clone, whose flags the filter sees).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e29_clone3
bare "$ESC_BIN/e29_clone3" "$W/CHILD_RAN"
[ -e "$W/CHILD_RAN" ] || esc_control_failed "bare clone3 child did not run: $(cat "$O/bare.out")"
rm -f "$W/CHILD_RAN"
under verify -- "$ESC_BIN/e29_clone3" "$W/CHILD_RAN"
[ -e "$W/CHILD_RAN" ] && esc_bypass "a clone3(CLONE_UNTRACED) child ran under capwatch: $(cat "$OUT")"
grep -q 'Function not implemented' "$OUT" || fail "expected ENOSYS: $(cat "$OUT")"
