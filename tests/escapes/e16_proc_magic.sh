#!/bin/sh
# E16: /proc magic-link names for a path outside the workspace:
# /proc/self/root/..., /proc/self/cwd/../..., /proc/self/fd/N/..., /dev/fd/N/...
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
rel=$(echo "$H" | sed "s|^$T/||")  # "home"
for p in "/proc/self/root$H/.bashrc" "/proc/self/cwd/../$rel/.bashrc" \
	 "/proc/thread-self/root$H/.bashrc" "/proc/self/fd/9/.bashrc" "/dev/fd/9/.bashrc"; do
	cmd="exec 9<'$H'; echo pwn >> '$p'"
	bare sh -c "$cmd"
	canary_intact "$H/.bashrc" && esc_control_failed "bare write to $p did not reach $H/.bashrc"
	canary_make "$H/.bashrc"
	under verify -- sh -c "$cmd"
	canary_intact "$H/.bashrc" || esc_bypass "write to $p reached $H/.bashrc under --profile verify"
	expect_denied unrestricted "'$H/.bashrc'"
done
