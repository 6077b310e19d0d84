#!/bin/sh
# E142: an alarm()-bounded blocking connect (the classic timeout) under
# --profile verify: capwatch performs the connect on a worker thread
# (net.c connect_worker) and the caller waits killably
# (WAIT_KILLABLE_RECV), so before the fix SIGALRM (no SA_RESTART) did not
# end it, and only --timeout did. Bare, and under --observe (continued),
# the connect fails with EINTR after 1 s. The worker now looks at the
# caller's pending signals every 20 ms and answers ERESTARTSYS, as the
# kernel's own wait ends: EINTR without SA_RESTART; with it (restart) the
# handler runs and the connect goes on to connect. Both back ends.
# Red team 18: a process-wide signal another thread takes (thread: the
# main thread waits in vfork) must leave the connect waiting, not return
# errno 512 (ERESTARTSYS) to it; and a socket made non-blocking during the
# connect (nonblock) must not make the worker spin: capwatch's CPU time
# for that run stays far below the 1.5 s the connect waits (it was one CPU
# for the whole wait).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e142_connect_alarm
P=$ESC_BIN/e142_connect_alarm
# cpu_children: CPU_MS, the CPU time (ms, user + system) of this shell's
# waited-for children. times(1) runs in this very shell, never in a pipe
# or $(...): a subshell has no children.
cpu_children() {
	times >"$O/times"
	CPU_MS=$(sed -n 2p "$O/times" | tr 'ms' '  ' | awk '{printf "%d\n", ($1 * 60 + $2 + $3 * 60 + $4) * 1000}')
}
bare "$P" 4999
grep -q '^connect: eintr .*handler=1' "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"
bare "$P" 4998 restart
grep -q '^connect: connected .*handler=1' "$O/bare.out" || esc_control_failed "bare, SA_RESTART: $(cat "$O/bare.out")"
bare "$P" 4997 thread
grep -q '^connect: connected .*handler=1' "$O/bare.out" || esc_control_failed "bare, thread: $(cat "$O/bare.out")"
bare "$P" 4996 nonblock
grep -q '^connect: connected ' "$O/bare.out" || esc_control_failed "bare, nonblock: $(cat "$O/bare.out")"
under verify --observe --backend portable --timeout 20 -- "$P" 4999
grep -q '^connect: eintr ' "$OUT" || { cat "$OUT" >&2; fail "--observe: the alarm did not end the connect"; }
backends="portable"
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 && backends="portable kernel"
port=4990
for b in $backends; do
	port=$((port + 1))
	under verify --backend "$b" --timeout 8 -- "$P" $port
	grep -q '^connect: eintr .*handler=1' "$OUT" ||
		{ cat "$OUT" >&2; fail "verify, $b: SIGALRM did not end the blocking connect (bare: EINTR after 1 s; exit $rc)"; }
	port=$((port + 1))
	under verify --backend "$b" --timeout 15 -- "$P" $port restart
	grep -q '^connect: connected .*handler=1' "$OUT" ||
		{ cat "$OUT" >&2; fail "verify, $b: with SA_RESTART the handler did not run or the connect did not go on (exit $rc)"; }
	port=$((port + 1))
	under verify --backend "$b" --timeout 15 -- "$P" $port thread
	grep -q '^connect: connected .*handler=1' "$OUT" ||
		{ cat "$OUT" >&2; fail "verify, $b: a signal the main thread took ended another thread's connect (exit $rc)"; }
	port=$((port + 1))
	cpu_children
	before=$CPU_MS
	under verify --backend "$b" --timeout 15 -- "$P" $port nonblock
	cpu_children
	used=$((CPU_MS - before))
	grep -q '^connect: connected ' "$OUT" ||
		{ cat "$OUT" >&2; fail "verify, $b: a connect made non-blocking while it waited did not go on (exit $rc)"; }
	esc_log "$b, nonblock: capwatch and the command used $used ms of CPU"
	[ "$used" -lt 1000 ] || fail "verify, $b: $used ms of CPU while a connect made non-blocking waited 1.5 s (a busy worker)"
done
exit 0
