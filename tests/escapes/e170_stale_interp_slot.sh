#!/bin/sh
# Red team 11 (2026-12-06), kernel back end: a stale PT_INTERP slot
# vouches for the system loader run as a program.
#
# decide_exec (supervisor/kernel.c) remembers, per process, the PT_INTERP
# of the image it allowed last (the interp slot), and lets the next
# open-for-exec of that inode through as "part of that program"; the
# reader answers the same case itself for the same thread (fan_fast). The
# slot is only taken by the loader's own event. An allowed ELF the kernel
# refuses after its fanotify event but before it opens the interpreter (a
# foreign e_machine: ENOEXEC from load_elf_binary) leaves the slot behind,
# naming the system loader. Its thread A stays alive; the main thread then
# execs a path another thread flips (e140-style) between an allowed name
# (not executable: refused EACCES before any fanotify event) and the
# loader, whose exec the profile denies, with argv {ld, EVIL, MARKER}.
# When the notification decided the allowed name and the kernel opened
# the loader, the decider (the slot is A's, not this thread's: the reader
# passes it on) finds the loader's inode in the process's slot and allows
# it, and fan_ok lets check_image pass: the loader runs the denied EVIL.
# Without the stale slot the same flip is denied at the file the kernel
# opened (0 hits); the bug predates fan_fast (HEAD~1: the slot was keyed
# by process already), which keeps it.
# Capability sought: process_spawn of a program the profile denies.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e170_stale_interp_flip payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
LD=/lib64/ld-linux-x86-64.so.2
[ -x "$LD" ] || skip "no $LD"
cp "$ESC_BIN/payload" "$W/evil"
echo "not a program" >"$W/g"
chmod 644 "$W/g"
"$PY" - "$W/s" "$LD" <<'PY' || fail "could not write the ELF"
import os, struct, sys
path, interp = sys.argv[1], sys.argv[2].encode() + b"\0"
ehsz, phsz, nph, base = 64, 56, 2, 0x20000000
code = bytes.fromhex("31ffb83c0000000f05")  # exit(0), never reached
code_off = ehsz + phsz * nph
body = code + interp
total = code_off + len(body)
eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
# e_machine 0xB7 (aarch64): refused after the program's open, before the interpreter's
eh += struct.pack("<HHIQQQIHHHHHH", 2, 0xB7, 1, base + code_off, ehsz, 0, 0, ehsz, phsz, nph, 0, 0, 0)
io = code_off + len(code)
ph = struct.pack("<IIQQQQQQ", 3, 4, io, base + io, base + io, len(interp), len(interp), 1)
ph += struct.pack("<IIQQQQQQ", 1, 5, 0, base, base, total, total, 0x1000)
with open(path, "wb") as f:
    f.write(eh + ph + body)
os.chmod(path, 0o755)
PY
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s", "'"$W"'/g", "'"$ESC_BIN"'/e170_stale_interp_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)

bare "$ESC_BIN/e170_stale_interp_flip" "$W/s" "$W/g" "$LD" "$W/evil" "$W/M" "$(race_bare_secs)"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare: $(race_line "$O/bare.out")"
rm -f "$W/M"

for mode in default kreads; do
	canary_make "$W/M" ""
	under_reads $mode "$prof" --backend kernel -- \
		"$ESC_BIN/e170_stale_interp_flip" "$W/s" "$W/g" "$LD" "$W/evil" "$W/M" "$RACE"
	esc_log "$mode: $(race_line "$OUT")"
	race_verdict "$W/M" "$mode: the denied $W/evil ran under the system loader, vouched for by the interp slot of a failed exec"
	expect_denied process_spawn
done
exit 0
