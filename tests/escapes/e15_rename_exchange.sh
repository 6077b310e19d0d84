#!/bin/sh
# E15: renameat2(RENAME_EXCHANGE) between a workspace file and a file
# outside; and the move-out/edit/move-back sequence.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
printf 'evil\n' >"$W/evil"
cmd="import ctypes,os; libc=ctypes.CDLL(None,use_errno=True); r=libc.renameat2(-100,b'$W/evil',-100,b'$H/.bashrc',2); print(r, ctypes.get_errno())"
bare "$PY" -c "$cmd"
canary_intact "$H/.bashrc" && esc_control_failed "bare RENAME_EXCHANGE did not swap: $(cat "$O/bare.out")"
canary_make "$H/.bashrc"; printf 'evil\n' >"$W/evil"
under verify -- "$PY" -c "$cmd"
canary_intact "$H/.bashrc" || esc_bypass "RENAME_EXCHANGE swapped $H/.bashrc under --profile verify"
expect_denied unrestricted "'$H/.bashrc'"
under verify -- sh -c "mv '$H/.bashrc' '$W/x'; echo pwn >> '$W/x'; mv '$W/x' '$H/.bashrc'"
canary_intact "$H/.bashrc" || esc_bypass "mv out / edit / mv back changed $H/.bashrc under --profile verify"
expect_denied unrestricted "'$H/.bashrc'"
