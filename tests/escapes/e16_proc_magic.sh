#!/bin/sh
# E16: /proc magic-link names for a path outside the workspace:
# /proc/self/root/..., /proc/self/cwd/../..., /proc/self/fd/N/..., /dev/fd/N/...,
# /proc/<other pid>/cwd/... (a process outside the tree whose cwd is $H),
# and "$W/lnk/../.bashrc" with lnk -> $H/sub (".." after a symlink is
# physical: it leaves the workspace).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
rel=$(echo "$H" | sed "s|^$T/||")  # "home"
mkdir "$H/sub"; ln -s "$H/sub" "$W/lnk"
(cd "$H" && exec sleep 120) &
other=$!; esc_bg_started $other
for p in "/proc/self/root$H/.bashrc" "/proc/self/cwd/../$rel/.bashrc" \
	 "/proc/thread-self/root$H/.bashrc" "/proc/self/fd/9/.bashrc" "/dev/fd/9/.bashrc" \
	 "/proc/$other/cwd/.bashrc" "$W/lnk/../.bashrc"; do
	cmd="exec 9<'$H'; echo pwn >> '$p'"
	bare sh -c "$cmd"
	canary_intact "$H/.bashrc" && esc_control_failed "bare write to $p did not reach $H/.bashrc"
	canary_make "$H/.bashrc"
	under verify -- sh -c "$cmd"
	canary_intact "$H/.bashrc" || esc_bypass "write to $p reached $H/.bashrc under --profile verify"
	expect_denied unrestricted "'$H/.bashrc'"
done
