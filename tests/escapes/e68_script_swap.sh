#!/bin/sh
# E68: the script is swapped between the exec check and the interpreter's
# re-open of argv[1]: a flipper renames an evil script over the approved
# one while the approved one is exec'd in a loop. The approved script is
# harmless; the evil one creates a marker.
#
# The catalogue's defence (layer REP): an interpreter exec is arbitrary
# code, so a policy keyed on a script's path is advisory. capwatch decides
# a script's exec on the image the kernel actually loaded, the
# interpreter, at the exec stop: approving "$W/s.sh" without approving
# /bin/sh approves nothing, and no content placed at that path runs.
# (Approving the interpreter approves every script it may run; SECURITY.md
# says so.)
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
# The system python: a real binary (a pyenv shim would be one more script).
py=/usr/bin/python3
[ -x "$py" ] || skip "no /usr/bin/python3"
py_bin=$(readlink -f "$py")
sh_bin=$(readlink -f /bin/sh)
printf '#!/bin/sh\nexit 0\n' >"$T/good.sh"
printf '#!/bin/sh\n: >%s/EVIL_RAN\n' "$W" >"$T/evil.sh"
chmod +x "$T/good.sh" "$T/evil.sh"
cp "$T/good.sh" "$W/s.sh"
# The loop and the flipper in one python process: no other program needs
# approving. The flipper renames good and evil copies over s.sh while the
# main thread execs s.sh as fast as it can.
cat >"$T/loop.py" <<'EOF2'
import os, shutil, subprocess, sys, threading, time
W, T, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.time() + secs
def flip():
    while time.time() < end:
        for src, tmp in (("good.sh", ".g"), ("evil.sh", ".e")):
            shutil.copy(os.path.join(T, src), os.path.join(W, tmp))
            os.chmod(os.path.join(W, tmp), 0o755)
            os.rename(os.path.join(W, tmp), os.path.join(W, "s.sh"))
th = threading.Thread(target=flip)
th.start()
runs = 0
while time.time() < end:
    try:
        subprocess.run([os.path.join(W, "s.sh")], stderr=subprocess.DEVNULL)
    except OSError:
        pass
    runs += 1
th.join()
print("runs", runs)
EOF2
bare "$py" "$T/loop.py" "$W" "$T" "$(race_bare_secs)"
[ -e "$W/EVIL_RAN" ] || esc_control_failed "bare: the swapped script never ran"
rm -f "$W/EVIL_RAN"; cp "$T/good.sh" "$W/s.sh"
# Approved: python (the loop) and the script path; not its interpreter.
prof=$(esc_profile scriptonly '{"process_spawn": {"default": "deny", "allow": ["'"$py_bin"'", "'"$W"'/s.sh"]}}' verify)
under "$prof" -- "$py" "$T/loop.py" "$W" "$T" "$RACE"
[ -e "$W/EVIL_RAN" ] && esc_bypass "swapped script content ran under the approved script path $W/s.sh"
grep -q '^runs [1-9]' "$OUT" || { cat "$OUT" >&2; fail "the loop did not run under capwatch"; }
# The denial names the interpreter the kernel loaded, not the script path.
# (The portable back end kills the image at its exec stop: the program is
# the interpreter. The kernel back end fails the exec: the program is still
# python, and the scope names the interpreter.)
report_has "any(base(e.get('program') or '') == '$(basename "$sh_bin")' or e['capability']['scope'] == '$sh_bin' for e in denials('process_spawn'))"
exit 0
