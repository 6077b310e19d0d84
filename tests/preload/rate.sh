#!/bin/sh
# The preload keeps to capwatch's rate limit for file annotations (issue 8):
# capwatch keeps at most CW_ANNOT_BURST messages of a process at once and
# CW_ANNOT_RATE a second, and drops the rest; a loop of 20,000 opens used
# to send 20,000 datagrams (a gettid and a writev each) for capwatch to
# drop 17,000 of them. The report's stats must show that the datagrams
# past the budget were never sent (received within budget, next to none
# flooded), and that annotations within it still were.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
. "$top_srcdir/tests/preload/lib.sh"

cat >"$T/opens.py" <<'EOF2'
import os
for i in range(20000):
    os.close(os.open("/etc/hostname", os.O_RDONLY))
print("done")
EOF2
cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/opens.py" >"$O/out" 2>&1
expect_rc 0 "20,000 opens: $(cat "$O/out")"
grep -qx done "$O/out" || fail "the open loop did not finish: $(cat "$O/out")"
if cw_kernel_reads_run "$O/r.json"; then
	# Reads decided in the kernel are not notified, and the preload sends
	# nothing for them (proto.h, ":k"): a handful of hellos and execs, not
	# 20,000 file annotations (nor the 512 a single drain would read).
	report_assert "$O/r.json" "d['stats']['annotations']['received'] < 50" \
		"d['stats']['annotations']['malformed'] == 0"
	# The budget, on opens that are still notified: for writing.
	sed 's/os.O_RDONLY/os.O_WRONLY/; s|/etc/hostname|w.txt|' "$T/opens.py" >"$T/wopens.py"
	: >"$W/w.txt"
	cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/wopens.py" >"$O/out" 2>&1
	expect_rc 0 "20,000 opens for writing: $(cat "$O/out")"
	grep -qx done "$O/out" || fail "the open loop did not finish: $(cat "$O/out")"
fi
report_assert "$O/r.json" \
	"d['stats']['annotations']['received'] >= 1000" \
	"d['stats']['annotations']['received'] <= 2000 + 1000 * d['stats']['elapsed'] + 200" \
	"d['stats']['annotations']['flooded'] < 200"
"$CW_PY" -c 'import json,sys; a=json.load(open(sys.argv[1]))["stats"]; print("annotations:", a["annotations"], "elapsed:", a["elapsed"])' "$O/r.json"
exit 0
