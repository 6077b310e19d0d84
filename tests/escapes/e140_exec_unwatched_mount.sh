#!/bin/sh
# Kernel back end red team: an exec from a mount fanotify does not watch.
#
# fanotify marks the mounts of the tree's own mount namespace
# (mark_mounts). /proc/PID/root of a process outside the tree leads to
# the host's mounts, which are other struct mounts: an exec through it
# produces no FAN_OPEN_EXEC_PERM event, so it is decided at its
# notification only, on the path string in the target's memory, and
# then continued. A second thread flips that string between an allowed
# program (/bin/true) and /proc/V/root$W/evil (a denied payload): the
# notification decides /bin/true, the kernel execs the payload, and no
# exec stop (the portable back end's /proc/PID/exe check) follows.
# V: a root process without capabilities started by the test (the tree
# has no CAP_SYS_PTRACE; its capabilities must cover V's). Landlock's
# domain refuses /proc/V/root (ptrace-class), so the attack needs
# --no-landlock (or a kernel without Landlock, or a run without a domain).
# make check races it with --no-landlock only, where the attack can work;
# make check-long (CW_LONG=1) with Landlock's domain too (issue 16 item 7).
# e173 (2026-12-07): the same exec made by a thread other than the
# process's leader. The kernel ends the leader before the new image
# starts (de_thread), and the connector reports that exit first: the
# back end took the process for gone, ignored its exec event, and
# check_image never looked at the image. The process is now taken for
# gone at its leader's exit only when no other thread of it has an exec
# under way (kernel.c on_exit_event). Red team 13 (e174) then got the
# same exec through with the leader gone first (pthread_exit) or two
# threads execing: a process now lives until its last task's exit, and
# an exec event of a member whose entry is dead is checked all the same.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e140_exec_flip payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
command -v setpriv >/dev/null || skip "no setpriv"
cp "$ESC_BIN/payload" "$W/evil"
victim_start setpriv --inh-caps=-all --bounding-set=-all sleep 300
V=$VICTIM_PID
# until setpriv has exec'd the sleep (its capabilities dropped)
_i=0
until [ "$(cat "/proc/$V/comm" 2>/dev/null)" = sleep ]; do
	_i=$((_i + 1))
	[ $_i -gt 250 ] && fail "the victim did not start"
	sleep 0.02
done
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$ld"'", "'"$ESC_BIN"'/e140_exec_flip", "'"$ESC_BIN"'/.libs/*"]}}' verify)
for how in leader thread pexit two; do
	bare "$ESC_BIN/e140_exec_flip" /bin/true "/proc/$V/root$W/evil" "$W/M" "$(race_bare_secs)" $how
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare ($how): $(race_line "$O/bare.out")"
	rm -f "$W/M"
	canary_make "$W/M" ""
	for opt in ${CW_LONG:+""} --no-landlock; do
		under "$prof" --backend kernel $opt -- "$ESC_BIN/e140_exec_flip" /bin/true "/proc/$V/root$W/evil" "$W/M" "$RACE" $how
		esc_log "${opt:-landlock}, exec by the $how: $(race_line "$OUT")"
		race_verdict "$W/M" "${opt:-with landlock}: the denied $W/evil ran through /proc/$V/root (an unwatched mount) with the exec path flipped (exec by the $how)"
		race_need_ok
	done
done
