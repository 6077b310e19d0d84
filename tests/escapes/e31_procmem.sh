#!/bin/sh
# E31: process_vm_writev, /proc/PID/mem writes and pidfd_getfd against a
# process outside the tree (started by this test).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e31_procmem victim
start_victim() {
	rm -f "$T/vinfo" "$T/vhit"
	victim_start "$ESC_BIN/victim" "$T/vinfo" "$T/vhit" 30
	i=0; while [ ! -s "$T/vinfo" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	read -r vpid vaddr <"$T/vinfo"
}
for mode in vm mem getfd; do
	start_victim
	bare "$ESC_BIN/e31_procmem" $mode "$vpid" "$vaddr"
	sleep 0.3
	if [ $mode = getfd ]; then
		[ "$rc" = 0 ] || esc_control_failed "bare pidfd_getfd failed: $(cat "$O/bare.out")"
	else
		[ -e "$T/vhit" ] || esc_control_failed "bare $mode did not change the victim: $(cat "$O/bare.out")"
	fi
	esc_kill "$VICTIM_PID"
	start_victim
	under readonly -- "$ESC_BIN/e31_procmem" $mode "$vpid" "$vaddr"
	sleep 0.3
	[ -e "$T/vhit" ] && esc_bypass "$mode: the victim's memory was changed under --profile readonly"
	[ "$rc" = 0 ] && esc_bypass "$mode succeeded under --profile readonly: $(cat "$OUT")"
	case $mode in
	vm) expect_denied_syscall process_vm_writev ;;
	mem) expect_denied unrestricted "'/proc/$vpid/mem'" ;;
	getfd) report_has 'denials("process_control") or denials("unrestricted", "pidfd_getfd")' ;;
	esac
	esc_kill "$VICTIM_PID"
done
