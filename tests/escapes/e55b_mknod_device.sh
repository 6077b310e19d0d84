#!/bin/sh
# E55 (device nodes): as root (CAP_MKNOD), mknod a block device in the
# workspace that aliases a device outside it, then write through the
# workspace name. The device is a loop device this test attaches to a
# canary image file in its temp dir (detached at exit). Opening the loop
# device by its own name is a write outside the workspace (denied); the
# workspace alias must not be a way around that.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "mknod of device nodes needs CAP_MKNOD (root)"
command -v losetup >/dev/null || skip "losetup not installed"
dd if=/dev/zero of="$H/disk.img" bs=1024 count=64 2>/dev/null
loop=$(losetup -f --show "$H/disk.img" 2>/dev/null) || skip "no loop device available"
trap 'losetup -d "$loop" 2>/dev/null; esc_cleanup' EXIT
canary_save "$H/disk.img"
maj=$(stat -c '%t' "$loop"); min=$(stat -c '%T' "$loop")
maj=$((0x$maj)); min=$((0x$min))
cmd="mknod '$W/blk' b $maj $min && printf PWNED-E55B | dd of='$W/blk' conv=notrunc oflag=sync 2>/dev/null"
bare sh -c "$cmd"
sync
canary_intact "$H/disk.img" && esc_control_failed "bare write through the device alias did not change the image: $(cat "$O/bare.out")"
rm -f "$W/blk"; dd if=/dev/zero of="$H/disk.img" bs=1024 count=64 conv=notrunc 2>/dev/null; canary_save "$H/disk.img"
# The loop device by its own name: denied (the control for the alias).
under verify -- sh -c "printf PWNED | dd of='$loop' conv=notrunc oflag=sync 2>/dev/null"
sync
canary_intact "$H/disk.img" || esc_bypass "writing $loop directly changed the image under --profile verify"
under verify -- sh -c "$cmd"
sync
canary_intact "$H/disk.img" || esc_bypass "mknod $W/blk b $maj $min (an alias of $loop) + write changed $H/disk.img under --profile verify"
[ -e "$W/blk" ] && esc_bypass "a block device node was created in the workspace under --profile verify"
report_has 'denied_run()'
