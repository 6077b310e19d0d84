#!/bin/sh
# make fuzz-supervisor (issue 14 item 11): run tests/fuzz/fuzz_target under
# a capwatch built with AddressSanitizer and UBSan, over and over with fresh
# seeds, for FUZZ_SECONDS in all, in a private network namespace. After each
# run: capwatch exited with the target's status (0) within the time limit,
# printed no sanitizer report, and wrote a report that is valid JSON of the
# report schema (and a trace that is valid JSONL). A failing run's seed,
# report, trace and stderr are kept in FUZZ_OUT/fail-SEED and the script
# exits 1.
#
# Environment:
#   FUZZ_SECONDS   total fuzzing time (default 60)
#   FUZZ_RUN       seconds of one target run (default 10)
#   FUZZ_SEED      first seed (default: from the clock); runs use SEED, SEED+1, ...
#   FUZZ_PROFILES  profiles, one per run in turn (default "readonly verify":
#                  readonly refuses every write outside the scratch directory,
#                  verify lets capwatch perform writes in the workspace, a fresh
#                  temporary directory, and loopback connections in the private
#                  network namespace)
#   FUZZ_OUT       where failures and the summary go (default $builddir/fuzz-out)
#   FUZZ_BUILD     an existing sanitizer build directory to use (its capwatch);
#                  default: $builddir/fuzz-asan, configured and built here
#   FUZZ_CAPWATCH  a capwatch binary to use as is (smoke.sh: the ordinary build)
#   FUZZ_TARGET    a built fuzz_target to use; default: compiled into FUZZ_OUT
#   FUZZ_TARGET_CC compiler for the target (default cc)
#
# FUZZ_OUT/syscalls.json counts, over every run, the trace's events by
# syscall and decision: which rows of table.c the runs reached.
#
# The target is built without sanitizers (it is what is fuzzed against, not
# what is checked); the preload is off (CAPWATCH_PRELOAD=none): an
# ASan-built libcapwatch-preload.so cannot be loaded into a program without
# the ASan runtime, and the target makes raw system calls, which the preload
# does not see anyway.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir/_build}
secs=${FUZZ_SECONDS:-60}
run_secs=${FUZZ_RUN:-10}
profiles=${FUZZ_PROFILES:-readonly verify}
out=${FUZZ_OUT:-$builddir/fuzz-out}
seed=${FUZZ_SEED:-$(date +%s)}
timeout=$((run_secs + 20))
slack=15
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

say() { echo "fuzz-supervisor: $*"; }

# --- the sanitizer build of capwatch ---
if [ -n "${FUZZ_CAPWATCH:-}" ]; then
	cw=$FUZZ_CAPWATCH
else
	fb=${FUZZ_BUILD:-$builddir/fuzz-asan}
	san='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined'
	if [ ! -f "$fb/Makefile" ]; then
		say "configuring an ASan+UBSan build in $fb"
		mkdir -p "$fb" && (cd "$fb" && "$srcdir/configure" --quiet \
			CFLAGS="$san" LDFLAGS='-fsanitize=address,undefined') >"$out/configure.log" 2>&1 || {
			say "configure failed, see $out/configure.log"; exit 2; }
	fi
	# only the binary: the preload is not used, the tests are not needed
	(cd "$fb" && make -j2 capwatch) >"$out/build.log" 2>&1 || {
		say "build failed, see $out/build.log"; exit 2; }
	cw=$fb/capwatch
fi
[ -x "$cw" ] || { say "no capwatch at $cw"; exit 2; }

target=${FUZZ_TARGET:-$out/fuzz_target}
if [ -z "${FUZZ_TARGET:-}" ] && { [ ! -x "$target" ] || [ "$srcdir/tests/fuzz/fuzz_target.c" -nt "$target" ]; }; then
	${FUZZ_TARGET_CC:-cc} -O1 -g -pthread -o "$target" "$srcdir/tests/fuzz/fuzz_target.c" || exit 2
fi

command -v unshare >/dev/null || { say "unshare(1) missing"; exit 77; }
unshare -n true 2>/dev/null || { say "cannot make a network namespace (unshare -n), not fuzzing"; exit 77; }
have_setsid=; command -v setsid >/dev/null && have_setsid=setsid
schema_check=$srcdir/tests/unit/schema_check.py
# make check's interpreter (configure resolved it: a pyenv shim is a bash
# script that takes a second a call under load)
py=${PYTHON3:-python3}
"$py" -c 'import jsonschema' 2>/dev/null || schema_check=

# ASan: abort on the first error, with a report on stderr; UBSan: print the
# stack and stop (-fno-sanitize-recover). detect_leaks off: the supervisor
# exits with its run state still allocated; a leak is not what we look for.
export ASAN_OPTIONS="abort_on_error=0:exitcode=99:detect_leaks=0:handle_abort=1:allow_user_segv_handler=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=98"
export CAPWATCH_PRELOAD=none

runs=0 fails=0 ncalls=0 start=$(date +%s)
say "capwatch $cw ($(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo '?')), profiles $profiles, $secs s, runs of $run_secs s, first seed $seed"
while :; do
	now=$(date +%s)
	[ $((now - start)) -ge "$secs" ] && [ "$runs" -gt 0 ] && break
	left=$((secs - (now - start)))
	rs=$run_secs
	[ "$left" -lt "$rs" ] && [ "$left" -gt 0 ] && rs=$left
	set -- $profiles
	shift $((runs % $#))
	profile=$1
	d=$(mktemp -d "${TMPDIR:-/tmp}/cwfuzz.XXXXXX") || exit 2
	mkdir "$d/ws" && : >"$d/ws/a" && mkdir "$d/ws/d" && ln -s a "$d/ws/l"
	# the workspace is a fresh temporary directory: whatever the target
	# manages to change stays there
	t0=$(date +%s)
	(cd "$d/ws" && exec $have_setsid unshare -n sh -c '
		ip link set lo up 2>/dev/null
		exec "$@"' sh "$cw" --profile "$profile" --timeout "$timeout" --max-procs 64 \
		--report "$d/report.json" --trace "$d/trace.jsonl" -- "$target" "$seed" "$rs" "$d/ws") \
		</dev/null >"$d/stdout" 2>"$d/stderr" &
	pid=$!
	# a watchdog: capwatch must be gone by its own timeout plus slack
	( sleep $((timeout + slack)); kill -KILL "$pid" 2>/dev/null; echo hung >"$d/hung" ) &
	wd=$!
	wait "$pid"; rc=$?
	kill "$wd" 2>/dev/null; wait "$wd" 2>/dev/null
	el=$(($(date +%s) - t0))
	runs=$((runs + 1))
	why=
	if [ -e "$d/hung" ]; then
		why="hung (no exit after $((timeout + slack)) s)"
	elif grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer\|SUMMARY: UndefinedBehaviorSanitizer' "$d/stderr"; then
		why="sanitizer report"
	elif [ "$rc" -ne 0 ]; then
		why="exit status $rc (the target exits 0)"
	elif [ ! -s "$d/report.json" ]; then
		why="no report"
	elif ! "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$d/report.json" 2>"$d/json.err"; then
		why="report is not JSON"
	elif [ -n "$schema_check" ] && ! "$py" "$schema_check" --report "$d/report.json" >"$d/schema.err" 2>&1; then
		why="report does not match the schema"
	elif ! "$py" -c '
import json, sys
names = {}
for l in open(sys.argv[1], "rb"):
    e = json.loads(l)
    if e.get("syscall"):
        k = "%s %s" % (e["syscall"], e.get("decision"))
        names[k] = names.get(k, 0) + 1
try:
    with open(sys.argv[2]) as f:
        old = json.load(f)
except (OSError, ValueError):
    old = {}
for k, v in names.items():
    old[k] = old.get(k, 0) + v
with open(sys.argv[2] + ".new", "w") as f:
    json.dump(old, f, indent=0, sort_keys=True)
' "$d/trace.jsonl" "$out/syscalls.json" 2>"$d/json.err" || ! mv "$out/syscalls.json.new" "$out/syscalls.json"; then
		why="trace is not JSONL"
	elif ! grep -q '"state"' "$d/report.json"; then
		why="report has no outcome"
	fi
	calls=$(sed -n 's/^fuzz_target: \([0-9]*\) calls$/\1/p' "$d/stdout")
	ncalls=$((ncalls + ${calls:-0}))
	if [ -n "$why" ]; then
		fails=$((fails + 1))
		keep=$out/fail-$seed
		rm -rf "$keep"; mv "$d" "$keep"
		echo "$profile" >"$keep/profile"
		say "FAIL seed $seed ($profile): $why; kept in $keep"
		sed -n '/ERROR: AddressSanitizer\|runtime error:/,+12p' "$keep/stderr" | head -30
	else
		rm -rf "$d"
	fi
	[ -n "${FUZZ_QUIET:-}" ] || say "run $runs seed $seed $profile: rc $rc, ${el}s, ${calls:-?} calls${why:+, $why}"
	seed=$((seed + 1))
	[ "$fails" -gt 0 ] && [ -z "${FUZZ_KEEP_GOING:-}" ] && break
done
total=$(($(date +%s) - start))
line="fuzz-supervisor: $runs runs, $total seconds, $fails failures ($ncalls target calls)"
echo "$line"
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $line (capwatch $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null) $cw, profiles $profiles, first seed ${FUZZ_SEED:-clock})" >>"$out/summary.log"
[ "$fails" -eq 0 ]
