#!/bin/sh
# E30: ptrace of a process outside the supervised tree (the user's shell,
# capwatch itself): SEIZE + POKEDATA. The victim is started by this test.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e30_ptrace victim
start_victim() {
	rm -f "$T/vinfo" "$T/vhit"
	victim_start "$ESC_BIN/victim" "$T/vinfo" "$T/vhit" 30
	i=0; while [ ! -s "$T/vinfo" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	read -r vpid vaddr <"$T/vinfo"
}
start_victim
bare "$ESC_BIN/e30_ptrace" "$vpid" "$vaddr"
sleep 0.3
[ -e "$T/vhit" ] || esc_control_failed "bare ptrace did not change the victim: $(cat "$O/bare.out")"
esc_kill "$VICTIM_PID"
start_victim
under readonly -- "$ESC_BIN/e30_ptrace" "$vpid" "$vaddr"
sleep 0.3
[ -e "$T/vhit" ] && esc_bypass "ptrace POKEDATA into a process outside the tree under --profile readonly"
expect_denied_syscall ptrace
esc_kill "$VICTIM_PID"
# Attaching capwatch itself (the command's parent).
