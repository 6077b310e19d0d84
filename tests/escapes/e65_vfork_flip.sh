#!/bin/sh
# E65: vfork child execve(buf) while another parent thread flips buf
# between an approved program (/bin/true) and an unapproved one (a payload
# in the workspace). The exec stop must be authoritative.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e65_vfork_flip payload
cp "$ESC_BIN/payload" "$W/evil"
true_bin=/usr/bin/true
[ -x "$true_bin" ] || true_bin=/bin/true
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ESC_BIN"'/e65_vfork_flip"]}}' verify)
bare "$ESC_BIN/e65_vfork_flip" "$(race_bare_secs)" "$true_bin" "$W/evil" "$W/PAYLOAD_RAN"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare flipped vfork+exec never ran the payload: $(race_line "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
canary_make "$W/PAYLOAD_RAN.absent"; rm -f "$W/PAYLOAD_RAN.absent"
under "$prof" -- "$ESC_BIN/e65_vfork_flip" "$RACE" "$true_bin" "$W/evil" "$W/PAYLOAD_RAN"
esc_log "under capwatch, ${RACE}s: $(race_line "$OUT")"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the unapproved payload ran via a flipped vfork exec path: $(race_line "$OUT")"
race_need_ok
race_line "$OUT" >/dev/null || fail "no result: $(tail -5 "$OUT")"
exit 0
