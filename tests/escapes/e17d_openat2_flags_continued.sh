#!/bin/sh
# E17 (flags race, forms capwatch does not emulate): as e17c, with a
# 32-byte open_how whose tail is zero (valid for the kernel: a "future"
# struct) and with resolve = RESOLVE_NO_XDEV. The supervisor lets the
# kernel perform these opens (CONTINUE), so the flags it checked can be
# flipped to O_WRONLY before the kernel copies them.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e17c_openat2_flags_race
canary_make "$H/.bashrc"
for v in "32 0" "24 1"; do
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
