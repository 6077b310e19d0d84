#!/bin/sh
# E70: ioctls decided by what they do (issue 14 item 4).
#  - FIOSETOWN / SIOCSPGRP: the SIGIO owner of a descriptor, a kill without
#    kill() (like fcntl(F_SETOWN), E32b): process_control when it names a
#    process or group outside the tree or capwatch; allowed (and set by
#    capwatch, as F_GETOWN shows) for the command itself or its child;
#    fcntl(F_SETOWN_EX), whose owner is also in memory, raced (E09-style).
#  - FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR on a descriptor opened O_RDONLY: a
#    metadata write decided like fchmod(fd): refused under readonly
#    (workspace_write), done under verify in the workspace, refused outside
#    every root (unrestricted) and on protected metadata; and the E11 race
#    (the descriptor swapped to an outside file meanwhile) never reaches
#    the outside file. The flag used is no-dump (no capability needed).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e70_ioctl_calls
P=$ESC_BIN/e70_ioctl_calls

start_victim() {
	victim_start setsid sleep 60
	_i=0
	while [ "$(cat "/proc/$VICTIM_PID/comm" 2>/dev/null)" != sleep ] && [ $_i -lt 100 ]; do
		sleep 0.02; _i=$((_i + 1))
	done
}
# denied CAP SCOPE: refused (EPERM for process_control; EACCES, the
# errno of every refused file operation, for the metadata writes) and
# recorded as CAP on SCOPE.
denied() {
	case $1:$rc in
	process_control:3) ;;
	process_control:*) cat "$OUT" >&2; esc_bypass "ioctl not refused with EPERM (exit $rc), expected $1 $2" ;;
	*:4) grep -q 'err=EACCES' "$OUT" || { cat "$OUT" >&2; esc_bypass "ioctl not refused with EACCES, expected $1 $2"; } ;;
	*) cat "$OUT" >&2; esc_bypass "ioctl not refused (exit $rc), expected $1 $2" ;;
	esac
	report_has 'denied_run()' \
		"[e for e in d['denials'] if e.get('syscall') == 'ioctl' and (e.get('capability') or {}).get('kind') == '$1' and (e.get('capability') or {}).get('scope') == '$2']"
}
# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): a process
# outside the tree, capwatch included, has no number there. esrch PID:
# the owner it names is refused ESRCH (exit 4) and no allow names it.
esrch() {
	[ "$rc" = 4 ] && grep -q 'err=ESRCH' "$OUT" || { cat "$OUT" >&2; esc_bypass "ioctl naming $1 outside the tree was not ESRCH in its PID namespace (exit $rc)"; }
	esc_none_allowed "${1#-}"
}
no_denial() {
	[ "$rc" = 0 ] || { cat "$OUT" >&2; fail "the ioctl failed under capwatch (exit $rc)"; }
	report_has "not d['denials']"
}

# ---- the SIGIO owner ----
for mode in setown setown_pgrp siocspgrp; do
	start_victim
	v=$VICTIM_PID
	[ $mode = setown_pgrp ] && v=-$VICTIM_PID
	bare "$P" $mode "$VICTIM_PID"
	[ "$rc" = 0 ] && grep -q "owner=$v ok" "$O/bare.out" || esc_control_failed "$mode: $(cat "$O/bare.out")"
	under readonly -- "$P" $mode "$VICTIM_PID"
	# (A group, -PGRP, is decided as it is elsewhere, its leader may be
	# gone: EPERM and the denial, under the namespace too.)
	if esc_pidns && [ $mode != setown_pgrp ]; then esrch "$v"; else denied process_control "$v"; fi
	grep -q "owner=0 " "$OUT" || esc_bypass "$mode: the owner was set: $(cat "$OUT")"
	esc_kill "$VICTIM_PID"
	if [ $mode != setown_pgrp ] && esc_pidns; then
		# getppid() is 0 in the namespace: capwatch's host pid, handed in.
		under_cwpid readonly -- "$P" $mode @CWPID@
		esrch "$ESC_CW_PID"
		grep -q "owner=0 " "$OUT" || esc_bypass "$mode: capwatch ($ESC_CW_PID) became the owner: $(cat "$OUT")"
	elif [ $mode != setown_pgrp ]; then
		under readonly -- "$P" $mode CAPWATCH
		cpid=$(sed -n "s/^$mode \([0-9]*\) .*/\1/p" "$OUT")
		[ -n "$cpid" ] || { cat "$OUT" >&2; fail "no capwatch pid"; }
		denied process_control "$cpid"
	fi
	for t in SELF CHILD; do
		under readonly -- "$P" $mode $t
		no_denial
		# capwatch performed it: the owner read back is the one asked for.
		grep -Eq "^$mode (-?[0-9]+) owner=\\1 ok" "$OUT" || { cat "$OUT" >&2; fail "$mode $t: owner not set"; }
	done
done

# The owner through fcntl(F_SETOWN_EX) is memory too: its pid flipped by a
# thread between the command's own and the victim's must never make the
# victim the owner (capwatch sets the owner from the copy it decided on).
start_victim
bare "$P" setown_ex_race "$VICTIM_PID" "$(race_bare_secs)"
[ "$(race_hits "$O/bare.out")" -gt 0 ] 2>/dev/null || esc_control_failed "the bare F_SETOWN_EX race never hit: $(cat "$O/bare.out")"
under readonly -- "$P" setown_ex_race "$VICTIM_PID" "$RACE"
esc_log "F_SETOWN_EX under capwatch, ${RACE}s: $(race_line "$OUT")"
h=$(race_hits "$OUT")
[ "$h" = 0 ] || { cat "$OUT" >&2; esc_bypass "F_SETOWN_EX made a process outside the tree the owner through a flipped pid ($(race_line "$OUT"))"; }
race_need_ok
esc_kill "$VICTIM_PID"

# ---- metadata through a read-only descriptor ----
has_nodump() { lsattr -d "$1" 2>/dev/null | cut -d' ' -f1 | grep -q d; }
f=$W/flagged.txt
echo data >"$f"
chattr -d "$f" 2>/dev/null || skip "chattr does not work on $W"
mkdir -p "$W/.git"
echo '[core]' >"$W/.git/config"
echo outside >"$H/out.txt"
FILES="$f $W/.git/config $H/out.txt $W/race.txt"
clear_flags() { for _f in $FILES; do [ -e "$_f" ] && chattr -d "$_f" 2>/dev/null; done; return 0; }
trap 'clear_flags; esc_cleanup' EXIT

for mode in setflags fssetxattr; do
	bare "$P" $mode "$f"
	[ "$rc" = 0 ] && has_nodump "$f" || esc_control_failed "$mode: $(cat "$O/bare.out")"
	clear_flags
	under readonly -- "$P" $mode "$f"
	denied workspace_write "$f"
	has_nodump "$f" && esc_bypass "$mode set the flag under readonly"
	under verify -- "$P" $mode "$f"
	no_denial
	has_nodump "$f" || { cat "$OUT" >&2; fail "$mode under verify did not set the flag"; }
	trace_has "any(e.get('verified') is True for e in ops(syscall='ioctl', decision='allow'))"
	clear_flags
	under verify -- "$P" $mode "$H/out.txt"
	denied unrestricted "$H/out.txt"
	has_nodump "$H/out.txt" && esc_bypass "$mode set the flag outside every workspace"
	under verify -- "$P" $mode "$W/.git/config"
	denied protected_metadata "$W/.git/config"
	has_nodump "$W/.git/config" && esc_bypass "$mode set the flag on .git/config"
	clear_flags
done

# E11: descriptor 50 swapped between a workspace file and an outside one.
echo race >"$W/race.txt"
bare "$P" setflags_race "$W/race.txt" "$H/out.txt" "$(race_bare_secs)"
[ "$(race_hits "$O/bare.out")" -gt 0 ] 2>/dev/null || esc_control_failed "the bare race never hit: $(cat "$O/bare.out")"
clear_flags
under verify -- "$P" setflags_race "$W/race.txt" "$H/out.txt" "$RACE"
h=$(race_hits "$OUT")
esc_log "under capwatch, ${RACE}s: $(race_line "$OUT")"
[ -n "$h" ] || { cat "$OUT" >&2; fail "the race program printed no result"; }
[ "$h" = 0 ] && ! has_nodump "$H/out.txt" || esc_bypass "FS_IOC_SETFLAGS reached the outside file through a swapped descriptor"
race_need_ok
clear_flags
exit 0
