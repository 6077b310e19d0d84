#!/bin/sh
# E51: writes without write(): copy_file_range, sendfile, splice,
# FICLONE, fallocate. They need a descriptor open for writing; under
# readonly the sandbox must not get one for a workspace file, and
# descriptors it can get (O_RDONLY) must not let these calls write.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$W/src.c"
printf 'payload payload payload\n' >"$T/data"
cat >"$T/cfr.py" <<PYEOF
import fcntl, os, sys
mode = sys.argv[1]
src = os.open("$T/data", os.O_RDONLY)
try:
    dst = os.open("$W/src.c", os.O_WRONLY)
except OSError as e:
    print("write open refused", e)
    dst = os.open("$W/src.c", os.O_RDONLY)
try:
    if mode == "copy_file_range":
        print(os.copy_file_range(src, dst, 24, 0, 0))
    elif mode == "sendfile":
        print(os.sendfile(dst, src, 0, 24))
    elif mode == "splice":
        r, w = os.pipe(); os.write(w, b"spliced!"); print(os.splice(r, dst, 8, offset_dst=0))
    elif mode == "ficlone":
        fcntl.ioctl(dst, 0x40049409, src); print("cloned")
    elif mode == "fallocate":
        os.posix_fallocate(dst, 0, 1 << 20); print("allocated")
except OSError as e:
    print(mode, "failed", e)
PYEOF
for mode in copy_file_range sendfile splice fallocate; do
	bare "$PY" "$T/cfr.py" $mode
	canary_intact "$W/src.c" && esc_control_failed "$mode: bare attack did not change the file: $(cat "$O/bare.out")"
	canary_make "$W/src.c"
	under readonly -- "$PY" "$T/cfr.py" $mode
	canary_intact "$W/src.c" || esc_bypass "$mode changed $W/src.c under --profile readonly: $(cat "$OUT")"
	expect_denied workspace_write "'$W/src.c'"
done
