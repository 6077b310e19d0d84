#!/bin/sh
# A real multi-file C build (tests/integration/cproject) under
# `capwatch --profile verify` behaves exactly as the bare build: same make
# output, a binary printing the same thing; the report shows success, the
# compiler pipeline it spawned and the object files it created. Writing a
# git hook under verify is denied as protected_metadata.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
command -v gcc >/dev/null && command -v make >/dev/null || skip "gcc and make are needed"
cw_workdir
# Under `make check` the parent make's variables would reach the bare make
# (jobserver, "Entering directory" lines) but not the sanitized one.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

SRC=$top_srcdir/tests/integration/cproject
mkdir "$T/bare"
cp "$SRC"/*.c "$SRC"/*.h "$SRC"/Makefile "$T/bare"/ || fail "copy cproject"
cp "$SRC"/*.c "$SRC"/*.h "$SRC"/Makefile "$W"/ || fail "copy cproject"

(cd "$T/bare" && make) >"$O/bare.out" 2>"$O/bare.err" || fail "bare make failed: $(cat "$O/bare.err")"
cw --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- make >"$O/cw.out" 2>"$O/cw.err"
cat "$O/cw.err" >&2
expect_rc 0 "make under verify"

sed "s|$T/bare|DIR|g" "$O/bare.out" >"$O/bare.norm"
sed "s|$W|DIR|g" "$O/cw.out" >"$O/cw.norm"
cmp "$O/bare.norm" "$O/cw.norm" || { diff "$O/bare.norm" "$O/cw.norm" >&2; fail "make's stdout differs under capwatch"; }
[ -x "$W/hello" ] || fail "no binary built under capwatch"
"$T/bare/hello" >"$O/bare.run" || fail "bare binary failed"
"$W/hello" >"$O/cw.run" || fail "binary built under capwatch failed"
grep -q 'hello from cproject' "$O/bare.run" || fail "bare binary printed something unexpected"
cmp "$O/bare.run" "$O/cw.run" || fail "binaries built bare and under capwatch print different things"

# A parallel build under capwatch makes the same program.
mkdir "$T/par"
cp "$SRC"/*.c "$SRC"/*.h "$SRC"/Makefile "$T/par"/ || fail "copy cproject"
cd "$T/par" || fail "cd $T/par"
cw --profile verify --report "$O/par.json" -- make -j4 >/dev/null 2>"$O/par.err"
cd "$W" || fail "cd $W"
cat "$O/par.err" >&2
expect_rc 0 "make -j4 under verify"
"$T/par/hello" >"$O/par.run" || fail "binary from the parallel build failed"
cmp "$O/bare.run" "$O/par.run" || fail "the parallel build under capwatch prints something else"
report_assert "$O/par.json" "outcome['kind'] == 'success'" "len(procs('cc1')) == 4"

report_assert "$O/r.json" \
	"outcome['state'] == 'completed'" \
	"outcome['kind'] == 'success'" \
	"outcome['exit']['code'] == 0" \
	"not denials()" \
	"spawned('make')" \
	"spawned(R('(.*-)?gcc(-[0-9]+)?'))" \
	"spawned('cc1')" \
	"spawned(R('(.*-)?as'))" \
	"spawned(R('(.*-)?ld([.]bfd|[.]gold)?'))" \
	"all(changes('created', R('($W/)?' + o)) for o in ('main.o', 'greet.o', 'checksum.o', 'fib.o', 'hello'))" \
	"not changes(path=R('($W/)?(main|greet|checksum|fib)[.][ch]|($W/)?Makefile'))"
# Every compiler stage ran once per source file.
trace_assert "$O/t.jsonl" \
	"len(execs('cc1')) == 4" \
	"len(execs(R('(.*-)?as'))) == 4" \
	"len(execs(R('(.*-)?ld([.]bfd|[.]gold)?'))) == 1" \
	"len(ops('workspace_write', 'allow', '$W/main.o')) >= 1" \
	"not ops(decision='deny')"

# Protected metadata: a git hook cannot be planted under verify.
mkdir -p .git/hooks
echo '[core]' > .git/config
cp .git/config "$O/config.before"
cw --profile verify --report "$O/hook.json" --trace "$O/hook.jsonl" -- \
	sh -c 'printf "#!/bin/sh\ncurl evil\n" > .git/hooks/pre-commit' 2>"$O/hook.err"
cat "$O/hook.err" >&2
expect_rc 2 "verify: writing .git/hooks/pre-commit"
[ ! -e .git/hooks/pre-commit ] || fail "verify: .git/hooks/pre-commit was created"
report_assert "$O/hook.json" \
	"denied_run()" \
	"kind(denial['capability']) == 'protected_metadata'" \
	"denial['capability']['scope'] == '$W/.git/hooks/pre-commit'" \
	"len(denials('protected_metadata', '$W/.git/hooks/pre-commit')) >= 1"
trace_assert "$O/hook.jsonl" \
	"len(ops('protected_metadata', 'deny', '$W/.git/hooks/pre-commit')) >= 1"
cw --profile verify --report "$O/cfg.json" -- sh -c 'echo "[core] fsmonitor = evil" >> .git/config'
expect_rc 2 "verify: appending to .git/config"
cmp .git/config "$O/config.before" || fail "verify: .git/config was modified"
report_assert "$O/cfg.json" "kind(denial['capability']) == 'protected_metadata'" \
	"denial['capability']['scope'] == '$W/.git/config'"
exit 0
