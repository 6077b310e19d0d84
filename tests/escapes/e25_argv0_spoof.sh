#!/bin/sh
# E25: a spoofed argv[0] ("ls") for an unapproved program, plus
# PR_SET_NAME: the decision and the report must name /proc/PID/exe.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
cp "$ESC_BIN/payload" "$W/tool"
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "**/ls"]}}' verify)
cmd="import os; os.execv('$W/tool', ['ls', '$W/PAYLOAD_RAN'])"
bare "$PY" -c "$cmd"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "bare exec with argv[0]=ls did not run: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN"
under "$prof" -- "$PY" -c "$cmd"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "exec of $W/tool with argv[0]=ls ran under a profile that allows only **/ls"
expect_denied process_spawn "'$W/tool'"
report_has 'not any(p.get("exe") == "/usr/bin/ls" for p in procs())'
