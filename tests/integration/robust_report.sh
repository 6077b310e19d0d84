#!/bin/sh
# Issue 14, item 3: the report always exists. While the command runs, the
# test (standing in for what the command could do) makes the report's
# write fail: a hard RLIMIT_FSIZE below the report's size set on capwatch
# with prlimit, a full file system (a 64 KiB tmpfs), and the report file
# made append-only (chattr +a, so it can
# no longer be truncated). Pass: a valid report results each time (the
# full one, or the minimal one naming the reason), the exit status is the
# command's, the trace holds every event up to its own failure as valid
# JSONL. A report on a pipe that closes gets a one-line error and 125.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
command -v prlimit >/dev/null 2>&1 || skip "prlimit(1) not found"
SC=$top_srcdir/tests/unit/schema_check.py
valid() {
	"$PYTHON3" "$SC" "$@"
	case $? in
		0) ;;
		77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
		*) fail "does not validate: $*" ;;
	esac
}
APPEND= SMALL=
cleanup() {
	[ -n "$APPEND" ] && chattr -a "$APPEND" 2>/dev/null
	[ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# The command waits for "go" (bounded), then makes a report of some size
# (a few hundred processes) and exits 3.
CMD='i=0; while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
i=0; while [ $i -lt 200 ]; do cat /dev/null; i=$((i+1)); done; exit 3'

# run_with NAME ACTION: capwatch in the background; once it runs, ACTION
# (a shell snippet, $pid is capwatch) and "go".
run_with() {
	name=$1 action=$2
	rm -f go
	timeout -k 5 60 "$CAPWATCH" --profile verify --report "$O/$name.json" --trace "$O/$name.jsonl" \
		-- sh -c "$CMD" 2>"$O/$name.err" &
	tpid=$!
	i=0
	while [ ! -s "$O/$name.jsonl" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
	pid=$(pgrep -P $tpid -x capwatch) || fail "$name: capwatch is not running"
	eval "$action" || fail "$name: the test's own action failed"
	touch go
	wait $tpid
	rc=$?
}

# 1. A hard file size limit of 16 KiB set on capwatch while it runs: the
#    full report (over 50 KiB) fails with EFBIG, the minimal one fits.
run_with fsize 'prlimit --pid $pid --fsize=16384:16384'
[ "$rc" != 153 ] || fail "fsize: capwatch was killed by SIGXFSZ"
expect_rc 3 "fsize: the command's own status"
[ -s "$O/fsize.json" ] || fail "fsize: no report"
valid --report "$O/fsize.json"
report_assert "$O/fsize.json" 'outcome["exit"]["code"] == 3' 'outcome["kind"] == "application_failure"' \
	'"File too large" in outcome["enforcement"]["downgradeReason"]' 'd["command"]["name"] == "sh"'
# The trace: valid JSONL up to the failure, the header first.
"$PYTHON3" -c '
import json, sys
ls = open(sys.argv[1], "rb").read().split(b"\n")
assert ls[-1] == b"", "cut line at the end"
ev = [json.loads(l) for l in ls[:-1]]
assert ev[0]["type"] == "header" and len(ev) > 10, len(ev)
assert [e["seq"] for e in ev[1:]] == list(range(1, len(ev))), "seq gap"
' "$O/fsize.jsonl" || fail "fsize: the trace is not a valid prefix of the run"

# 2. A full disk (ENOSPC): the report on a 64 KiB tmpfs that the test
#    fills to 8 KiB of free space once capwatch runs. Skipped alone when
#    no tmpfs can be mounted here.
mkdir "$T/small"
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
	SMALL=$T/small
	rm -f go
	timeout -k 5 60 "$CAPWATCH" --profile verify --report "$SMALL/r.json" --trace "$O/enospc.jsonl" \
		-- sh -c "$CMD" 2>"$O/enospc.err" &
	tpid=$!
	i=0
	while [ ! -s "$O/enospc.jsonl" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
	avail=$(df --output=avail -B1 "$SMALL" | tail -n 1)
	head -c $((avail - 8192)) /dev/zero > "$SMALL/fill" || fail "enospc: could not fill the tmpfs"
	touch go
	wait $tpid
	rc=$?
	expect_rc 3 "enospc: the command's own status"
	valid --report "$SMALL/r.json"
	report_assert "$SMALL/r.json" 'outcome["exit"]["code"] == 3' \
		'"No space left" in outcome["enforcement"]["downgradeReason"]'
	umount "$SMALL"; SMALL=
else
	echo "# ENOSPC case skipped: cannot mount a tmpfs" >&2
fi

# 3. The report file append-only while capwatch has it open: still a full,
#    valid report.
touch "$O/probe"
if chattr +a "$O/probe" 2>/dev/null; then
	chattr -a "$O/probe"
	run_with append 'chattr +a "$O/append.json" && APPEND=$O/append.json'
	expect_rc 3 "append: the command's own status"
	valid --report "$O/append.json"
	report_assert "$O/append.json" 'outcome["exit"]["code"] == 3' 'len(procs()) >= 200'
	chattr -a "$O/append.json"; APPEND=

	# 4. Both: append-only (no truncation) and a 16 KiB hard limit: the
	#    minimal report is written over the start, the rest blanked.
	run_with both 'chattr +a "$O/both.json" && APPEND=$O/both.json && prlimit --pid $pid --fsize=16384:16384'
	expect_rc 3 "append+fsize: the command's own status"
	valid --report "$O/both.json"
	report_assert "$O/both.json" 'outcome["exit"]["code"] == 3' '"File too large" in outcome["enforcement"]["downgradeReason"]'
	chattr -a "$O/both.json"; APPEND=
else
	echo "# append-only cases skipped: chattr +a not supported here" >&2
fi

# 5. A report on a pipe whose reader goes away: no minimal report is
#    possible; one line says so and capwatch exits 125.
rm -f go; touch go
( timeout -k 5 60 "$CAPWATCH" --profile verify --report-fd 3 -- sh -c "$CMD" 3>&1 >/dev/null 2>"$O/pipe.err"
  echo $? > "$O/pipe.rc" ) | true
[ "$(cat "$O/pipe.rc")" = 125 ] || fail "pipe: exit status $(cat "$O/pipe.rc"), expected 125"
[ "$(grep -c 'no minimal report could replace it' "$O/pipe.err")" = 1 ] || fail "pipe: no one-line error: $(cat "$O/pipe.err")"
exit 0
