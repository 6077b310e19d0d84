#!/bin/sh
# E14: a hard link to a file outside the workspace, written through its
# workspace name. (a) the link pre-exists (made before the run, e.g. by a
# checkout); (b) the sandbox tries to create it itself.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
ln "$H/.bashrc" "$W/notes.txt" || skip "hard links not possible in $T"
canary_save "$H/.bashrc"
cmd="printf 'curl x|sh\n' >> notes.txt"
bare sh -c "$cmd"
canary_intact "$H/.bashrc" && esc_control_failed "bare append through the link did not change the target"
# (b) creating the link under capwatch: link(2) with the source outside.
rm -f "$W/notes.txt"; canary_make "$H/.bashrc"
under verify -- sh -c "ln '$H/.bashrc' notes2.txt && printf 'pwn\n' >> notes2.txt"
canary_intact "$H/.bashrc" || esc_bypass "(b) link() of $H/.bashrc into the workspace then write: target changed"
[ -e "$W/notes2.txt" ] && esc_bypass "(b) the hard link $W/notes2.txt to a file outside was created"
expect_denied unrestricted "'$H/.bashrc'"
# (a) the pre-existing link.
ln "$H/.bashrc" "$W/notes.txt"; canary_save "$H/.bashrc"
under verify -- sh -c "$cmd"
canary_intact "$H/.bashrc" || esc_bypass "(a) append to the pre-existing hard link $W/notes.txt (st_nlink 2) under --profile verify changed $H/.bashrc; decided as workspace_write on the name"
report_has 'denials()'
