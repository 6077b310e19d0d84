# Helpers for the trace tools' tests. Source after tests/lib.sh.
GEN=$top_builddir/tests/tools/gen_trace
[ -x "$GEN" ] || fail "gen_trace not built"
# The real binary when it dispatches subcommands, else the tools driver.
if "$CAPWATCH" profiles --help >/dev/null 2>&1; then
	CW=$CAPWATCH
else
	CW=$top_builddir/tests/tools/cwtool
	echo "note: $CAPWATCH does not dispatch subcommands yet; using $CW" >&2
fi
# run_cw OUT ERR ARGS...: run a subcommand, keep its status in $rc
run_cw() {
	_o=$1 _e=$2
	shift 2
	set +e
	"$CW" "$@" >"$_o" 2>"$_e"
	rc=$?
	set -e
}
expect_rc() { [ "$rc" -eq "$1" ] || { cat "$T/err" >&2 2>/dev/null; fail "$2: exit $rc, expected $1"; }; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks: $2"; }; }
hasnt() { if grep -qF -- "$2" "$1"; then echo "--- $1:" >&2; cat "$1" >&2; fail "$1 has: $2"; fi; }
