#!/bin/sh
# E106: `capwatch -- sh -c 'echo x >&3' 3>f`: a descriptor opened by the
# launcher. E49 checks it is not inherited (blocked); the contract also
# says each closed descriptor is recorded in the report, so a user whose
# build silently lost its fd 3 can see why.
# Capability sought: a write through an inherited descriptor (blocked), and
# an unrecorded change of the command's environment.
# Expected after the fix: fd 3 is closed by default (f stays empty) and the
# report lists the closed descriptor (its number and what it referred to).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
: >"$T/f"
bare sh -c 'echo x >&3' 3>"$T/f"
[ -s "$T/f" ] || esc_control_failed "bare write to the inherited fd 3 did not reach f"
: >"$T/f"
under readonly -- sh -c 'echo x >&3' 3>"$T/f"
[ -s "$T/f" ] && esc_bypass "the command wrote f through an inherited fd 3"
# The record: the descriptor's number and what it referred to (the
# field's name is the fixer's choice; its path must be in the report).
"$CW_PY" "$CWCHECK" report "$R" "'$T/f' in text" >/dev/null 2>&1 ||
	fail "the report does not list the closed inherited descriptor 3 ($T/f)"

exit 0
