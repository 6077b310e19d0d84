#!/bin/sh
# E17 (flags race): open_how.flags flipped between O_RDONLY and
# O_WRONLY|O_APPEND while openat2() of a file outside the workspace waits
# for the supervisor (reads are allowed by verify, writes there are not).
# The plain 24-byte struct without resolve flags (emulated by capwatch);
# the other forms are e17d.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e17c_openat2_flags_race
canary_make "$H/.bashrc"
for v in "24 0"; do
	set -- $v
	canary_make "$H/.bashrc"
	bare "$ESC_BIN/e17c_openat2_flags_race" "$(race_bare_secs)" "$H/.bashrc" "$1" "$2"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "size $1 resolve $2: bare flipper never got a writable fd: $(race_line "$O/bare.out")"
	esc_log "size $1 resolve $2: bare: $(race_line "$O/bare.out")"
	canary_make "$H/.bashrc"
	under verify -- "$ESC_BIN/e17c_openat2_flags_race" "$RACE" "$H/.bashrc" "$1" "$2"
	race_verdict "$H/.bashrc" "openat2 (size $1, resolve $2) with open_how.flags flipped to O_WRONLY after the check wrote $H/.bashrc under --profile verify"
	race_need_ok
done
