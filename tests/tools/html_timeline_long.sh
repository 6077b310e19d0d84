#!/bin/sh
# export --format html for 10,000 processes (make check-long: the run alone
# takes 10 s on two CPUs): sh runs /bin/true 10,000 times under capwatch,
# then cat reads .env and is denied. The page must stay small (under 2 MB,
# exported in seconds), load in headless Chromium in seconds, draw a
# handful of lanes (true x10000, seq, sh, cat) instead of 10,000, keep the
# one denial among 40,000 operations as a red mark with its hover card, and
# draw at most 200 lanes with the true lane open (10,000 processes in it)
# and scrolled to its end. See tests/tools/timeline_check.py.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$CHROMIUM" ] && [ -x "$CHROMIUM" ] || skip "chromium is not installed (tools/install-deps installs it)"
[ "$CW" = "$CAPWATCH" ] || skip "capwatch does not dispatch subcommands yet"
cw_workdir
set -e
N=${CW_TIMELINE_PROCS:-10000}
echo 'TOKEN=not-for-the-loop' >.env
set +e
start=$(date +%s)
CW_TIMEOUT=600 cw --profile verify --trace "$O/t.jsonl" -- \
	sh -c "for i in \$(seq $N); do /bin/true; done; cat .env" >"$O/out" 2>"$O/err"
set -e
echo "# $N processes under capwatch: $(( $(date +%s) - start )) s" >&2
[ "$rc" -eq 1 ] || { cat "$O/err" >&2; fail "the loop exited $rc, expected cat's 1"; }
TRUE=$(realpath /bin/true)
trace_assert "$O/t.jsonl" "len(execs('$TRUE')) == $N" \
	"[e['scope'] for e in ops() if e['decision'] != 'allow'] == ['$W/.env']"
start=$(date +%s)
run_cw "$O/t.html" "$O/xerr" export --format html "$O/t.jsonl" -o "$O/t.html"
expect_rc 0 "export html of $N processes"
took=$(( $(date +%s) - start ))
size=$(wc -c <"$O/t.html")
echo "# export: $took s, $size bytes (trace $(wc -c <"$O/t.jsonl") bytes)" >&2
[ "$took" -le 10 ] || fail "the export took $took s"
[ "$size" -lt 2000000 ] || fail "the page is $size bytes"
NETNS=""
unshare -n true 2>/dev/null && NETNS=--netns
SH=$(basename "$(realpath /bin/sh)")
"$PYTHON3" "$top_srcdir/tests/tools/timeline_check.py" --chromium "$CHROMIUM" $NETNS \
	--html "$O/t.html" --trace "$O/t.jsonl" --tmp "$T/chromium" --shot "$O/10k.png" \
	--programs "true,seq,$SH,cat" --expand true --denial --max-lanes 200 --max-load 10
if [ -n "${CW_KEEP_SHOTS:-}" ]; then cp "$O/10k.png" "$O/10k-open.png" "$O/t.html" "$CW_KEEP_SHOTS/"; fi
exit 0
