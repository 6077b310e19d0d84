#!/bin/sh
# E66: per-thread cwd: a thread unshare(CLONE_FS)s and chdir()s outside
# the workspace, then writes a relative name that also exists in the
# workspace (the main thread's cwd). The supervisor must resolve against
# the notifying thread's cwd.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e66_thread_cwd
canary_make "$H/.bashrc"
: >"$W/.bashrc"
bare "$ESC_BIN/e66_thread_cwd" "$H" .bashrc
canary_intact "$H/.bashrc" && esc_control_failed "bare thread write failed: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under verify -- "$ESC_BIN/e66_thread_cwd" "$H" .bashrc
canary_intact "$H/.bashrc" || esc_bypass "a thread with its own cwd wrote $H/.bashrc under --profile verify (resolved against the wrong cwd)"
expect_denied unrestricted "'$H/.bashrc'"
