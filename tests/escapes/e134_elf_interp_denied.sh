#!/bin/sh
# E24 x PT_INTERP (kernel back end red team): an ELF the profile allows
# names, as its PT_INTERP ("program interpreter"), a program the profile
# denies. The kernel opens and maps the interpreter in the same execve and
# jumps to the interpreter's entry point: the denied program's code runs
# in place of the dynamic loader, with the allowed program's argv.
#
# Kernel back end: decide_exec() remembers the PT_INTERP of every allowed
# image (the interp slot) and lets the next open-for-exec of that inode
# by the same process through without a decision ("part of that
# program"), then puts an ignore mark on it: the denied program itself
# now runs with no fanotify event at all for the rest of the run.
# Portable back end: the exec stop only looks at /proc/PID/exe (the
# allowed ELF), never at the mapped interpreter (kernel-notes: /proc/PID/maps
# shows it). Both back ends let it run today: KNOWN-OPEN.md.
#
# The interpreter payload is written by hand (no libc: a static glibc
# program started as an interpreter crashes in its TLS set-up): it opens
# argv[1] O_CREAT and exits 0. The allowed ELF is a 200-byte image whose
# own code is never reached.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"

"$PY" - "$W/s" "$W/evil" <<'PY' || fail "could not write the ELF files"
import os, struct, sys
main, evil = sys.argv[1], sys.argv[2]

def elf(path, base, code, interp=None):
    ehsz, phsz = 64, 56
    nph = 2 if interp else 1
    code_off = ehsz + phsz * nph
    body = code + (interp.encode() + b"\0" if interp else b"")
    total = code_off + len(body)
    eh = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8
    eh += struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, base + code_off, ehsz, 0, 0, ehsz, phsz, nph, 0, 0, 0)
    ph = b""
    if interp:
        io = code_off + len(code)
        ph += struct.pack("<IIQQQQQQ", 3, 4, io, base + io, base + io, len(interp) + 1, len(interp) + 1, 1)
    ph += struct.pack("<IIQQQQQQ", 1, 5, 0, base, base, total, total, 0x1000)
    with open(path, "wb") as f:
        f.write(eh + ph + body)
    os.chmod(path, 0o755)

# open(argv[1], O_WRONLY|O_CREAT|O_APPEND, 0644); exit(0)
payload = bytes.fromhex("488b7c2410" "be41040000" "baa4010000" "b802000000" "0f05"
                        "31ff" "b83c000000" "0f05")
# exit(0): the allowed program's own code (never reached)
true = bytes.fromhex("31ff" "b83c000000" "0f05")
elf(evil, 0x30000000, payload)
elf(main, 0x20000000, true, interp=evil)
PY

prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s"]}}' verify)

# Positive controls, bare: the payload runs by itself, and as the
# interpreter of the allowed ELF.
bare "$W/evil" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "the payload did not run by itself: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
bare "$W/s" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "the payload did not run as PT_INTERP: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"

# Control under capwatch: the payload by its own name is denied.
under "$prof" --backend kernel -- "$W/evil" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] && fail "the profile does not deny the payload by path: the test setup is wrong"
report_has "denials('process_spawn', '$W/evil')"

# The portable back end: the exec stop checks the interpreter mapped at
# AT_BASE, not only /proc/PID/exe.
under "$prof" --backend portable -- "$W/s" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the denied program $W/evil ran as the PT_INTERP of the allowed $W/s (portable back end, exit $rc)"
report_has "denials('process_spawn', '$W/evil')"
rm -f "$W/PAYLOAD_RAN"

under "$prof" --backend kernel -- "$W/s" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the denied program $W/evil ran as the PT_INTERP of the allowed $W/s (kernel back end, exit $rc, outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
report_has 'outcome["kind"] in ("enforcement_denied", "policy_denied")' "denials('process_spawn', '$W/evil')"
