#!/bin/sh
# Valgrind and AddressSanitizer builds under capwatch behave as bare (issue
# 17 item 1). The preload used to hand writev the program's string up to
# the end of its page: valgrind reported "writev points to unaddressable
# bytes" on every supervised open, ASan a heap-buffer-overflow. And ASan
# refuses to start when a library comes before its runtime in LD_PRELOAD:
# capwatch puts verify_asan_link_order=0 in front of the command's
# ASAN_OPTIONS. LeakSanitizer cannot run under ptrace at all (as under
# strace or gdb): an ASan run under capwatch needs detect_leaks=0.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler"
cat >"$T/vg.c" <<'EOF2'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	/* The path ends where its heap block ends. */
	char *p = malloc(12);
	strcpy(p, "/etc/hostnm");
	int fd = open(p, O_RDONLY);
	if (fd >= 0)
		close(fd);
	if (argc > 1)
		p[12] = 'x'; /* a real overflow: ASan must still see it */
	free(p);
	puts("done");
	return 0;
}
EOF2
ran=0
if command -v valgrind >/dev/null 2>&1; then
	"$CC" -g -O0 -o "$T/vg" "$T/vg.c" || fail "cc"
	valgrind -q --error-exitcode=9 "$T/vg" >"$O/vg.bare" 2>&1 || { cat "$O/vg.bare" >&2; fail "bare valgrind run failed"; }
	cw --report "$O/vg.json" -- valgrind -q --error-exitcode=9 "$T/vg" >"$O/vg.out" 2>&1
	[ "$rc" = 0 ] || { cat "$O/vg.out" >&2; fail "valgrind under capwatch: exit $rc"; }
	grep -q "unaddressable\|Invalid read" "$O/vg.out" && { cat "$O/vg.out" >&2; fail "valgrind reported errors under capwatch"; }
	grep -q "^done$" "$O/vg.out" || fail "the valgrind run did not finish"
	ran=1
fi
if "$CC" -fsanitize=address -g -o "$T/vga" "$T/vg.c" 2>/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 cw --env-pass ASAN_OPTIONS --report "$O/asan.json" -- "$T/vga" >"$O/asan.out" 2>&1
	[ "$rc" = 0 ] || { cat "$O/asan.out" >&2; fail "an ASan program under capwatch: exit $rc"; }
	grep -q "^done$" "$O/asan.out" || fail "the ASan run did not finish"
	grep -q "ERROR: AddressSanitizer" "$O/asan.out" && { cat "$O/asan.out" >&2; fail "ASan reported an error under capwatch"; }
	# ASan still works under capwatch: a real overflow is caught.
	ASAN_OPTIONS=detect_leaks=0 cw --env-pass ASAN_OPTIONS -- "$T/vga" overflow >"$O/asan2.out" 2>&1
	grep -q "heap-buffer-overflow" "$O/asan2.out" || { cat "$O/asan2.out" >&2; fail "ASan under capwatch missed a real overflow"; }
	ran=1
fi
[ $ran = 1 ] || skip "neither valgrind nor -fsanitize=address here"
exit 0
