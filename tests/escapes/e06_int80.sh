#!/bin/sh
# E06: the i386 ABI from a 64-bit process (int $0x80, open = 5). The
# filter must kill on arch != x86_64. Where the guest itself faults on
# int 0x80 the bare attack cannot work: the kill is checked, then skip.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e06_int80
[ -e /proc/sys/abi/vsyscall32 ] || :
canary_make "$H/.bashrc"
bare "$ESC_BIN/e06_int80" "$H/.bashrc"
bare_rc=$rc
canary_intact "$H/.bashrc"; bare_hit=$?
canary_make "$H/.bashrc"
under readonly -- "$ESC_BIN/e06_int80" "$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "int 0x80 open wrote $H/.bashrc under --profile readonly"
if [ $bare_hit = 0 ]; then
	# The bare attack did nothing: the guest has no usable int 0x80.
	case $rc in 159|139) ;; *) fail "under capwatch: exit $rc, expected SIGSYS or SIGSEGV: $(cat "$OUT")";; esac
	skip "int 0x80 does not work on this kernel (bare exit $bare_rc); under capwatch exit $rc"
fi
[ "$rc" = 159 ] || fail "expected SIGSYS (exit 159) from the arch check, got $rc: $(cat "$OUT")"
report_has 'outcome["exit"]["signal"] == "SIGSYS"'
