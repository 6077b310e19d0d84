#!/bin/sh
# E58 x E24 (issue 14 item 6): a script whose #! names an interpreter in a
# directory deeper than PATH_MAX. The profile approves the script, not
# the interpreter (contract: a script is run through its interpreter, and
# the exec is decided on the image the kernel loads). At the exec stop
# readlink(/proc/PID/exe) fails (ENAMETOOLONG): the image must still be
# identified, by the device and inode of what the kernel mapped, and an
# image that no allowed exec named is killed before its first instruction
# and reported. Before the fix the check returned and the image ran.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
comp=$(printf 'd%.0s' $(seq 1 200))
# The deep directory, built with relative mkdir/chdir steps (no absolute
# path that long can be passed to the kernel): 25 x 201 bytes > 4096.
"$PY" - "$W" "$comp" "$ESC_BIN/payload" <<'PY' || fail "could not build the deep directory"
import os, shutil, sys
os.chdir(sys.argv[1])
for _ in range(25):
    os.mkdir(sys.argv[2])
    os.chdir(sys.argv[2])
shutil.copy(sys.argv[3], "evil")
os.chmod("evil", 0o755)
shutil.copy("/bin/sleep", "sl")
PY
# The script names the interpreter relative to the cwd it is run from.
printf '#!./evil %s\n' "$W/PAYLOAD_RAN" >"$W/s"
chmod +x "$W/s"
run="import os, sys
for _ in range(25): os.chdir(sys.argv[1])
os.execv(sys.argv[2], [sys.argv[2]])"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s"]}}' verify)

# Positive control: bare, the deep interpreter runs, and its name cannot
# be read back from /proc (the condition this test is about).
bare "$PY" -c "$run
" "$comp" "$W/s"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "the deep #! interpreter did not run: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
"$PY" -c "import os, sys, subprocess
for _ in range(25): os.chdir(sys.argv[1])
p = subprocess.Popen(['./sl', '10'])
try:
    os.readlink('/proc/%d/exe' % p.pid)
    print('readable')
except OSError as e:
    print(e.strerror)
p.kill()
p.wait()" "$comp" >"$O/readlink.out" 2>&1
esc_log "readlink(/proc/PID/exe) of the deep image: $(cat "$O/readlink.out")"

under "$prof" -- "$PY" -c "$run" "$comp" "$W/s"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the unapproved interpreter deeper than PATH_MAX ran (its exec stop could not read its name)"
report_has 'denied_run()' \
	'any(e["rule"] == "builtin:exec-unidentified" and e["syscall"] == "execve" for e in denials("process_spawn"))'
if [ "$(json_get "$R" 'd["outcome"]["enforcement"]["backend"]')" = seccomp-unotify+ptrace ]; then
	# Portable: killed at the exec stop, before its first instruction.
	[ "$rc" = 137 ] || fail "expected the command killed by SIGKILL (137), got $rc: $(cat "$OUT")"
	trace_has '[e for e in ev if e.get("type") == "note" and "cannot be identified" in e.get("message", "") and "killed" in e.get("message", "")]'
else
	# Kernel: the exec itself fails (EPERM) on the file fanotify saw.
	[ "$rc" != 0 ] || fail "the denied exec did not fail"
	trace_has '[e for e in ev if e.get("type") == "note" and "denied at the file the kernel opened" in e.get("message", "")]'
fi
exit 0
