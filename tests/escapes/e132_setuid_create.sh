#!/bin/sh
# A setuid file made at creation, not by chmod: open(O_CREAT, 04755) and
# mknod(S_IFREG|04755) in the workspace under verify. Like e130's chmod, a
# privilege made for whoever runs the file after the run (no_new_privs
# only protects the tree): unrestricted, refused EPERM and recorded.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/mk.py" <<'PY'
import os, stat, sys
d = sys.argv[1]
for how in ("open", "mknod"):
    p = os.path.join(d, "suid-" + how)
    try:
        if how == "open":
            os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o4755))
        else:
            os.mknod(p, stat.S_IFREG | 0o4755)
        print(how, "made", oct(os.stat(p).st_mode & 0o7777))
    except OSError as e:
        print(how, "refused", e.errno)
PY
old=$(umask); umask 022
bare "$PY" "$T/mk.py" "$T"
grep -q "open made 0o4755" "$O/bare.out" && grep -q "mknod made 0o4755" "$O/bare.out" ||
	esc_control_failed "bare: no setuid file made: $(cat "$O/bare.out")"
under verify -- "$PY" "$T/mk.py" "$W"
umask "$old"
for how in open mknod; do
	if [ -e "$W/suid-$how" ] && [ -u "$W/suid-$how" ]; then
		esc_bypass "$how made a setuid file in the workspace under verify"
	fi
	grep -q "$how refused 1" "$OUT" || esc_bypass "$how was not refused EPERM: $(cat "$OUT")"
done
report_has 'len([x for x in d["denials"] if x["capability"]["kind"] == "unrestricted" and x["capability"]["scope"] == "setuid bit"]) == 2'
exit 0
