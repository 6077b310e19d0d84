# Shared helpers for shell tests. Source it: . "$top_srcdir/tests/lib.sh"
set -u
: "${top_srcdir:?run through make check}"
: "${top_builddir:?run through make check}"
CAPWATCH=${CAPWATCH:-$top_builddir/capwatch}
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
