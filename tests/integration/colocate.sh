#!/bin/sh
# Co-location (supervisor/colocate.c): while an open is emulated, capwatch's
# notification thread is SCHED_IDLE and held on its CPU. That must never
# cost the command its opens or stall the run:
#  - emulated opens give the right file, for reading and for writing, with
#    co-location on and off;
#  - with every CPU kept busy by other work (where a SCHED_IDLE thread
#    starves), the run still ends, and in bounded time: the watchdog and
#    the back-off give the thread its policy back;
#  - when leaving SCHED_IDLE is not permitted (an unprivileged capwatch),
#    co-location is off and capwatch says so.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
[ "$(nproc)" -ge 2 ] || skip "co-location needs two CPUs"

# The loop's opens must be emulated (performed by capwatch, installed with
# ADDFD): read-only ones are, but not where reads are decided in the kernel
# (CAPWATCH_KERNEL_READS=1: not notified at all); there the loop opens a
# workspace file for reading and writing, which is.
cw --profile verify --report "$O/mode.json" -- true >/dev/null 2>&1
loop_path=/etc/hostname loop_how=rdonly
if cw_kernel_reads_run "$O/mode.json"; then
	cp /etc/hostname "$W/loop.txt" || fail "cp /etc/hostname"
	loop_path=$W/loop.txt loop_how=rdwr
fi

cat >"$T/opens.py" <<'EOF2'
import os, sys
n = int(sys.argv[1])
path, how = sys.argv[2], sys.argv[3]
flags = os.O_RDWR if how == "rdwr" else os.O_RDONLY
want = open(path, "rb").read()
for i in range(n):
    fd = os.open(path, flags | os.O_CLOEXEC)
    got = os.read(fd, len(want) + 1)
    os.close(fd)
    if got != want:
        sys.exit("open %d read %r, not %r" % (i, got, want))
for i in range(200):
    with open("f%d" % i, "w") as f:
        f.write("%d\n" % i)
for i in range(200):
    if open("f%d" % i).read() != "%d\n" % i:
        sys.exit("f%d has the wrong content" % i)
print("opens-ok")
EOF2

run_opens() { # NAME N [env...]: the script under verify, -vv log in $O/NAME.log
	_name=$1 _n=$2; shift 2
	rm -f "$W"/f*
	env "$@" timeout -k 5 120 "$CAPWATCH" -vv --profile verify --report "$O/$_name.json" \
		-- "$CW_PY" "$T/opens.py" "$_n" "$loop_path" "$loop_how" >"$O/$_name.out" 2>"$O/$_name.log"
	rc=$?
	expect_rc 0 "$_name: the open script ($(tail -3 "$O/$_name.log"))"
	grep -qx opens-ok "$O/$_name.out" || fail "$_name: $(cat "$O/$_name.out")"
	report_assert "$O/$_name.json" "outcome['kind'] == 'success'" "not denials()"
	[ "$(ls "$W" | grep -c '^f')" = 200 ] || fail "$_name: files missing in the workspace"
}

root=0
[ "$(id -u)" = 0 ] && root=1

# 1. Quiet machine: on (as root) and off give the same results.
run_opens on 3000
if [ $root = 1 ]; then
	grep -q 'co-location: on' "$O/on.log" || fail "root capwatch did not turn co-location on: $(grep co-location "$O/on.log")"
	# The report counts the co-located installs (stats.colocation).
	report_assert "$O/on.json" "d['stats']['colocation']['addfds'] > 0"
fi
run_opens off 3000 CAPWATCH_COLOCATE=0
grep -q 'co-location: off (CAPWATCH_COLOCATE=0)' "$O/off.log" || fail "CAPWATCH_COLOCATE=0 not honoured"
report_assert "$O/off.json" "'colocation' not in d['stats']"

# 2. Every CPU busy with spinning processes (ours, one more than there are
# CPUs, time-limited, ended by PID): a SCHED_IDLE thread gets next to no
# CPU behind them. The run must still finish, and the nets must have acted:
# the watchdog gave an ADDFD stuck for 2 ms its policy back, or a slow one
# turned co-location off. Without them the same run takes minutes (about a
# second per open behind higher-priority work); 120 s is a bound on the
# run, not a benchmark.
hogs=
i=0
while [ $i -le "$(nproc)" ]; do
	timeout 100 sh -c 'while :; do :; done' &
	hogs="$hogs $!"
	i=$((i + 1))
done
trap 'kill $hogs 2>/dev/null; rm -rf "$T"' EXIT
run_opens busy 3000
kill $hogs 2>/dev/null
wait 2>/dev/null
trap 'rm -rf "$T"' EXIT
echo "busy: $(grep -c 'co-location: an ADDFD waited' "$O/busy.log") watchdog rescue(s) in the log"
if [ $root = 1 ]; then
	"$CW_PY" -c 'import json,sys; print("busy: stats.colocation", json.load(open(sys.argv[1]))["stats"]["colocation"])' "$O/busy.json"
	report_assert "$O/busy.json" \
		"d['stats']['colocation']['rescues'] + d['stats']['colocation']['backoffs'] > 0"
fi

# 3. Unprivileged: leaving SCHED_IDLE needs CAP_SYS_NICE or RLIMIT_NICE, so
# co-location must be off (probed on a throw-away thread) and opens work.
if [ $root = 1 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$T" && chown -R nobody "$W" "$O" || fail "chown for the unprivileged run"
	if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
		run_opens unpriv 500 setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --nice=0 --
		grep -q 'co-location: off (leaving SCHED_IDLE is not permitted' "$O/unpriv.log" ||
			fail "unprivileged capwatch: co-location not reported off: $(grep co-location "$O/unpriv.log")"
		report_assert "$O/unpriv.json" "'colocation' not in d['stats']"
	else
		echo "no nobody/nogroup: unprivileged case not run"
	fi
fi
exit 0
