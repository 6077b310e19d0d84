#!/bin/sh
# Bad input everywhere: truncated, newer schema, corrupt lines, missing and
# empty files. One clear message, partial results where that makes sense,
# and never a crash.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
"$GEN" build verify >"$T/b.jsonl"
lines=$(wc -l <"$T/b.jsonl")

# a killed run: the last line is cut short
head -n $((lines - 1)) "$T/b.jsonl" >"$T/cut.jsonl"
tail -n 1 "$T/b.jsonl" | head -c 40 >>"$T/cut.jsonl"
run_cw "$T/out" "$T/err" explain "$T/cut.jsonl"
expect_rc 0 "explain of a truncated trace"
has "$T/err" "cut.jsonl:$lines: warning: the last line is cut short"
has "$T/out" "partial"
has "$T/out" "process tree"
run_cw "$T/out" "$T/err" replay --profile readonly "$T/cut.jsonl"
expect_rc 1 "replay of a truncated trace"
has "$T/err" "cut.jsonl:$lines: warning"
has "$T/out" "results are partial"

# a newer schema: a clear error, exit 2
sed '1s|capwatch.trace/v1|capwatch.trace/v2|' "$T/b.jsonl" >"$T/v2.jsonl"
for sub in replay explain learn export diff; do
	case $sub in
	export) run_cw "$T/out" "$T/err" export --format chrome "$T/v2.jsonl" ;;
	diff) run_cw "$T/out" "$T/err" diff "$T/b.jsonl" "$T/v2.jsonl" ;;
	*) run_cw "$T/out" "$T/err" "$sub" "$T/v2.jsonl" ;;
	esac
	expect_rc 2 "$sub of a newer schema"
	has "$T/err" "v2.jsonl:1:"
	has "$T/err" "is newer than this capwatch understands"
done

# a corrupt line in the middle: TRACE:LINE, skipped, the rest is read
awk 'NR == 5 { print "{\"type\": \"op\", \"seq\": 4, garbage" ; next } { print }' "$T/b.jsonl" >"$T/mid.jsonl"
sed -n 5p "$T/b.jsonl" | grep -q '"seq":4,' || fail "fixture: line 5 is not seq 4"
run_cw "$T/out" "$T/err" replay --profile readonly "$T/mid.jsonl"
expect_rc 1 "replay with a corrupt line"
has "$T/err" "mid.jsonl:5: not valid JSON"
has "$T/err" "line skipped"
has "$T/out" "would change: 3"
has "$T/out" "skipped: 1 corrupt lines"
run_cw "$T/out" "$T/err" explain "$T/mid.jsonl"
expect_rc 0 "explain with a corrupt line"
has "$T/err" "mid.jsonl:5:"
# an op line that is JSON but not a valid operation
awk 'NR == 5 { print "{\"type\":\"op\",\"seq\":4,\"op\":\"teleport\",\"syscall\":\"x\",\"decision\":\"allow\"}"; next } { print }' \
	"$T/b.jsonl" >"$T/op.jsonl"
run_cw "$T/out" "$T/err" replay "$T/op.jsonl"
expect_rc 0 "replay with a malformed operation"
has "$T/err" "op.jsonl:5: unknown operation \"teleport\"; line skipped"

# numbers out of every range
awk 'NR == 5 { print "{\"type\":\"op\",\"seq\":1e300,\"time\":-1e308,\"pid\":1e300,\"tid\":-1e300,\"ppid\":1e19,\"syscall\":\"openat\",\"op\":\"open_read\",\"resolved\":\"/x\",\"capability\":\"filesystem_read\",\"scope\":\"/x\",\"decision\":\"deny\",\"rule\":\"r\"}"; print "{\"type\":\"exit\",\"seq\":5,\"time\":1e999,\"pid\":100,\"code\":-1e300}"; next } { print }' \
	"$T/b.jsonl" >"$T/num.jsonl"
for sub in replay explain learn "export --format chrome" "export --format html" "diff $T/b.jsonl"; do
	set +e
	# shellcheck disable=SC2086
	"$CW" $sub "$T/num.jsonl" >/dev/null 2>"$T/err"
	rc=$?
	set -e
	[ "$rc" -lt 126 ] || { cat "$T/err" >&2; fail "$sub on out-of-range numbers (exit $rc)"; }
done

# missing, empty, not a trace
for f in "$T/missing.jsonl" "$T/empty.jsonl" "$T/notjson.jsonl"; do
	: >"$T/empty.jsonl"
	echo "hello" >"$T/notjson.jsonl"
	run_cw "$T/out" "$T/err" replay "$f"
	expect_rc 2 "replay of $f"
	[ "$(wc -l <"$T/err")" -eq 1 ] || { cat "$T/err" >&2; fail "more than one line of error for $f"; }
	has "$T/err" "capwatch: $f"
done
has "$T/err" "notjson.jsonl:1: not a capwatch trace"

# usage errors: 125
run_cw "$T/out" "$T/err" replay
expect_rc 125 "replay without a trace"
run_cw "$T/out" "$T/err" replay --bogus "$T/b.jsonl"
expect_rc 125 "replay --bogus"
run_cw "$T/out" "$T/err" learn --name 'bad name!' "$T/b.jsonl"
expect_rc 125 "learn --name with a bad name"

# random damage never crashes any tool (exit < 126)
"$PYTHON3" - "$T/b.jsonl" "$T/fz" <<'P'
import random, sys
src = open(sys.argv[1], "rb").read()
random.seed(7)
for i in range(12):
    b = bytearray(src)
    for _ in range(random.randint(1, 40)):
        op = random.random()
        pos = random.randrange(len(b))
        if op < 0.4:
            b[pos] = random.randrange(256)
        elif op < 0.7:
            del b[pos:pos + random.randint(1, 30)]
        else:
            b[pos:pos] = random.choice([b'"', b'{', b'}', b'\n', b'\\u0000', b'null', b'[]', b'1e999'])
    open(f"{sys.argv[2]}{i}.jsonl", "wb").write(bytes(b))
P
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	f="$T/fz$i.jsonl"
	for sub in replay explain learn "export --format chrome" "export --format html" "diff $T/b.jsonl"; do
		set +e
		# shellcheck disable=SC2086
		"$CW" $sub "$f" >/dev/null 2>"$T/err"
		rc=$?
		set -e
		[ "$rc" -lt 126 ] || { cat "$T/err" >&2; fail "$sub crashed on $f (exit $rc)"; }
	done
done
exit 0
