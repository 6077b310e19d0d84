#!/bin/sh
# E22: memfd_create + execveat(AT_EMPTY_PATH): an unapproved program run
# from memory. Profile: verify, but process_spawn only for system
# programs and the attack program itself.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e22_memfd_exec payload
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/**", "/bin/**", "'"$ESC_BIN"'/e22_memfd_exec"]}}' verify)
bare "$ESC_BIN/e22_memfd_exec" "$ESC_BIN/payload" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare memfd exec did not run the payload: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
# Control inside capwatch: the payload by path is denied (the profile works).
under "$prof" -- "$ESC_BIN/payload" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] && fail "the profile does not deny the payload by path: the test setup is wrong"
under "$prof" -- "$ESC_BIN/e22_memfd_exec" "$ESC_BIN/payload" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "a payload exec'd from a memfd ran under a profile that denies it ($(cat "$OUT"))"
expect_denied process_spawn
