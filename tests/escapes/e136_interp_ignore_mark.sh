#!/bin/sh
# Kernel back end red team, after e134: an inode that passed once as the
# PT_INTERP of an allowed ELF (decide_exec's interp slot) gets the same
# ignore mark as an allowed program, "until it is modified". From then on
# the kernel opens it for exec with no fanotify event at all, whatever name
# it is reached by: a #! script naming the denied program, denied at the
# start of the run, runs after the ELF has been started once. The portable
# back end denies the #! interpreter both times (exec stop: the name of
# /proc/PID/exe is decided). The e134 step itself runs the payload under
# both back ends; what this test counts is the second #! run.
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
printf '#!%s %s\n' "$W/evil" "$W/SHEBANG_RAN" >"$W/s2"
chmod +x "$W/s2"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s", "'"$W"'/s2"]}}' verify)
cmd="'$W/s2'; rm -f '$W/SHEBANG_RAN'; '$W/s' '$W/ELF_RAN'; '$W/s2'; exit 0"

bare /bin/sh -c "$cmd"
[ -e "$W/SHEBANG_RAN" ] || esc_control_failed "the #! script did not run its interpreter bare: $(cat "$O/bare.out")"
rm -f "$W/SHEBANG_RAN" "$W/ELF_RAN"

under "$prof" --backend portable -- /bin/sh -c "$cmd"
esc_log "portable back end: #! after the ELF $( [ -e "$W/SHEBANG_RAN" ] && echo RAN || echo 'did not run'), denials $(json_get "$R" 'len(d["denials"])')"
rm -f "$W/SHEBANG_RAN" "$W/ELF_RAN"

# Control: the #! interpreter alone is denied under the kernel back end.
under "$prof" --backend kernel -- "$W/s2"
[ -e "$W/SHEBANG_RAN" ] && fail "the #! interpreter $W/evil is not denied: the test setup is wrong"

under "$prof" --backend kernel -- /bin/sh -c "$cmd"
[ -e "$W/SHEBANG_RAN" ] && esc_bypass "the denied #! interpreter $W/evil ran once it had passed as a PT_INTERP (ignore mark; kernel back end, denials $(json_get "$R" 'len(d["denials"])'))"
report_has 'denied_run()' "len(denials('process_spawn', '$W/evil')) >= 2"
