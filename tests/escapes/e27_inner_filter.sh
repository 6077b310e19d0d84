#!/bin/sh
# E27: an inner seccomp filter of the sandbox's own (ALLOW, TRACE, LOG, or
# USER_NOTIF without a listener) must not win over capwatch's notification:
# a write outside the workspace stays denied (or ENOSYS).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e27_inner_filter
canary_make "$H/.bashrc"
for mode in allow trace log notif; do
	bare "$ESC_BIN/e27_inner_filter" allow "$H/.bashrc"
	canary_intact "$H/.bashrc" && esc_control_failed "bare write after an inner filter failed: $(cat "$O/bare.out")"
	canary_make "$H/.bashrc"
	under readonly -- "$ESC_BIN/e27_inner_filter" $mode "$H/.bashrc"
	canary_intact "$H/.bashrc" || esc_bypass "inner $mode filter: $H/.bashrc written under --profile readonly"
	if [ $mode = notif ]; then
		grep -q 'Function not implemented' "$OUT" || fail "inner USER_NOTIF: expected ENOSYS: $(cat "$OUT")"
	else
		expect_denied unrestricted "'$H/.bashrc'"
	fi
done
