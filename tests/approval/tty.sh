#!/bin/sh
# The terminal prompt for "ask" decisions, driven through tmux (send-keys,
# capture-pane): capwatch runs in a tmux pane inside a private network
# namespace (a connect to 203.0.113.7 fails ENETUNREACH when allowed, EPERM
# when denied). The prompt goes to /dev/tty: the command's stdout and
# stderr (and capwatch's own stderr) are files here and must not hold it.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
command -v tmux >/dev/null 2>&1 || skip "tmux is not installed (tools/install-deps)"
unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
cw_workdir
TS=$T/tmux.sock
tm() { tmux -S "$TS" "$@"; }
# one tmux server per case (a socket of its own: no race with the last one's exit)
trap 'for s in "$T"/tmux-*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$T"' EXIT
unset TMUX

cat > net2.py <<'PY'
import errno, socket, sys
out = []
for i in range(int(sys.argv[1])):
	s = socket.socket()
	s.settimeout(10)
	try:
		s.connect(("203.0.113.7", 80))
		out.append("CONNECTED")
	except OSError as e:
		out.append(errno.errorcode.get(e.errno, str(e.errno)))
	s.close()
print(" ".join(out))
PY

# start NAME N [OPTIONS...]: capwatch in a new tmux session running net2.py N.
start() {
	name=$1 n=$2; shift 2
	rm -f "$O/$name.done"
	cat > "$O/$name.run" <<SH
unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "\$@"' sh \
	timeout --foreground -k 5 60 "$CAPWATCH" --report "$O/$name.json" --trace "$O/$name.jsonl" $* \
	-- "$CW_PY" net2.py $n >"$O/$name.out" 2>"$O/$name.err"
echo \$? > "$O/$name.rc"
touch "$O/$name.done"
sleep 30
SH
	tm kill-server 2>/dev/null
	TS=$T/tmux-$name.sock
	tm new-session -d -x 200 -y 50 -c "$W" "sh '$O/$name.run'" || fail "tmux new-session"
}

pane() { tm capture-pane -p -J -S -200 2>/dev/null; }

# wait_for TEXT COUNT: until the pane shows TEXT COUNT times (20 s).
wait_for() {
	i=0
	while [ "$(pane | grep -c -- "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { pane >&2; fail "the pane never showed '$1' ($2x)"; }
		sleep 0.1
	done
}

wait_done() {
	i=0
	while [ ! -e "$O/$1.done" ]; do
		i=$((i + 1))
		[ $i -lt 300 ] || { pane >&2; fail "$1: capwatch did not finish"; }
		sleep 0.1
	done
}

no_prompt_in_streams() {
	! grep -q "allow once" "$O/$1.out" "$O/$1.err" || fail "$1: the prompt went to stdout/stderr"
}

# 1. allow once, then deny: exactly the first connect goes through.
start once 2
wait_for "allow once" 1
pane | grep -q "wants connect: external_network 203.0.113.7:80" || { pane >&2; fail "prompt does not name the operation and scope"; }
pane | grep -q "python" || fail "prompt does not name the program"
	tm send-keys o Enter
wait_for "allow once" 2
tm send-keys d Enter
wait_done once
[ "$(cat "$O/once.out")" = "ENETUNREACH EPERM" ] || fail "allow once: connects saw '$(cat "$O/once.out")'"
no_prompt_in_streams once
report_assert "$O/once.json" \
	"len(d['approvals']) == 1 and d['approvals'][0]['how'] == 'tty' and d['approvals'][0]['for'] == 'once'" \
	"len(denials('external_network', '203.0.113.7:80')) == 1" \
	"denial['source'] == 'approval'"
trace_assert "$O/once.jsonl" \
	"[e['rule'] for e in ops('external_network')] == ['approval:tty:once', 'approval:tty:once']" \
	"[e['decision'] for e in ops('external_network')] == ['allow', 'deny']"

# 2. allow for this run: one prompt, three connects through.
start run 3
wait_for "allow once" 1
tm send-keys r Enter
wait_done run
[ "$(cat "$O/run.out")" = "ENETUNREACH ENETUNREACH ENETUNREACH" ] || fail "allow for the run: connects saw '$(cat "$O/run.out")'"
[ "$(pane | grep -c 'allow once')" = 1 ] || fail "allow for the run: asked more than once"
report_assert "$O/run.json" "not denials()" "d['approvals'][0]['for'] == 'run' and d['approvals'][0]['count'] == 3"

# 3. deny for this run: one prompt, both denied.
start never 2
wait_for "allow once" 1
tm send-keys n Enter
wait_done never
[ "$(cat "$O/never.out")" = "EPERM EPERM" ] || fail "deny for the run: connects saw '$(cat "$O/never.out")'"
[ "$(pane | grep -c 'allow once')" = 1 ] || fail "deny for the run: asked more than once"

# 4. No answer: denied when the timeout passes.
start late 1 --approval-timeout 1
wait_done late
[ "$(cat "$O/late.out")" = "EPERM" ] || fail "timeout: connect saw '$(cat "$O/late.out")'"
pane | grep -q "no answer in time" || { pane >&2; fail "timeout: not said on the terminal"; }
report_assert "$O/late.json" "denial['nextAction'] == 'request_approval'" "'no answer in time' in denial['reason']"
# 5. The terminal's input stays the command's outside a question: a line
#    typed after the answer reaches the command.
cat > "$W/readline.sh" <<'SH2'
"$1" net2.py 1
read line
echo "got:$line"
SH2
cat > "$O/rl.run" <<SH
unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "\$@"' sh \
	timeout --foreground -k 5 60 "$CAPWATCH" --report "$O/rl.json" -- sh readline.sh "$CW_PY" >"$O/rl.out" 2>"$O/rl.err"
touch "$O/rl.done"
sleep 30
SH
tm kill-server 2>/dev/null
TS=$T/tmux-rl.sock
tm new-session -d -x 200 -y 50 -c "$W" "sh '$O/rl.run'" || fail "tmux new-session"
wait_for "allow once" 1
tm send-keys o Enter
sleep 0.5
tm send-keys typed-for-the-command Enter
wait_done rl
[ "$(cat "$O/rl.out")" = "ENETUNREACH
got:typed-for-the-command" ] || fail "terminal input after the answer: command printed '$(cat "$O/rl.out")'"
# 6. A process killed while its question is on the terminal: the question
#    is withdrawn (not answered, not recorded) and the run goes on. The
#    command kills when the test has seen the question and goes on when
#    it has seen it withdrawn (files the test creates: waits for a reason,
#    where it slept 1 s and 2 s).
cat > "$O/kill.run" <<SH
unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "\$@"' sh \
	timeout --foreground -k 5 60 "$CAPWATCH" --report "$O/kill.json" --trace "$O/kill.jsonl" -- \
	sh -c '"$CW_PY" net2.py 1 & p=\$!; until [ -e go.kill ]; do sleep 0.05; done; kill -9 \$p
		until [ -e go.on ]; do sleep 0.05; done; echo after' >"$O/kill.out" 2>"$O/kill.err"
touch "$O/kill.done"
sleep 30
SH
tm kill-server 2>/dev/null
TS=$T/tmux-kill.sock
tm new-session -d -x 200 -y 50 -c "$W" "sh '$O/kill.run'" || fail "tmux new-session"
wait_for "allow once" 1
: >"$W/go.kill"
wait_for "question withdrawn" 1
: >"$W/go.on"
wait_done kill
[ "$(cat "$O/kill.out")" = after ] || fail "killed while asking: the run did not go on"
report_assert "$O/kill.json" "not denials()" "not d['approvals']"
trace_assert "$O/kill.jsonl" "not ops('external_network')"

"$CW_PY" "$top_srcdir/tests/approval/schema_check.py" "$top_srcdir/schemas" "$O"/*.json "$O"/*.jsonl || fail "reports or traces do not match their schemas"
exit 0
