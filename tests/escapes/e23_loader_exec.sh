#!/bin/sh
# E23: code execution without exec'ing the program: the dynamic loader
# runs an unapproved binary; and python ctypes runs machine code from an
# mmap(PROT_EXEC) page. Exec policy cannot contain code execution:
# enforcement must be at the resource syscalls. Checked: (1) the
# loader-run payload; (2) shellcode's raw openat of a file outside the
# workspace is denied like any other open.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
ld=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null) || skip "no /lib64/ld-linux-x86-64.so.2"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*"]}}' verify)
bare "$ld" "$ESC_BIN/payload" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare loader exec did not run the payload: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
under "$prof" -- sh -c "'$ld' '$ESC_BIN/payload' '$W/PAYLOAD_RAN'"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the dynamic loader ran an unapproved program under a spawn-limited profile"
expect_denied process_spawn
# (2) shellcode: openat(AT_FDCWD, path, O_WRONLY|O_APPEND) via the syscall instruction.
canary_make "$H/.bashrc"
cat >"$T/sc.py" <<PYEOF
import ctypes, mmap, os
path = ctypes.create_string_buffer(b"$H/.bashrc")
# mov rdi,-100; mov rsi,path; mov edx,0x401; mov eax,257; syscall; ret
code = (b"\x48\xc7\xc7\x9c\xff\xff\xff" + b"\x48\xbe" + ctypes.addressof(path).to_bytes(8, "little")
        + b"\xba\x01\x04\x00\x00" + b"\xb8\x01\x01\x00\x00" + b"\x0f\x05" + b"\xc3")
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(code)
fn = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
fd = fn()
print("shellcode openat", fd, flush=True)
if fd >= 0:
    os.write(fd, b"pwn-e23\n")
PYEOF
bare "$PY" "$T/sc.py"
canary_intact "$H/.bashrc" && esc_control_failed "bare shellcode did not write the canary: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"
under "$prof" -- "$PY" "$T/sc.py"
canary_intact "$H/.bashrc" || esc_bypass "shellcode wrote $H/.bashrc"
expect_denied unrestricted "'$H/.bashrc'"
