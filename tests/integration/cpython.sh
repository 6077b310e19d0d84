#!/bin/sh
# CPython's own regression tests (issue 17, "Done when"): 14 modules that
# exercise files, processes, signals, threads and sockets, run bare, under
# `capwatch --observe` and under `capwatch --profile verify`, each in a
# fresh private network namespace (loopback only) with a fresh workspace
# as the cwd and TMPDIR inside it. Every test case must have the same
# result (pass, fail, error, skip) in the three runs, except the cases
# tests/integration/cpython-expected.txt lists with their reason; a case
# that differs is run once more alone, bare and supervised, so that a
# timing flake under load is told apart from a capwatch bug. The
# supervised runs' reports must be valid JSON, and every runtime denial
# under verify must be one the expectations file explains.
#
# Slow (minutes per mode): run by make check-long, not make check. Needs a
# python3 with its test package (CPython's Lib/test; Debian splits it out
# as libpython3-testsuite); CW_CPYTHON names one. Without it, or without
# network namespaces, the test skips and says why.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
EXPECTED=$(cd "$top_srcdir" && pwd)/tests/integration/cpython-expected.txt
MODULES="test_os test_shutil test_subprocess test_tempfile test_socket
test_threading test_signal test_fcntl test_posix test_glob test_pathlib
test_tarfile test_zipfile test_select"

# The interpreter: CW_CPYTHON, else the first python3 that has the whole
# test package (the system one often has only test.support). A pyenv shim
# is resolved to the interpreter it runs (sys.executable), as in lib.sh.
has_tests() {
	"$1" -c 'import test.libregrtest, test.test_glob, test.test_socket' 2>/dev/null
}
PY=
for c in "${CW_CPYTHON:-}" "$CW_PY" \
	"$("$PYTHON3" -c 'import sys; print(sys.executable)' 2>/dev/null)"; do
	[ -n "$c" ] && has_tests "$c" && { PY=$c; break; }
done
[ -n "$PY" ] || skip "no python3 with CPython's test package (set CW_CPYTHON)"
PY=$("$PY" -c 'import sys; print(sys.executable)')

# A private network namespace with only lo: no packet leaves the box,
# and tests that want the internet get ENETUNREACH in all three modes.
if [ "$(id -u)" = 0 ]; then NS="unshare -n"; else NS="unshare -rn"; fi
$NS true 2>/dev/null || skip "cannot create a network namespace ($NS)"

# The runs' cwd is their own workspace: name capwatch from anywhere.
case $CAPWATCH in /*) ;; *) CAPWATCH=$PWD/$CAPWATCH ;; esac
cw_workdir
# CW_CPYTHON_KEEP=DIR keeps the logs, results and reports (for a look at
# a failure) in DIR.
if [ -n "${CW_CPYTHON_KEEP:-}" ]; then
	trap 'mkdir -p "$CW_CPYTHON_KEEP" && cp -r "$O"/. "$CW_CPYTHON_KEEP"; rm -rf "$T"' EXIT
fi
# Per mode, seconds (the whole run of 14 modules); per test file, seconds
# (regrtest's own --timeout: a hung file is dumped and counted as failed).
MODE_TIMEOUT=${CW_CPYTHON_TIMEOUT:-900}
FILE_TIMEOUT=${CW_CPYTHON_FILE_TIMEOUT:-300}
# Two workers: the machine's two cores are shared with the rest of
# check-long, and CPython's timing-sensitive cases flake when starved.
JOBS=${CW_CPYTHON_JOBS:-2}
# Cases not run in any mode (regrtest --ignorefile): AF_VSOCK is not
# confined by a network namespace (it reaches the hypervisor), and
# test_socket's VSOCK stream test hangs in accept() bare on a guest whose
# host does not answer; and the expectations file's "exclude" lines.
{
	echo '*VSOCK*'
	sed -n 's/^exclude[ 	]\{1,\}\([^ 	]*\).*/\1/p' "$EXPECTED"
} >"$T/ignore.txt"
sed -n 's/^exclude[ 	]\{1,\}/# not run: /p' "$EXPECTED" >&2

# capwatch closes the descriptors a command inherits above 2 (and reports
# them): the bare run starts with the same three, or test_os's
# test_closerange, which looks for a range of free numbers, differs.
CLOSEFDS='import os, sys; os.closerange(3, 1 << 16); os.execvp(sys.argv[1], sys.argv[1:])'

# run MODE MATCHFILE CAPWATCH-ARGS...: the modules (or only the cases of
# MATCHFILE, when not empty) in a fresh workspace $T/MODE/ws; results in
# $O/MODE.xml, the output in $O/MODE.log, capwatch's report in
# $O/MODE.json. The environment is what capwatch's sanitizer passes, for
# the bare run too, so that only supervision differs.
run() {
	mode=$1 match=$2; shift 2
	# Same-length paths in every mode (AF_UNIX names are limited to 108
	# bytes, and test_pathlib and test_socket skip when theirs are
	# longer): the workspace is $T/<one letter>/ws, and TMPDIR a
	# capwatch-XXXXXX directory in ws/tmp, as capwatch's own scratch is
	# when its TMPDIR is ws/tmp.
	d=$T/$(printf %.1s "$mode")
	rm -rf "$d"
	mkdir -p "$d/ws/tmp" || fail "mkdir $d"
	ws=$d/ws tmp=$d/ws/tmp
	[ "$mode" = bare ] && { tmp=$(mktemp -d "$d/ws/tmp/capwatch-XXXXXX") || fail "mktemp"; }
	set -- "$@" "$PY" -m test -j"$JOBS" --timeout "$FILE_TIMEOUT" \
		--ignorefile "$T/ignore.txt" --junit-xml "$ws/results.xml"
	if [ -n "$match" ]; then
		set -- "$@" --matchfile "$match" $(sed -n 's/^\(test\.\)\{0,1\}\(test_[a-z0-9_]*\)\..*/\2/p' "$match" | sort -u)
	else
		# shellcheck disable=SC2086
		set -- "$@" $MODULES
	fi
	start=$(date +%s)
	(cd "$ws" && env -i PATH="$PATH" HOME="${HOME:-/root}" LANG=C.UTF-8 \
		TERM=dumb TMPDIR="$tmp" $NS sh -c \
		'ip link set lo up || exit 125; exec "$@"' sh \
		timeout -k 10 "$MODE_TIMEOUT" "$CW_PY" -c "$CLOSEFDS" "$@") \
		</dev/null >"$O/$mode.log" 2>&1
	rc=$?
	echo "# $mode: exit $rc in $(($(date +%s) - start)) s" >&2
	[ "$rc" = 124 ] && echo "# $mode: hit the ${MODE_TIMEOUT} s bound" >&2
	cp "$ws/results.xml" "$O/$mode.xml" 2>/dev/null ||
		{ tail -40 "$O/$mode.log" >&2; fail "$mode: regrtest wrote no results (exit $rc)"; }
}

run bare ""
run observe "" "$CAPWATCH" --observe --report "$O/observe.json" --
run verify "" "$CAPWATCH" --profile verify --report "$O/verify.json" --

# compare: per case, bare against each supervised mode; differences not
# in the expectations file go to $O/diff.txt (one case id a line) for the
# rerun below. Exit 0 when there is nothing left to explain.
compare() {
	"$CW_PY" - "$EXPECTED" "$O" "$MODULES" "$@" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
expected_file, out, modules = sys.argv[1], sys.argv[2], sys.argv[3].split()
reruns = sys.argv[4:]          # "MODE=CASE-RESULTS-FILE" of the reruns, if any

def results(path):
    """case id -> pass|fail|error|skip, from regrtest's JUnit XML."""
    got = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {c.tag for c in case}
        r = ("error" if "error" in tags else "fail" if "failure" in tags
             else "skip" if "skipped" in tags else "pass")
        got[case.get("name")] = r
    return got

def module_of(case):
    m = re.match(r"(?:test\.)?(test_\w+)", case)
    return m.group(1) if m else "?"

# The expectations ("exclude PATTERN REASON" lines are the shell's):
# "MODE CASE RESULT REASON", MODE observe|verify|*,
# RESULT pass|fail|error|skip|missing|any ("any": not compared: flaky
# bare too); "denial SYSCALL KIND SCOPE-REGEX REASON" explains a runtime
# denial of verify's report. CASE may end in "*" (a prefix).
cases, denial_rules = [], []
for n, line in enumerate(open(expected_file), 1):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    f = line.split(None, 4)
    if f[0] == "exclude":
        continue
    if f[0] == "denial":
        if len(f) < 5:
            sys.exit("%s:%d: denial SYSCALL KIND SCOPE-REGEX REASON" % (expected_file, n))
        denial_rules.append((f[1], f[2], re.compile(f[3]), f[4], n))
        continue
    f = line.split(None, 3)
    if len(f) < 4 or f[0] not in ("observe", "verify", "*") or \
            f[2] not in ("pass", "fail", "error", "skip", "missing", "any"):
        sys.exit("%s:%d: MODE CASE RESULT REASON" % (expected_file, n))
    cases.append((f[0], f[1], f[2], f[3], n))

def expectation(mode, case):
    for m, c, r, why, n in cases:
        if m in (mode, "*") and (c == case or (c.endswith("*") and case.startswith(c[:-1]))):
            return r, why
    return None, None

res = {m: results("%s/%s.xml" % (out, m)) for m in ("bare", "observe", "verify")}
rerun = {}
for a in reruns:
    m, p = a.split("=", 1)
    rerun[m] = results(p)

bad = []
print("# per mode: " + "; ".join(
    "%s %d cases (%s)" % (m, len(r), ", ".join(
        "%s %d" % (k, sum(1 for v in r.values() if v == k))
        for k in ("pass", "fail", "error", "skip")))
    for m, r in res.items()))
# A file that hung or crashed has no cases: one difference for the file,
# not one per case.
lost = {}
for mode in ("observe", "verify"):
    for m in modules:
        if any(module_of(c) == m for c in res["bare"]) != \
                any(module_of(c) == m for c in res[mode]):
            lost.setdefault(mode, set()).add(m)
for mode in ("observe", "verify"):
    for case in sorted(set(res["bare"]) | set(res[mode])):
        if module_of(case) in lost.get(mode, ()):
            continue
        b = res["bare"].get(case, "missing")
        s = res[mode].get(case, "missing")
        want, why = expectation(mode, case)
        if want == "any":
            if b != s:
                print("# %s %s: %s bare, %s here; not compared: %s" % (mode, case, b, s, why))
            continue
        if want is not None:
            if s == want:
                print("# %s %s: %s (bare %s), as expected: %s" % (mode, case, s, b, why))
                continue
            if s == b:
                print("# %s %s: %s as bare; the expectation (%s: %s) is stale" % (mode, case, s, want, why))
                continue
        if s == b:
            continue
        # Both runs of the case alone agree: a flake of the big run.
        rb, rs = rerun.get("bare", {}).get(case), rerun.get(mode, {}).get(case)
        if rb is not None and rb == rs:
            print("# %s %s: %s bare, %s here; alone both %s: a flake under load" % (mode, case, b, s, rb))
            continue
        bad.append((mode, case, b, s, rb, rs))
    for m in sorted(lost.get(mode, ())):
        who = mode if any(module_of(c) == m for c in res["bare"]) else "bare"
        print("FAIL: %s: %s has no results (the file hung or crashed: see %s.log)" % (who, m, who))
# The reports: strict JSON, and verify's denials all explained.
def strict(name):
    raise ValueError("non-standard JSON constant %s" % name)
unexplained = 0
g_count = {}
for mode in ("observe", "verify"):
    path = "%s/%s.json" % (out, mode)
    try:
        doc = json.load(open(path), parse_constant=strict)
    except (OSError, ValueError) as e:
        print("FAIL: %s report %s: %s" % (mode, path, e))
        unexplained += 1
        continue
    groups = {}
    for d in doc.get("denials", []):
        cap = d.get("capability") or {}
        sc, kind, scope = d.get("syscall"), cap.get("kind"), str(cap.get("scope"))
        why = None
        for rs, rk, rx, reason, n in denial_rules:
            if rs in (sc, "*") and rk in (kind, "*") and rx.fullmatch(scope):
                why = reason
                break
        g = groups.setdefault((sc, kind, why), [])
        if scope not in g:
            g.append(scope)
        g_count[(sc, kind, why)] = g_count.get((sc, kind, why), 0) + 1
    print("# %s report: outcome %s, %d denials" % (mode, doc["outcome"].get("kind"), len(doc.get("denials", []))))
    for (sc, kind, why), scopes in sorted(groups.items(), key=lambda kv: [str(x) for x in kv[0]]):
        shown = ", ".join(repr(x) for x in scopes[:3]) + (", ..." if len(scopes) > 3 else "")
        line = "%s denial: %dx %s %s (%s)" % (mode, g_count[(sc, kind, why)], sc, kind, shown)
        if mode == "verify" and why is None:
            unexplained += 1
            print("FAIL: %s: not explained" % line)
        else:
            print("# %s: %s" % (line, why or "recorded only"))
    g_count.clear()

with open("%s/diff.txt" % out, "w") as f:
    for mode, case, b, s, rb, rs in bad:
        f.write(case + "\n")
for mode, case, b, s, rb, rs in bad:
    alone = "" if rb is None else "; alone: bare %s, %s %s" % (rb, mode, rs or "missing")
    print("FAIL: %s %s: %s bare, %s here%s" % (mode, case, b, s, alone))
print("# %d differing cases unexplained, %d files without results, %d report problems" % (len(bad), sum(len(v) for v in lost.values()), unexplained))
sys.exit(1 if bad or unexplained or lost else 0)
PY
}

compare >"$O/compare1.txt" 2>&1 && { cat "$O/compare1.txt" >&2; exit 0; }
cat "$O/compare1.txt" >&2
[ -s "$O/diff.txt" ] || fail "see above"
# Each differing case once more alone, bare and in both supervised modes
# (regrtest --matchfile): a timing flake of the loaded run agrees there.
echo "# rerunning $(wc -l <"$O/diff.txt") differing cases alone" >&2
cp "$O/diff.txt" "$T/match.txt"
for m in bare observe verify; do
	mv "$O/$m.xml" "$O/$m.full.xml"
	mv "$O/$m.log" "$O/$m.full.log"
	[ -f "$O/$m.json" ] && mv "$O/$m.json" "$O/$m.full.json"
done
run bare "$T/match.txt"
run observe "$T/match.txt" "$CAPWATCH" --observe --report "$O/observe.json" --
run verify "$T/match.txt" "$CAPWATCH" --profile verify --report "$O/verify.json" --
for m in bare observe verify; do
	mv "$O/$m.xml" "$O/$m.alone.xml"
	mv "$O/$m.log" "$O/$m.alone.log"
	mv "$O/$m.full.xml" "$O/$m.xml"
	mv "$O/$m.full.log" "$O/$m.log"
	[ -f "$O/$m.full.json" ] && mv "$O/$m.full.json" "$O/$m.json"
done
compare bare="$O/bare.alone.xml" observe="$O/observe.alone.xml" \
	verify="$O/verify.alone.xml" >&2 || fail "CPython's tests differ under capwatch (see above)"
exit 0
