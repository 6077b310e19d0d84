#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1), after e152: an exec
# from the covered /dev/shm mount. With the workspace in /dev/shm the
# command's cwd is on the copy that reads_view covers with its tmpfs over
# /dev, which gets no fanotify mark for reads (e152). The exec of a denied
# payload by a relative name is then guarded only if the exec event still
# comes: a thread flips the exec path between /bin/true (allowed: the
# notification decides it) and ./evil (a payload in the workspace, denied
# by a spawn-limited profile), e140-style, for CW_RACE_SECONDS.
# Held today: no FAN_OPEN_EXEC_PERM event comes from the covered mount
# either, but check_image (supervisor/kernel.c, at the connector's exec
# event, before the image's first notified call) finds an image fanotify
# never allowed and kills it (builtin:exec-unidentified, the e140 fix):
# the payload never writes its marker.
# Capability sought: process_spawn of an unapproved program.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
S=$(mktemp -d /dev/shm/cwtest.XXXXXX) || skip "mktemp in /dev/shm"
trap 'cd / && rm -rf "$S"; esc_cleanup' EXIT
cp "$ESC_BIN/payload" "$S/evil" || fail "cp payload"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)
cd "$S" || fail "cd $S"
bare "$ESC_BIN/e140_exec_flip" /bin/true ./evil "$S/M" "$(race_bare_secs)"
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare: $(race_line "$O/bare.out")"
rm -f "$S/M"
canary_make "$S/M" ""
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
under "$prof" -- "$ESC_BIN/e140_exec_flip" /bin/true ./evil "$S/M" "$RACE"
esc_log "backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'): $(race_line "$OUT")"
race_verdict "$S/M" "the denied ./evil ran from a cwd on the covered /dev/shm with the exec path flipped"
race_need_ok
expect_denied process_spawn
cd /
exit 0
