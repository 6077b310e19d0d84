#!/bin/sh
# Real workloads (issue 17, "Done when"): Debian's zlib and jq, built and
# tested under `capwatch --profile verify`, jq's tests under valgrind as
# its configure sets them up, and jq once more as an AddressSanitizer
# build. Each must pass its own test suite with no
# denial, and the programs and libraries it builds must be bit-identical
# to those of a bare build in the same directory (zlib's whole check
# output too: it holds no times or process ids).
#
# Slow (jq's tests under valgrind take minutes): run by make check-long,
# not make check. The source packages come from tools/install-deps (into
# $CW_DEBSRC_DIR, default /var/cache/capwatch-tests/debsrc); without
# them, or without the build dependencies, the test skips and says why.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
DEBSRC=${CW_DEBSRC_DIR:-/var/cache/capwatch-tests/debsrc}
# Minutes per step, not capwatch's usual minute (cw() in lib.sh).
CW_TIMEOUT=${CW_WORKLOAD_TIMEOUT:-3600}

# The newest .dsc of a package in $DEBSRC.
dsc_of() {
	ls "$DEBSRC/$1"_*.dsc 2>/dev/null | sort -V | tail -n 1
}
ZLIB_DSC=$(dsc_of zlib)
JQ_DSC=$(dsc_of jq)
[ -n "$ZLIB_DSC" ] && [ -n "$JQ_DSC" ] ||
	skip "no zlib or jq source package in $DEBSRC (tools/install-deps fetches them)"
for t in dpkg-source autoreconf make gcc valgrind rake; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (tools/install-deps)"
done
pkg-config --exists oniguruma 2>/dev/null || skip "oniguruma is not installed (libonig-dev; tools/install-deps)"
# The manual's tests need ronn's Ruby library (jq's docs/Rakefile).
ruby -e 'require "ronn"' 2>/dev/null || skip "ronn is not installed (ruby-ronn; tools/install-deps)"

cw_workdir
JOBS=-j2
CW_EXTRA= # more capwatch options for a workload
# Bare and supervised alike, whoever runs this test: not the outer make's
# flags and jobserver (capwatch's sanitized environment drops them anyway).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS

# sums DIR: "sha256  path" of every ELF file and ar archive under DIR.
sums() {
	"$CW_PY" - "$1" <<'PY'
import hashlib, os, sys
top = sys.argv[1]
for d, dirs, files in sorted(os.walk(top)):
    dirs.sort()
    for f in sorted(files):
        p = os.path.join(d, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as fh:
            head = fh.read(8)
            if head[:4] != b"\x7fELF" and head != b"!<arch>\n":
                continue
            fh.seek(0)
            h = hashlib.sha256(fh.read()).hexdigest()
        print(h, os.path.relpath(p, top))
PY
}

# unpack DSC DIR: Debian's source, its patches applied, in DIR (new).
unpack() {
	rm -rf "$2"
	dpkg-source --no-copy -x "$1" "$2" >"$O/unpack.log" 2>&1 ||
		{ cat "$O/unpack.log" >&2; fail "dpkg-source -x $1"; }
}

# workload NAME DSC BARE SUPERVISED: the command BARE, then SUPERVISED under
# capwatch, each in a fresh copy of the source at the same path (the
# debugging information names it); compare. $S is that path.
workload() {
	name=$1 dsc=$2 bare=$3 supervised=$4
	S=$W/$name
	unpack "$dsc" "$S"
	(cd "$S" && sh -c "$bare") >"$O/$name.bare.log" 2>&1 ||
		{ tail -40 "$O/$name.bare.log" >&2; skip "$name does not build bare here"; }
	sums "$S" >"$O/$name.bare.sums"
	[ -s "$O/$name.bare.sums" ] || fail "$name: the bare build made no program or library"
	unpack "$dsc" "$S"
	cd "$S" || fail "cd $S"
	cw --profile verify $CW_EXTRA --workspace "$S" --report "$O/$name.json" --trace "$O/$name.jsonl" \
		-- sh -c "$supervised" >"$O/$name.cw.log" 2>&1
	cd "$W" || fail "cd $W"
	[ "$rc" = 0 ] || { tail -60 "$O/$name.cw.log" >&2; fail "$name under capwatch: exit $rc (bare: 0)"; }
	report_assert "$O/$name.json" "outcome['kind'] == 'success'" "denials() == []"
	# Everything the bare build made is there, the same bytes.
	sums "$S" >"$O/$name.cw.sums"
	"$CW_PY" - "$O/$name.bare.sums" "$O/$name.cw.sums" <<'PY' || fail "$name: the build differs from bare"
import sys
bare = dict(l.split(None, 1)[::-1] for l in open(sys.argv[1]).read().splitlines())
cw = dict(l.split(None, 1)[::-1] for l in open(sys.argv[2]).read().splitlines())
bad = [p for p in bare if cw.get(p) != bare[p]]
for p in bad:
    print("differs or missing under capwatch:", p.strip(), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# zlib: its configure, make and make check (the static, shared and 64-bit
# example and minigzip runs). The whole output must be bare's: one job,
# so that its order is fixed.
ZLIB_CMD="./configure && make && make check"
workload zlib "$ZLIB_DSC" "$ZLIB_CMD" "$ZLIB_CMD"
cmp -s "$O/zlib.bare.log" "$O/zlib.cw.log" ||
	{ diff "$O/zlib.bare.log" "$O/zlib.cw.log" >&2; fail "zlib: the output differs from bare"; }
grep -q 'test OK' "$O/zlib.cw.log" || fail "zlib: make check printed no 'test OK'"

# jq: autoreconf (Debian's patches change the build files), configure with
# valgrind, make check: the manual's examples, the main tests, the
# oniguruma tests and the shell tests, each jq run under valgrind's
# memcheck (--error-exitcode=1 --leak-check=full). The bare run is only
# the build (its tests alone take minutes): the suite must pass here.
# suite_whole NAME: jq's automake suite in $S ran and passed whole.
suite_whole() {
	[ -f "$S/test-suite.log" ] || fail "$1: make check left no test-suite.log"
	"$CW_PY" - "$S" <<'PY' || fail "$1: the test suite did not run whole"
import glob, os, re, sys
top = sys.argv[1]
summary = open(os.path.join(top, "test-suite.log")).read()
count = {k: int(v) for k, v in re.findall(r"^# (\w+): +(\d+)$", summary, re.M)}
ok = count.get("TOTAL", 0) > 0 and count.get("PASS") == count["TOTAL"]
# Each jq-driven suite says "N of N tests passed"; none may be empty.
for log in sorted(glob.glob(os.path.join(top, "tests", "*.log"))):
    for n, m in re.findall(r"^(\d+) of (\d+) tests passed", open(log).read(), re.M):
        if n != m or int(m) == 0:
            print("%s: %s of %s tests passed" % (log, n, m), file=sys.stderr)
            ok = False
print(count, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
JQ_BUILD="autoreconf -fi && ./configure --disable-docs --enable-valgrind && make $JOBS"
workload jq "$JQ_DSC" "$JQ_BUILD" "$JQ_BUILD && make check"
suite_whole jq
# valgrind really ran, under capwatch: its memcheck tool was executed.
report_assert "$O/jq.json" "spawned(R('memcheck-.*'))"
trace_assert "$O/jq.jsonl" "len(execs(R('memcheck-.*'))) > 10"

# jq again as an AddressSanitizer build (--enable-asan; its tests then run
# without valgrind), set up as the README says ("Valgrind and sanitizer
# builds"): leak checking off, since LeakSanitizer stops the world with an
# untraced clone and ptrace, which no supervised process may do, and
# ASAN_OPTIONS passed through. The bare build has the same setting.
ASAN_OPTIONS=detect_leaks=0
export ASAN_OPTIONS
CW_EXTRA="--env-pass ASAN_OPTIONS"
JQA_BUILD="autoreconf -fi && ./configure --disable-docs --enable-asan && make $JOBS"
workload jq-asan "$JQ_DSC" "$JQA_BUILD" "$JQA_BUILD && make check"
suite_whole jq-asan
# The sanitizer's runtime was loaded by the jq runs under test.
if grep -q fanotify-open "$O/jq-asan.json"; then
	# Reads decided in the kernel record a file's first open only (the
	# linker's, here): the runtime was read under capwatch, the jq that
	# ran is the one built, and that image needs it (its loader loads it).
	trace_assert "$O/jq-asan.jsonl" "execs(R('.*/[.]libs/(lt-)?jq'))" \
		"any(e.get('errno') is None for e in ops(resolved=R('.*/libasan[.]so[.0-9]*')))"
	needs=no
	for b in "$W/jq-asan/.libs/lt-jq" "$W/jq-asan/.libs/jq" "$W/jq-asan/jq"; do
		[ -f "$b" ] && readelf -d "$b" 2>/dev/null | grep -q 'NEEDED.*libasan' && needs=yes
	done
	[ $needs = yes ] || fail "jq-asan: the jq built under capwatch does not load libasan"
else
	trace_assert "$O/jq-asan.jsonl" "any(e['pid'] in {x['pid'] for x in execs(R('.*/[.]libs/(lt-)?jq'))} and e.get('errno') is None for e in ops(resolved=R('.*/libasan[.]so[.0-9]*')))"
fi
exit 0
