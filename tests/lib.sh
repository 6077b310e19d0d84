# Shared helpers for shell tests. Source it: . "$top_srcdir/tests/lib.sh"
set -u
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
CAPWATCH=${CAPWATCH:-$top_builddir/capwatch}
# CW_BACKEND=kernel|portable: every run of capwatch uses that back end
# (the default, auto, takes kernel as root where the machine allows it).
if [ -n "${CW_BACKEND:-}" ] && [ -z "${CAPWATCH_REAL:-}" ]; then
	CAPWATCH_REAL=$CAPWATCH
	CAPWATCH=$top_srcdir/tests/cw-backend
	export CAPWATCH_REAL CW_BACKEND
fi
PYTHON3=${PYTHON3:-python3}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# A fresh temporary directory, removed when the test exits.
cw_tmpdir() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/cwtest.XXXXXX") || fail "mktemp"
	trap 'rm -rf "$T"' EXIT
}

# jq-free JSON field access: json_get FILE EXPR (python expression over `d`)
json_get() { "$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# Run a command in a private network namespace (no route off the box).
# Skips the test when namespaces are not available.
in_netns() {
	unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
	unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh "$@"
}
# in_netns_addr CMD...: the same, with 192.0.2.10 (TEST-NET-1, inside this
# namespace only) on lo as well: a local address that is not loopback, for
# binds that are host_visible_binding.
in_netns_addr() {
	unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
	unshare -n sh -c 'ip link set lo up 2>/dev/null; ip addr add 192.0.2.10/32 dev lo 2>/dev/null; exec "$@"' sh "$@"
}

# ---- helpers for the integration tests (tests/integration/) ----

# A real python3 for commands run *under* capwatch: a pyenv shim is a bash
# script that reads $HOME and execs half a dozen programs, which would
# blur what a test observes. Prefer the system interpreter.
if [ -x /usr/bin/python3 ]; then CW_PY=/usr/bin/python3
else CW_PY=$("$PYTHON3" -c 'import sys; print(sys.executable)'); fi
CWCHECK="$top_srcdir/tests/integration/cwcheck.py"

# cw_workdir: cw_tmpdir plus a workspace W=$T/ws (the cwd of the test, so it
# is capwatch's default workspace root) and O=$T/out for reports and traces,
# kept outside the workspace so "nothing changed" checks stay exact.
# W and O are physical paths (what the kernel and capwatch resolve to).
cw_workdir() {
	cw_tmpdir
	mkdir "$T/ws" "$T/out" || fail "mkdir in $T"
	T=$(cd "$T" && pwd -P)
	W=$T/ws O=$T/out
	cd "$W" || fail "cd $W"
}

cw_require_binary() {
	[ -x "$CAPWATCH" ] || fail "capwatch binary not built: $CAPWATCH"
}

# cw ARGS...: run capwatch bounded in time (60 s, then SIGKILL after 5 more).
# The exit status is in $rc afterwards (also returned).
cw() {
	timeout -k 5 "${CW_TIMEOUT:-60}" "$CAPWATCH" "$@"
	rc=$?
	return $rc
}

# expect_rc WANT WHAT: compare $rc.
expect_rc() {
	[ "$rc" = "$1" ] || fail "$2: exit status $rc, expected $1"
}

# report_assert FILE EXPR [EXPR...]: every python expression must hold over
# the report (names: d, outcome, denials(), used(), procs(), ... see cwcheck.py).
report_assert() {
	_cw_f=$1; shift
	"$CW_PY" "$CWCHECK" report "$_cw_f" "$@" || fail "report check on $_cw_f"
}
# trace_assert FILE EXPR...: same over a trace (names: ev, header, ops(), execs() ...).
trace_assert() {
	_cw_f=$1; shift
	"$CW_PY" "$CWCHECK" trace "$_cw_f" "$@" || fail "trace check on $_cw_f"
}

# snapshot DIR: a listing of every path with its mode, owner, size, mtime and content hash.
snapshot() {
	"$CW_PY" "$CWCHECK" snapshot "$1"
}

# cw_kernel_reads_run REPORT: true when that run decided read-only opens
# in the kernel (CAPWATCH_KERNEL_READS=1, SECURITY.md): the layer
# "fanotify-open" is in its outcome.enforcement.layers. Such reads are not
# notified (no trace op, or one with "via": "fanotify" and no raw
# arguments, once per inode), a denied one fails EPERM, and the tree sees
# pids of its own namespace.
cw_kernel_reads_run() {
	[ -s "$1" ] && "$CW_PY" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
layers = ((d.get("outcome") or {}).get("enforcement") or {}).get("layers") or []
sys.exit(0 if any("fanotify-open" in str(l).split("+") for l in layers) else 1)
PY
}
