#!/bin/sh
# E12 (dangling symlink): O_CREAT follows a dangling symlink in the
# workspace and creates its target outside; also mkdir/mknod through a
# symlinked parent directory.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
ln -s "$H/.config-autostart.desktop" "$W/dangling"
mkdir "$H/dir"; ln -s "$H/dir" "$W/dirlink"
for cmd in "echo x > '$W/dangling'" "mkdir '$W/dirlink/newdir'" "$PY -c \"import os; os.mknod('$W/dirlink/node')\""; do
	rm -rf "$H/.config-autostart.desktop" "$H/dir/newdir" "$H/dir/node"
	bare sh -c "$cmd"
	ls "$H/.config-autostart.desktop" "$H/dir/newdir" "$H/dir/node" >/dev/null 2>&1 ||
		[ -e "$H/.config-autostart.desktop" ] || [ -e "$H/dir/newdir" ] || [ -e "$H/dir/node" ] ||
		esc_control_failed "bare '$cmd' created nothing outside"
	rm -rf "$H/.config-autostart.desktop" "$H/dir/newdir" "$H/dir/node"
	under verify -- sh -c "$cmd"
	for f in "$H/.config-autostart.desktop" "$H/dir/newdir" "$H/dir/node"; do
		[ -e "$f" ] && esc_bypass "'$cmd' created $f under --profile verify"
	done
	expect_denied unrestricted
done
