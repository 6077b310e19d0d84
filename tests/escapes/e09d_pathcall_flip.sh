#!/bin/sh
# E09 (path-mutating calls): the path of unlink/lchown/chmod flipped by a
# thread between a path capwatch allows and leaves to the kernel, and a
# file outside the workspace. Good paths: "$W/ok.txt/" (trailing slash),
# a symlink in the workspace (lchown acts on the link), /dev/stdout (a
# pseudo-device: chmod follows it to this test's own output file).
# Pass = the canary never changes in $CW_RACE_SECONDS per mode.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e09d_pathcall_flip
: >"$W/ok.txt"
ln -s ok.txt "$W/lnk"
for v in "unlink:$W/ok.txt/" "lchown:$W/lnk" "chmod:/dev/stdout"; do
	mode=${v%%:*} good=${v#*:}
	rm -f "$H/.bashrc"; canary_make "$H/.bashrc"; chmod 600 "$H/.bashrc"; canary_save "$H/.bashrc"
	bare "$ESC_BIN/e09d_pathcall_flip" "$(race_bare_secs)" $mode "$good" "$H/.bashrc"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "$mode: bare flipper never hit the canary: $(race_line "$O/bare.out")"
	esc_log "$mode $good: bare: $(race_line "$O/bare.out")"
	rm -f "$H/.bashrc"; canary_make "$H/.bashrc"; chmod 600 "$H/.bashrc"; canary_save "$H/.bashrc"
	under verify -- "$ESC_BIN/e09d_pathcall_flip" "$RACE" $mode "$good" "$H/.bashrc"
	race_verdict "$H/.bashrc" "$mode with the path flipped between $good and $H/.bashrc changed the canary under --profile verify"
done
