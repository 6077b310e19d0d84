#!/bin/sh
# ioctl(FS_IOC_SET_ENCRYPTION_POLICY) is not among the commands ioctl.c
# decides (table.c cw_ioctl_cmds): it passes in the kernel on a descriptor
# opened for reading. On a directory outside the workspace (root keeps
# CAP_FOWNER; the directory must be empty) it sets a permanent fscrypt
# policy: from then on nothing can be created in it without a key nobody
# has (ENOKEY), and the policy cannot be removed (only the empty
# directory). A metadata write outside the workspace (protected_metadata /
# unrestricted) through a read-only open. Setup (root, private mount ns):
# an ext4 image with the encrypt feature, mounted on $H.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
command -v mke2fs >/dev/null 2>&1 || skip "mke2fs not installed"
dd if=/dev/zero of="$T/disk.img" bs=1M count=16 2>/dev/null || fail "image"
mke2fs -q -F -t ext4 -O encrypt "$T/disk.img" >/dev/null 2>&1 || skip "mke2fs -O encrypt failed"
LOOP=$(losetup -f --show "$T/disk.img" 2>/dev/null) || skip "no loop device"
trap 'umount -l "$H" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; esc_cleanup' EXIT
rm -rf "$H" && mkdir -p "$H"
mount "$LOOP" "$H" || fail "mount $LOOP on $H"

cat >"$T/setpol.py" <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
# fscrypt_policy_v1: version 0, AES-256-XTS contents, AES-256-CTS names, flags 0, a key descriptor
pol = struct.pack("BBBB8s", 0, 1, 4, 0, b"CWE124KD")
try:
    fcntl.ioctl(fd, 0x800c6613, pol)  # FS_IOC_SET_ENCRYPTION_POLICY
    print("policy set")
except OSError as e:
    print("ioctl:", e)
PY
# The directory's state: can a file be created in it?
can_create() { touch "$1/probe.$$" 2>/dev/null && rm -f "$1/probe.$$"; }

mkdir "$H/projects"
bare "$PY" "$T/setpol.py" "$H/projects"
grep -q "policy set" "$O/bare.out" || {
	grep -q "Operation not supported" "$O/bare.out" && skip "no fscrypt in this kernel"
	esc_control_failed "bare: $(cat "$O/bare.out")"
}
can_create "$H/projects" && esc_control_failed "bare: files can still be created after the policy"
rmdir "$H/projects" || fail "rmdir"

bad=
for prof in verify readonly; do
	mkdir "$H/projects"
	under $prof -- "$PY" "$T/setpol.py" "$H/projects"
	if ! can_create "$H/projects"; then
		bad="$bad; ($prof) $H/projects (outside the workspace) got an encryption policy: nothing can be created in it any more ($(cat "$OUT" | head -3 | tr '\n' ' '); outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
	fi
	rmdir "$H/projects" || fail "rmdir"
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
