#!/bin/sh
# E17e (reads of /proc and /sys raced): a second thread flips the path
# buffer of open(O_RDONLY) between a /proc or /sys file (allowed by every
# profile that reads) and a secret (~/.ssh/id_rsa, denied by every
# built-in profile but observe). Before fs_special.c these opens were
# decided on the string and then continued: the kernel read the buffer
# again and opened the secret. Pass = zero reads of the secret in
# $CW_RACE_SECONDS, and the allowed side still opens.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e17e_special_flip
secret=$H/.ssh/id_rsa
sysfile=/sys/devices/system/cpu/online
[ -r "$sysfile" ] || sysfile=/sys/kernel/uevent_seqnum
[ -r "$sysfile" ] || skip "no readable /sys file ($sysfile)"
for good in /proc/self/status /proc/thread-self/stat "$sysfile"; do
	canary_make "$secret" "PRIVATE KEY $esc_name $$"
	# Two CPUs shared with other work: the bare control gets three tries.
	for try in 1 2 3; do
		bare "$ESC_BIN/e17e_special_flip" "$(race_bare_secs)" r "$good" "$secret"
		[ "$(race_hits "$O/bare.out")" -gt 0 ] && break
	done
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "good $good: bare flipper never read the secret: $(race_line "$O/bare.out")"
	esc_log "good $good: bare: $(race_line "$O/bare.out")"
	under readonly -- "$ESC_BIN/e17e_special_flip" "$RACE" r "$good" "$secret"
	race_verdict "$secret" "open(O_RDONLY) of a path buffer flipped between $good and $secret read the secret under --profile readonly"
	race_need_ok
	# The flipped-in opens were seen and denied as secret reads.
	expect_denied filesystem_read "'$secret'"
done
