#!/bin/sh
# export --format html at the scale of a real build, in a real browser: a
# make -j2 of 100 small C files (about 300 processes: make, the compiler
# driver, cc1, as, collect2, ld) runs under capwatch, one recipe line reads
# .env and is denied; the exported page is loaded in headless Chromium
# over its DevTools pipe (tests/tools/timeline_check.py) and must show a
# lane per program, the denial as a red mark whose hover card names the
# operation, zoom and pan, and open the cc1 lane into its processes.
# The 10,000-process case is tests/tools/html_timeline_long.sh (make check-long).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$CHROMIUM" ] && [ -x "$CHROMIUM" ] || skip "chromium is not installed (tools/install-deps installs it)"
[ "$CW" = "$CAPWATCH" ] || skip "capwatch does not dispatch subcommands yet"
command -v cc >/dev/null && command -v make >/dev/null || skip "no cc or make"
cw_workdir
set -e
i=100
while [ $i -lt 200 ]; do
	printf 'int f%d(int x) { return x * %d + 1; }\n' $i $i >"f$i.c"
	i=$((i + 1))
done
printf 'int main(void) { return 0; }\n' >main.c
echo 'TOKEN=not-for-the-build' >.env
cat >Makefile <<'EOF'
OBJS := $(patsubst %.c,%.o,$(wildcard f*.c)) main.o
prog: $(OBJS)
	cc -o $@ $(OBJS)
	-cat .env
%.o: %.c
	cc -c -o $@ $<
EOF
set +e
start=$(date +%s)
CW_TIMEOUT=300 cw --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- make -j2 -s >"$O/out" 2>"$O/err"
set -e
echo "# make -j2 under capwatch: $(( $(date +%s) - start )) s" >&2
[ "$rc" -eq 0 ] || { cat "$O/err" >&2; fail "the build exited $rc"; }
[ -x prog ] || fail "the build made no program"
# The denied read of .env: EACCES from capwatch, or EPERM from fanotify
# when reads are decided in the kernel (SECURITY.md).
eperm=EACCES
cw_kernel_reads_run "$O/r.json" && eperm=EPERM
if [ $eperm = EPERM ]; then has "$O/err" "Operation not permitted"; else has "$O/err" "Permission denied"; fi
trace_assert "$O/t.jsonl" "len(execs()) >= 300" \
	"[e['scope'] for e in ops() if e['decision'] != 'allow'] == ['$W/.env']" \
	"[e.get('errno') for e in ops() if e['decision'] != 'allow'] == ['$eperm']"
run_cw "$O/t.html" "$O/xerr" export --format html "$O/t.jsonl" -o "$O/t.html"
expect_rc 0 "export html of the build"
NETNS=""
unshare -n true 2>/dev/null && NETNS=--netns
CC1=$(basename "$("$(command -v cc)" -print-prog-name=cc1)")
"$PYTHON3" "$top_srcdir/tests/tools/timeline_check.py" --chromium "$CHROMIUM" $NETNS \
	--html "$O/t.html" --trace "$O/t.jsonl" --tmp "$T/chromium" --shot "$O/build.png" \
	--programs "make,$CC1,cat" --expand "$CC1" --denial --max-lanes 60 --max-load 10
# odd and damaged traces: every page draws without a script error
mkdir "$T/odd"
for k in build build2 script bytes misc; do "$GEN" $k verify >"$T/odd/$k.jsonl"; done
"$GEN" build verify observe >"$T/odd/observe.jsonl"
head -1 "$T/odd/build.jsonl" >"$T/odd/header-only.jsonl"
head -c 3000 "$O/t.jsonl" >"$T/odd/cut.jsonl"
awk 'NR == 5 { print "{\"type\":\"op\",\"seq\":1e300,\"time\":-1e308,\"pid\":1e300,\"ppid\":1e19,\"syscall\":\"openat\",\"op\":\"open_read\",\"capability\":\"filesystem_read\",\"scope\":\"/x\",\"decision\":\"deny\",\"rule\":\"r\"}"; print "{\"type\":\"exit\",\"seq\":5,\"time\":1e999,\"pid\":100,\"code\":-1e300}"; next } { print }' \
	"$T/odd/build.jsonl" >"$T/odd/numbers.jsonl"
for f in "$T"/odd/*.jsonl; do
	"$CW" export --format html "$f" -o "${f%.jsonl}.html" 2>/dev/null || fail "export html of $f"
done
"$PYTHON3" "$top_srcdir/tests/tools/timeline_check.py" --chromium "$CHROMIUM" $NETNS --tmp "$T/chromium2" \
	--smoke "$T"/odd/*.html
# keep the pictures for a look when asked (CW_KEEP_SHOTS=DIR)
if [ -n "${CW_KEEP_SHOTS:-}" ]; then cp "$O/build.png" "$O/build-open.png" "$O/t.html" "$CW_KEEP_SHOTS/"; fi
exit 0
