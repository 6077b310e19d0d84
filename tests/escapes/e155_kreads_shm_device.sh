#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1): a device node on the
# tree's /dev/shm. reads_view (supervisor/kernel.c) makes every mount
# nodev with mount_setattr(AT_RECURSIVE) and then moves clones of the
# host's /dev/shm, /dev/pts and /dev/mqueue (open_tree taken before the
# setattr) into the new /dev: the /dev/shm there keeps the host's
# attributes, without nodev (see /proc/self/mountinfo in the tree). A
# block device node made there opens, and a read-only open of it is
# neither notified (filter) nor seen by fanotify (no permission event for
# devices). Tried as root (the tree keeps CAP_MKNOD): mknod of a block
# device aliasing a loop device over a secret image in this test's temp
# dir, under /dev/shm (a scratch directory of this test) and in the
# workspace, then `head -c` of it.
# Held: the mknod itself is notified and denied (mknodat of a device:
# unrestricted), in /dev/shm and in the workspace alike.
# Capability sought: raw read of a block device (filesystem_read of
# every secret on it) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "mknod of device nodes needs CAP_MKNOD (root)"
command -v losetup >/dev/null || skip "losetup not installed"
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
S=$(mktemp -d /dev/shm/cwtest.XXXXXX) || skip "mktemp in /dev/shm"
SECRET="E155-DISK-SECRET-$$"
dd if=/dev/zero of="$H/disk.img" bs=1024 count=64 2>/dev/null
printf '%s' "$SECRET" | dd of="$H/disk.img" conv=notrunc 2>/dev/null
loop=$(losetup -f --show "$H/disk.img" 2>/dev/null) || { rm -rf "$S"; skip "no loop device available"; }
trap 'losetup -d "$loop" 2>/dev/null; cd / && rm -rf "$S"; esc_cleanup' EXIT
maj=$((0x$(stat -c '%t' "$loop"))); min=$((0x$(stat -c '%T' "$loop")))
for node in "$S/blk" "$W/blk"; do
	cmd="mknod '$node' b $maj $min && head -c 64 '$node'; grep ' /dev/shm ' /proc/self/mountinfo"
	rm -f "$node"
	bare sh -c "$cmd"
	grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare mknod+read of $node did not read the image: $(cat "$O/bare.out")"
	rm -f "$node"
	CAPWATCH_KERNEL_READS=1
	export CAPWATCH_KERNEL_READS
	under verify -- sh -c "$cmd"
	unset CAPWATCH_KERNEL_READS
	esc_log "$node: backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'); the tree's /dev/shm: $(grep ' /dev/shm ' "$OUT" | tail -1 | cut -d' ' -f5,6)"
	grep -q "$SECRET" "$OUT" && esc_bypass "a block device node made at $node was read under CAPWATCH_KERNEL_READS=1"
	[ -e "$node" ] && { ls -l "$node" >&2; fail "$node was made under capwatch"; }
	expect_denied unrestricted
done
exit 0
