#!/bin/sh
# E21: name_to_handle_at() on a secret path: a stable handle (and mount id)
# of ~/.ssh/id_rsa, the preparation for E20, without any open. The
# catalogue's defence: deny it, or record it as a (secret) metadata read.
# Profile readonly denies secret reads: the call must be denied or at
# least appear in the trace.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e20_handle
printf 'PRIVATE KEY\n' >"$H/.ssh/id_rsa"
bare "$ESC_BIN/e20_handle" name "$H/.ssh/id_rsa"
[ "$rc" = 3 ] && skip "name_to_handle_at unsupported here: $(cat "$O/bare.out")"
[ "$rc" = 0 ] || esc_control_failed "bare name_to_handle_at failed: $(cat "$O/bare.out")"
under readonly -- "$ESC_BIN/e20_handle" name "$H/.ssh/id_rsa"
if [ "$rc" = 0 ] && ! grep -q name_to_handle_at "$TR"; then
	esc_bypass "name_to_handle_at($H/.ssh/id_rsa) succeeded under --profile readonly and is not in the trace (not in the filter)"
fi
[ "$rc" = 0 ] || expect_denied unrestricted
