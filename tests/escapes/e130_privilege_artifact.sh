#!/bin/sh
# Capabilities outside the tree's set, stored for later: root's command
# keeps CAP_SETFCAP and CAP_FSETID (Docker's set) and capwatch performs the
# allowed setxattr/chmod itself, as full root. Under verify the command
# copies a program into the workspace, gives it file capabilities the tree
# was dropped from (security.capability: CAP_SYS_ADMIN, CAP_SYS_MODULE,
# effective) and the setuid bit. no_new_privs keeps them from the tree
# itself, but after the run any user who executes the file (the user's next
# build step, another account) runs as root with CAP_SYS_ADMIN: the run
# manufactured a privilege the profile never granted. Checked here by
# running the file after the run as uid 65534 (setpriv).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
[ "$(id -u)" = 0 ] || skip "needs root"
command -v setpriv >/dev/null 2>&1 || skip "setpriv not installed"
cat >"$T/arm.py" <<'PY'
import os, shutil, struct, sys
dst = sys.argv[1]
shutil.copy(os.path.realpath(sys.executable), dst)
os.chmod(dst, 0o755)
caps = (1 << 21) | (1 << 16)  # CAP_SYS_ADMIN, CAP_SYS_MODULE
# vfs_cap_data v2: magic_etc (revision 2 | effective), {permitted, inheritable} x 2
blob = struct.pack("<IIIII", 0x02000000 | 1, caps, 0, 0, 0)
for what, f in (("xattr", lambda: os.setxattr(dst, "security.capability", blob)),
                ("suid", lambda: os.chmod(dst, 0o4755))):
    try:
        f(); print("set", what)
    except OSError as e:
        print(what, e)
PY
# After the run: what does an unprivileged user get from the file?
probe() {
	[ -x "$1" ] || { echo "absent"; return; }
	chmod o+rx "$T" "$W" 2>/dev/null
	setpriv --reuid=65534 --regid=65534 --clear-groups "$1" -c \
		'import os; s=open("/proc/self/status").read(); print("euid", os.geteuid(), "CapEff", s.split("CapEff:")[1].split()[0])' 2>&1
}
gained() { # any of CAP_SYS_ADMIN/CAP_SYS_MODULE effective, or euid 0
	echo "$1" | "$CW_PY" -c 'import sys
t = sys.stdin.read().split()
try:
    eff = int(t[t.index("CapEff") + 1], 16); euid = int(t[t.index("euid") + 1])
except (ValueError, IndexError):
    sys.exit(1)
sys.exit(0 if eff & ((1 << 21) | (1 << 16)) or euid == 0 else 1)'
}

bare "$PY" "$T/arm.py" "$W/tool"
p=$(probe "$W/tool")
gained "$p" || esc_control_failed "bare: the armed file gives nothing: $p ($(cat "$O/bare.out"))"
rm -f "$W/tool"

under verify -- "$PY" "$T/arm.py" "$W/tool"
p=$(probe "$W/tool")
if gained "$p"; then
	esc_bypass "after a verify run, uid 65534 executing the workspace file the command made gets: $p ($(tr '\n' ' ' <"$OUT"); outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
fi
exit 0
