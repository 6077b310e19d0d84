#!/bin/sh
# The capwatch demo: run demo/build.sh under `capwatch --profile readonly`
# in a throw-away copy, inside a private network namespace (so the download
# attempt can never leave the machine), then print the report.
#   usage: demo/run-demo.sh [PATH/TO/capwatch]     (default ./capwatch)
# It does not build capwatch (tools/demo does).
set -u
CAPWATCH=${1:-./capwatch}
case $CAPWATCH in /*) ;; *) CAPWATCH=$(pwd)/$CAPWATCH ;; esac
[ -x "$CAPWATCH" ] || { echo "run-demo: no capwatch binary at $CAPWATCH" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

# A private network namespace: as root plain `unshare -n`, otherwise try a
# user namespace too. Without one the demo refuses to run: its download step
# must never reach a real network.
if unshare -n true 2>/dev/null; then NETNS="unshare -n"
elif unshare -rn true 2>/dev/null; then NETNS="unshare -rn"
else echo "run-demo: cannot create a private network namespace (unshare -n); not running" >&2; exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/capwatch-demo.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cp "$here/build.sh" "$here/hello.c" "$work/" || exit 2
echo "yesterday's log" > "$work/old.log"
cd "$work" || exit 2

echo "== capwatch --profile readonly -- ./build.sh   (in $work, private netns)"
$NETNS sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh \
	"$CAPWATCH" --profile readonly --report r.json --trace t.jsonl -- ./build.sh </dev/null
rc=$?
case $rc in
124) echo "== capwatch exited 124: timed out" ;;
125) echo "== capwatch exited 125: capwatch itself failed (see its message above)" ;;
126|127) echo "== capwatch exited $rc: the command could not be started" ;;
*) echo "== capwatch exited $rc (the build script's own status)" ;;
esac
echo "== the project after the run:"
ls -1 | grep -v -e '^r\.json$' -e '^t\.jsonl$' | sed 's/^/   /'
if [ -f old.log ] && [ ! -e build-stamp.txt ]; then
	echo "   (old.log still there, no build-stamp.txt: nothing was changed)"
fi
[ -s r.json ] || { echo "run-demo: no report was written" >&2; exit 1; }
echo "== report (r.json; long lists shortened, set CAPWATCH_DEMO_KEEP=DIR to keep it):"
if command -v python3 >/dev/null 2>&1; then
	python3 - r.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("capabilitiesUsed", "processes"):
	v = d.get(k) or []
	if len(v) > 6:
		d[k] = v[:6] + ["... %d more" % (len(v) - 6)]
print(json.dumps(d, indent=2))
PY
else
	cat r.json
fi
if "$CAPWATCH" explain r.json >explain.out 2>/dev/null; then
	echo "== capwatch explain r.json:"
	cat explain.out
fi
[ -f t.jsonl ] && echo "== trace: $(wc -l < t.jsonl) lines in t.jsonl"
if [ -n "${CAPWATCH_DEMO_KEEP:-}" ]; then
	mkdir -p "$CAPWATCH_DEMO_KEEP" && cp r.json t.jsonl "$CAPWATCH_DEMO_KEEP"/ &&
		echo "== kept r.json and t.jsonl in $CAPWATCH_DEMO_KEEP"
fi
exit 0
