#!/bin/sh
# E69: calls that act on another process by pid, process group, user or
# pidfd (issue 14 item 3): prlimit64, setpriority, ioprio_set, the
# sched_set* family, migrate_pages, move_pages, get_robust_list, kcmp,
# process_madvise, process_mrelease, pidfd_open. Aimed at a process outside
# the tree (a sleep this test starts, in a process group of its own) or at
# capwatch itself: EPERM and a process_control denial under readonly, the
# victim unchanged; aimed at the command itself or a child it forks: the
# call works. The bare run is the positive control.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e69_pid_calls
P=$ESC_BIN/e69_pid_calls
# A uid nobody runs as: PRIO_USER and IOPRIO_WHO_USER are never run bare
# (they would reach every process of a user).
NOUSER=2147480000

# The victim: setsid without a fork (a background job is no group leader),
# so its pid is its process group and PRIO_PGRP reaches it alone.
start_victim() {
	victim_start setsid sleep 60
	_i=0
	while [ "$(cat "/proc/$VICTIM_PID/comm" 2>/dev/null)" != sleep ] && [ $_i -lt 100 ]; do
		sleep 0.02; _i=$((_i + 1))
	done
	_pg=$(sed 's/.*) //' "/proc/$VICTIM_PID/stat" | cut -d' ' -f3)
	[ "$_pg" = "$VICTIM_PID" ] || fail "the victim $VICTIM_PID is not its own process group ($_pg)"
}
# What the calls change, in the victim's /proc (nice, policy, open-files
# limit, CPUs).
victim_state() {
	_s=$(sed 's/.*) //' "/proc/$VICTIM_PID/stat")
	echo "nice=$(echo "$_s" | cut -d' ' -f17) policy=$(echo "$_s" | cut -d' ' -f39)" \
		"$(grep '^Max open files' "/proc/$VICTIM_PID/limits" | tr -s ' ')" \
		"$(grep '^Cpus_allowed_list' "/proc/$VICTIM_PID/status")"
}
syscall_of() {
	case $1 in
	prlimit_*) echo prlimit64 ;;
	setpriority*) echo setpriority ;;
	ioprio*) echo ioprio_set ;;
	*) echo "$1" ;;
	esac
}
# denied SYSCALL SCOPE: EPERM (exit 3) and a process_control denial of it.
denied() {
	[ "$rc" = 3 ] || { cat "$OUT" >&2; esc_bypass "$1 aimed at $2 was not refused with EPERM (exit $rc)"; }
	report_has 'denied_run()' \
		"[e for e in d['denials'] if e.get('syscall') == '$1' and (e.get('capability') or {}).get('kind') == 'process_control' and (e.get('capability') or {}).get('scope') == '$2']"
}
# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): a process
# outside the tree, capwatch included, has no number there. esrch SYSCALL
# PID: the call failed ESRCH (exit 4) and no allow names PID.
# (pidfd_open is decided on the number: EPERM, recorded, holds too.)
esrch() {
	if [ "$1" = pidfd_open ] && [ "$rc" = 3 ]; then
		denied "$1" "$2"
		return 0
	fi
	[ "$rc" = 4 ] && grep -q 'err=ESRCH' "$OUT" || { cat "$OUT" >&2; esc_bypass "$1 aimed at $2 outside the tree was not ESRCH in its PID namespace (exit $rc)"; }
	esc_none_allowed "$2"
}
# at_capwatch MODE: MODE aimed at capwatch under the namespace, where
# getppid() is 0: its host pid handed in, and its state (limits, nice,
# policy, CPUs, I/O priority) read from outside before and after.
at_capwatch() {
	esc_cw_untouched readonly -- "$P" "$1" @CWPID@
	esrch "$(syscall_of "$1")" "$ESC_CW_PID"
}
# allowed: the call worked (or the kernel lacks it, as the bare run showed)
# and nothing was refused as process_control.
allowed() {
	case $rc in
	0) ;;
	4) [ -n "$nosys" ] && grep -q 'err=ENOSYS' "$OUT" || { cat "$OUT" >&2; fail "$1 on $2 failed under capwatch"; } ;;
	*) cat "$OUT" >&2; fail "$1 on $2 failed under capwatch (exit $rc)" ;;
	esac
	report_has "not [e for e in d['denials'] if (e.get('capability') or {}).get('kind') == 'process_control']"
}

for mode in prlimit_set setpriority setpriority_pgrp ioprio ioprio_pgrp sched_setscheduler \
	sched_setparam sched_setaffinity sched_setattr migrate_pages move_pages get_robust_list kcmp; do
	sc=$(syscall_of $mode)
	nosys=
	start_victim
	bare "$P" $mode "$VICTIM_PID"
	if [ "$rc" != 0 ]; then
		grep -q 'err=ENOSYS' "$O/bare.out" || esc_control_failed "$mode: $(cat "$O/bare.out")"
		nosys=1
		esc_log "$mode: not in this kernel (ENOSYS bare); still decided under capwatch"
	fi
	esc_kill "$VICTIM_PID"

	start_victim
	before=$(victim_state)
	under readonly -- "$P" $mode "$VICTIM_PID"
	scope=$VICTIM_PID
	case $mode in *_pgrp) scope=-$VICTIM_PID ;; esac
	if esc_pidns; then esrch "$sc" "$VICTIM_PID"; else denied "$sc" "$scope"; fi
	[ "$(victim_state)" = "$before" ] || esc_bypass "$mode changed the victim: $before -> $(victim_state)"
	esc_kill "$VICTIM_PID"

	# capwatch itself (its process group is the test's: not aimed at).
	case $mode in
	*_pgrp) ;;
	*)
		if esc_pidns; then
			at_capwatch $mode
		else
			m=$mode
			[ $mode = prlimit_set ] && m=prlimit_get
			under readonly -- "$P" $m CAPWATCH
			grep -q 'no capwatch ancestor' "$OUT" && fail "the program found no capwatch ancestor"
			cpid=$(sed -n "s/^$m \([0-9]*\) .*/\1/p" "$OUT")
			denied "$sc" "$cpid"
		fi
		;;
	esac

	# The command itself and a child it forks, in one run: each call's
	# exit status is printed after it ("rc TARGET N").
	under readonly -- sh -c 'for t in SELF CHILD; do "$0" "$1" $t; echo "rc $t $?"; done' "$P" $mode
	for t in SELF CHILD; do
		rc=$(sed -n "s/^rc $t //p" "$OUT")
		allowed $mode $t
	done
done

# PRIO_USER / IOPRIO_WHO_USER: every process of a user (capwatch's too):
# process_control whoever the user is, recorded with target -1.
for mode in setpriority_user ioprio_user; do
	under readonly -- "$P" $mode $NOUSER
	denied "$(syscall_of $mode)" -1
done

# pidfd_open of capwatch (E31): outside the tree.
if esc_pidns; then
	at_capwatch pidfd_open
else
	under readonly -- "$P" pidfd_open CAPWATCH
	cpid=$(sed -n 's/^pidfd_open \([0-9]*\) .*/\1/p' "$OUT")
	denied pidfd_open "$cpid"
fi

# The pidfd calls. The tree has no way to a pidfd of an outside process
# (pidfd_open is decided), so the test hands one in as stdin.
under_pidfd_stdin() {
	N=$((N + 1))
	R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	timeout -k 5 60 "$PY" -c 'import os, sys
os.dup2(os.pidfd_open(int(sys.argv[1])), 0)
os.execv(sys.argv[2], sys.argv[2:])' "$VICTIM_PID" "$CAPWATCH" --profile readonly --report "$R" \
		--trace "$TR" -- "$@" >"$OUT" 2>&1
	rc=$?
	[ -s "$R" ] || { cat "$OUT" >&2; fail "capwatch wrote no report (exit $rc)"; }
}
for mode in process_madvise process_mrelease; do
	start_victim
	timeout -k 5 60 "$PY" -c 'import os, sys
os.dup2(os.pidfd_open(int(sys.argv[1])), 0)
os.execv(sys.argv[2], sys.argv[2:])' "$VICTIM_PID" "$P" $mode STDIN >"$O/bare.out" 2>&1
	rc=$?
	# process_mrelease of a live process: EINVAL, after the kernel found it.
	case $mode:$rc in
	process_madvise:0) ;;
	process_mrelease:4) grep -q 'err=EINVAL' "$O/bare.out" || esc_control_failed "$mode: $(cat "$O/bare.out")" ;;
	*) esc_control_failed "$mode: $(cat "$O/bare.out")" ;;
	esac
	under_pidfd_stdin "$P" $mode STDIN
	denied $mode "$VICTIM_PID"
	esc_kill "$VICTIM_PID"
	for t in SELF CHILD; do
		under readonly -- "$P" $mode $t
		if [ $mode = process_mrelease ]; then
			[ "$rc" = 4 ] && grep -q 'err=EINVAL' "$OUT" || { cat "$OUT" >&2; fail "$mode on $t: not EINVAL"; }
			report_has "not [e for e in d['denials'] if (e.get('capability') or {}).get('kind') == 'process_control']"
		elif [ $mode = process_madvise ] && [ $t = CHILD ] && [ "$rc" != 0 ] && grep -q 'err=EPERM' "$OUT"; then
			# The kernel wants CAP_SYS_NICE for advice to another
			# process, and a root command keeps Docker's set (no
			# SYS_NICE): refused by the kernel, not by capwatch.
			report_has "'capabilities:docker-default' in outcome['enforcement']['layers']"
			report_has "not [e for e in d['denials'] if (e.get('capability') or {}).get('kind') == 'process_control']"
		else
			allowed $mode $t
		fi
	done
done
exit 0
