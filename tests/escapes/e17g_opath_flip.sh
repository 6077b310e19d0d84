#!/bin/sh
# E17g (O_PATH opens raced): capwatch lets O_PATH opens go ahead in the
# kernel (ADDFD cannot pass O_PATH descriptors), so a flipper thread can
# make one land on a secret it was not decided on. That is safe only if
# nothing reaches the secret's bytes from such a descriptor without a
# decision on the object: the program tries /proc/self/fd/N and
# /dev/fd/N reopens and a hard link of it (linkat AT_EMPTY_PATH) in the
# workspace, then reads. Pass = zero reads of the secret in
# $CW_RACE_SECONDS (the O_PATH descriptors that landed on it are counted,
# and expected).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e17e_special_flip
secret=$H/.ssh/id_rsa
: >"$W/ok.txt"
for good in "$W/ok.txt" /proc/self/status; do
	canary_make "$secret" "PRIVATE KEY $esc_name $$"
	for try in 1 2 3; do
		bare "$ESC_BIN/e17e_special_flip" "$(race_bare_secs)" p "$good" "$secret"
		[ "$(race_hits "$O/bare.out")" -gt 0 ] 2>/dev/null && break
	done
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "good $good: bare O_PATH descriptors never led to the secret: $(race_line "$O/bare.out")"
	esc_log "good $good: bare: $(race_line "$O/bare.out")"
	under verify -- "$ESC_BIN/e17e_special_flip" "$RACE" p "$good" "$secret"
	esc_log "good $good: under capwatch: $(grep '^OPATH' "$OUT")"
	race_verdict "$secret" "an O_PATH descriptor flipped from $good to $secret was turned into a read of the secret under --profile verify"
	race_need_ok
done
