#!/bin/sh
# The supervisor's memory is bounded whatever the command passes or renames
# (issue 15; red team 24 F1, F2, F4), and what it leaves out is said in
# the report and the trace, never silently.
#  - argv: 6 execs of /bin/true with 200,000 empty arguments each. Every
#    image kept its whole argv, one allocation per argument, until the
#    report copied it again (~16 MiB per exec here: the binary before the
#    bound peaked at ~100 MiB in this test). Now an image keeps at most
#    65,536 arguments, and the run 16 MiB of argv in all (argv_truncated:
#    true in its record and exec line).
#  - renames: 3,000 renames a<->b 15 directories of 250-byte names deep.
#    Every rename was an entry with two ~3.8 KB paths (~23 KiB each, ~70
#    MiB here before); now a repeated rename is one entry.
#  - creates: 10,050 new files: outcome.changes keeps 10,000 paths and says
#    changes_truncated: true, changesOmitted: 50.
# The bound, 32 MiB for each run: the run-wide argv budget (16 MiB) or the
# changes' path budget (16 MiB) on top of the ~5 MiB capwatch needs for a
# small run (measured: 5.5 MiB, 5.8 MiB and 15.8 MiB for the three runs).
# Peaks are VmHWM written by cwb_hwm.so at capwatch's exit (as in
# denial_flood.sh). No timing is asserted.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
HOG=$top_builddir/tests/hardening/mem_hog
HWM=$top_builddir/tests/hardening/cwb_hwm.so
[ -x "$HOG" ] || fail "helper not built: $HOG"
[ -f "$HWM" ] || fail "helper not built: $HWM"
"$PYTHON3" -c 'import jsonschema' 2>/dev/null || skip "python3 module jsonschema is missing"
BOUND=32768

# run NAME PROFILE ARGS...: capwatch over mem_hog ARGS in a fresh
# directory of the workspace; sets hwm (kB), leaves $O/NAME.json (report)
# and $O/NAME.jsonl (trace, for the argv run only).
run() {
	name=$1 prof=$2
	shift 2
	mkdir "$W/$name" && cd "$W/$name" || fail "mkdir $W/$name"
	tr=
	[ "$name" = argv ] && tr="--trace $O/$name.jsonl"
	rm -f "$O/hwm.txt"
	# shellcheck disable=SC2086
	LD_PRELOAD=$HWM CWB_HWM_FILE=$O/hwm.txt CW_TIMEOUT=120 \
		cw --profile "$prof" --report "$O/$name.json" $tr -- "$HOG" "$@" \
		> "$O/$name.out" 2> "$O/$name.err"
	[ $rc = 0 ] || fail "$name: exit $rc: $(tail -c 500 "$O/$name.err")"
	[ -s "$O/hwm.txt" ] || fail "$name: cwb_hwm.so wrote no peak for capwatch"
	hwm=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$O/hwm.txt")
	[ "$hwm" -gt 0 ] 2>/dev/null || fail "$name: no VmHWM: $(cat "$O/hwm.txt")"
	echo "$name: supervisor VmHWM $hwm kB (bound $BOUND kB)"
	cd "$W" || fail "cd $W"
}

check() {
	"$PYTHON3" - "$top_srcdir/schemas" "$@" <<'PY' || fail "report check failed for $2"
import json, sys, jsonschema
schemas, name, path = sys.argv[1:4]
d = json.load(open(path))
jsonschema.validate(d, json.load(open(schemas + "/report.schema.json")))
o = d["outcome"]
assert o["kind"] == "success", o
if name == "argv":
    execs = [p for p in d["processes"] if p["exe"] and p["exe"].endswith("/true")]
    assert len(execs) == 6, [p["exe"] for p in d["processes"]]
    for p in execs:
        assert p.get("argv_truncated") is True, "argv cut without a mark: %d arguments" % len(p["argv"])
        assert 1 <= len(p["argv"]) <= 65536 and p["argv"][0] == "true", len(p["argv"])
    assert not any(p.get("argv_truncated") for p in d["processes"] if p not in execs)
    tr = [json.loads(l) for l in open(sys.argv[4])]
    ex = [e for e in tr if e.get("type") == "exec" and e["exe"].endswith("/true")]
    assert len(ex) == 6 and all(e.get("argv_truncated") is True for e in ex), ex[:1]
    ts = json.load(open(schemas + "/trace.schema.json"))
    for e in ex:
        jsonschema.validate(e, ts)
elif name == "rename":
    ren = [c for c in o["changes"] if c["kind"] == "renamed"]
    # the deep directories and a created, b->a renamed once (it was
    # listed 1,500 times)
    assert len(o["changes"]) <= 20 and len(ren) <= 1, (len(o["changes"]), len(ren))
    assert "changes_truncated" not in o, o.get("changesOmitted")
elif name == "create":
    assert len(o["changes"]) == 10000, len(o["changes"])
    assert o.get("changes_truncated") is True and o.get("changesOmitted") == 50, \
        (o.get("changes_truncated"), o.get("changesOmitted"))
PY
}

run argv readonly argv 6 200000
[ "$(cat "$O/argv.out")" = 6 ] || fail "argv: $(cat "$O/argv.out") execs succeeded"
check argv "$O/argv.json" "$O/argv.jsonl"
[ "$hwm" -lt $BOUND ] || fail "argv: supervisor peak $hwm kB (bound $BOUND kB)"

run rename verify rename 3000 15
check rename "$O/rename.json"
[ "$hwm" -lt $BOUND ] || fail "rename: supervisor peak $hwm kB (bound $BOUND kB)"

run create verify create 10050
check create "$O/create.json"
[ "$hwm" -lt $BOUND ] || fail "create: supervisor peak $hwm kB (bound $BOUND kB)"
exit 0
