#!/bin/sh
# E17f (writes to devices raced): a second thread flips the path buffer
# of open(O_WRONLY) between a device whose writes need no capability
# (/dev/tty, /dev/ptmx) and a file outside the workspace. Before
# fs_special.c these opens were decided on the string and then continued:
# the kernel read the buffer again and opened the outside file for
# writing. The command runs on a fresh pty (its controlling terminal, so
# that /dev/tty opens). Pass = zero writes to the canary in
# $CW_RACE_SECONDS, and the allowed side still opens. Landlock (the
# kernel backstop) also stops these writes, so each case runs a second
# time with --no-landlock: the supervisor alone must hold. make check runs
# the --no-landlock cases only, make check-long (CW_LONG=1) all four: the
# bug was the supervisor's (decided on the string, then continued), which
# the runs without Landlock race alone, and Landlock only refuses more
# (issue 16 item 7: half of a 9-10 s test).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e17e_special_flip
for v in ${CW_LONG:+"/dev/tty" "/dev/ptmx"} "/dev/tty --no-landlock" "/dev/ptmx --no-landlock"; do
	set -- $v
	good=$1 ll=${2:-}
	canary_make "$H/.bashrc"
	for try in 1 2 3; do
		bare "$PY" "$ESC_SRC/ptyrun.py" 60 "$ESC_BIN/e17e_special_flip" "$(race_bare_secs)" w "$good" "$H/.bashrc"
		[ "$(race_hits "$O/bare.out")" -gt 0 ] 2>/dev/null && break
	done
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "good $good: bare flipper never opened the canary: $(race_line "$O/bare.out") $(tail -3 "$O/bare.out")"
	esc_log "good $good: bare: $(race_line "$O/bare.out")"
	canary_make "$H/.bashrc"
	N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
	timeout -k 5 $((RACE + 60)) "$PY" "$ESC_SRC/ptyrun.py" $((RACE + 30)) "$CAPWATCH" --profile verify $ll \
		--report "$R" --trace "$TR" -- "$ESC_BIN/e17e_special_flip" "$RACE" w "$good" "$H/.bashrc" >"$OUT" 2>&1
	[ -s "$R" ] || { cat "$OUT" >&2; fail "capwatch wrote no report"; }
	race_verdict "$H/.bashrc" "open(O_WRONLY) of a path buffer flipped between $good and $H/.bashrc wrote the canary under --profile verify $ll"
	race_need_ok
	expect_denied unrestricted "'$H/.bashrc'"
done
