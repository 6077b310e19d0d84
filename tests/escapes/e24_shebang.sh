#!/bin/sh
# E24: a script whose #! names an unapproved interpreter: the kernel
# exec's the interpreter. The profile allows the script path, not the
# interpreter; the exec stop sees /proc/PID/exe = the interpreter (portable
# back end: killed there, enforcement_denied), or fanotify sees the
# interpreter opened for exec (kernel back end: the exec fails, the command
# never started: policy_denied).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
cp "$ESC_BIN/payload" "$W/evil"
printf '#!%s %s\n' "$W/evil" "$W/PAYLOAD_RAN" >"$W/s"
chmod +x "$W/s" "$W/evil"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/s"]}}' verify)
bare sh -c "cd '$W' && ./s"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare script did not run its interpreter: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
under "$prof" -- "$W/s"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the unapproved #! interpreter $W/evil ran under a profile that allows only the script"
report_has 'outcome["kind"] in ("enforcement_denied", "policy_denied")' 'outcome["state"] == "denied"' \
	"denials('process_spawn', '$W/evil')"
