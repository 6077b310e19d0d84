#!/bin/sh
# E61: removing or defeating LD_PRELOAD: env -u LD_PRELOAD, an empty
# environment via execve, and a program that never loads it (static, raw
# syscalls). The preload is advisory: enforcement must not change.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e03_static e04_rawsyscall
canary_make "$H/.bashrc"
for variant in envu emptyenv static; do
	case $variant in
	envu) set -- env -u LD_PRELOAD "$ESC_BIN/e04_rawsyscall" "$H/.bashrc" ;;
	emptyenv) set -- "$PY" -c "import os; os.execve('$ESC_BIN/e04_rawsyscall', ['x', '$H/.bashrc'], {})" ;;
	static) set -- "$ESC_BIN/e03_static" "$H/.bashrc" ;;
	esac
	bare "$@"
	canary_intact "$H/.bashrc" && esc_control_failed "$variant: bare write failed: $(cat "$O/bare.out")"
	canary_make "$H/.bashrc"
	under readonly -- "$@"
	canary_intact "$H/.bashrc" || esc_bypass "$variant: $H/.bashrc written under --profile readonly without the preload"
	expect_denied unrestricted "'$H/.bashrc'"
done
