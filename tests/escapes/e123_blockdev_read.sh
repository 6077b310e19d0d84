#!/bin/sh
# A secret read through the block device under its file system: an open of
# /dev/loopN (or /dev/sda, /dev/nvme0n1...) for reading is a plain
# filesystem_read of a /dev path, allowed by readonly and verify, and root
# keeps the DAC_OVERRIDE to open it. The raw device holds the bytes of
# every file on it, secrets included. Setup (root, private mount ns): an
# ext4 image in the test's temp dir, populated by mke2fs -d with
# .ssh/id_ed25519, attached to a loop device and mounted on $H (HOME).
# Reading ~/.ssh/id_ed25519 is denied (sanity); grep -a on /dev/loopN must
# not find the key either.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
command -v mke2fs >/dev/null 2>&1 || skip "mke2fs not installed"
command -v losetup >/dev/null 2>&1 || skip "losetup not installed"
key="KEYBYTES-$esc_name-$$"
mkdir -p "$T/seed/.ssh"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' "$key" >"$T/seed/.ssh/id_ed25519"
chmod 600 "$T/seed/.ssh/id_ed25519"
dd if=/dev/zero of="$T/disk.img" bs=1M count=8 2>/dev/null || fail "image"
mke2fs -q -F -t ext4 -d "$T/seed" "$T/disk.img" >/dev/null 2>&1 || skip "mke2fs -d failed"
LOOP=$(losetup -f --show "$T/disk.img" 2>/dev/null) || skip "no loop device"
trap 'umount -l "$H" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; esc_cleanup' EXIT
rm -rf "$H" && mkdir -p "$H"
mount "$LOOP" "$H" || fail "mount $LOOP on $H"
[ -f "$H/.ssh/id_ed25519" ] || fail "the image has no ~/.ssh/id_ed25519"

# Positive control: bare, the key is in the file and on the device.
bare sh -c "cat \"$H/.ssh/id_ed25519\"; grep -a -o '$key' \"$LOOP\""
[ "$(grep -c "$key" "$O/bare.out")" -ge 2 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

bad=
for prof in readonly verify; do
	HOME=$H under $prof -- cat "$H/.ssh/id_ed25519"
	grep -q "$key" "$OUT" && fail "($prof) ~/.ssh/id_ed25519 read by name: HOME not honoured?"
	expect_denied filesystem_read "'$H/.ssh/id_ed25519'"
	HOME=$H under $prof -- grep -a -o "$key" "$LOOP"
	if grep -q "$key" "$OUT"; then
		bad="$bad; ($prof) the key read from $LOOP (outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
	elif esc_pidns; then
		# The tree's own /dev (CAPWATCH_KERNEL_READS=1) has no block
		# device, and every other mount is nodev: ENOENT, no allow.
		grep -q "$LOOP: No such file or directory" "$OUT" ||
			{ cat "$OUT" >&2; fail "($prof) $LOOP was not absent from the tree's /dev"; }
		esc_none_allowed "$LOOP"
	else
		# Decided on the object (S_ISBLK), not the name: unrestricted.
		expect_denied unrestricted "'$LOOP'"
	fi
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
