#!/bin/sh
# The two back ends (issue 15): --backend kernel|portable|auto, named in
# the report with the reason; the kernel one tracks the tree without ptrace
# (exit statuses of grandchildren and orphans, a fork that never execs),
# refuses to start where it cannot run, and its sentinel ends the tree when
# capwatch itself is killed.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"

# 1. portable, by name.
cw --backend portable --report "$O/p.json" -- true
expect_rc 0 "--backend portable"
report_assert "$O/p.json" "outcome['enforcement']['backend'] == 'seccomp-unotify+ptrace'" \
	"outcome['enforcement']['backendReason'] == '--backend portable'" \
	"'ptrace' in outcome['enforcement']['layers']"

# 2. auto: the report says which and why (the binary itself: CW_BACKEND
# may have put a wrapper in front of it).
"${CAPWATCH_REAL:-$CAPWATCH}" --report "$O/a.json" -- true
rc=$?
expect_rc 0 "--backend auto"
report_assert "$O/a.json" "outcome['enforcement']['backendReason'].startswith('auto')" \
	"outcome['enforcement']['backend'] in ('seccomp-unotify+ptrace', 'seccomp-unotify+cgroup+fanotify')"

# 3. An unknown name is a usage error naming the option.
cw --backend turbo -- true 2>"$O/u.err"
expect_rc 125 "--backend turbo"
grep -q -- '--backend' "$O/u.err" || fail "the usage error does not name --backend: $(cat "$O/u.err")"

# 4. Where the kernel back end cannot run, asking for it fails (125), one
# line naming why; auto falls back and says why.
user=nobody
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id "$user" >/dev/null 2>&1 &&
	setpriv --reuid "$(id -u $user)" --regid "$(id -g $user)" --clear-groups test -x "$CAPWATCH"; then
	# (reports through a descriptor this shell opened: $O is root's)
	cd /tmp || fail "cd /tmp"
	setpriv --reuid "$(id -u $user)" --regid "$(id -g $user)" --clear-groups --inh-caps=-all \
		"$CAPWATCH" --backend kernel -- true 2>"$O/n.err"
	rc=$?
	expect_rc 125 "--backend kernel as $user"
	[ "$(wc -l <"$O/n.err")" = 1 ] && grep -q '^capwatch: --backend kernel: needs root' "$O/n.err" ||
		fail "not one line naming why: $(cat "$O/n.err")"
	setpriv --reuid "$(id -u $user)" --regid "$(id -g $user)" --clear-groups --inh-caps=-all \
		"${CAPWATCH_REAL:-$CAPWATCH}" --report-fd 3 -- true 3>"$O/n2.json" 2>/dev/null
	rc=$?
	expect_rc 0 "auto as $user"
	report_assert "$O/n2.json" "outcome['enforcement']['backend'] == 'seccomp-unotify+ptrace'" \
		"outcome['enforcement']['backendReason'].startswith('auto: kernel back end unavailable: needs root')"
	cd "$W" || fail "cd $W"
fi

# The rest needs the kernel back end.
"$CAPWATCH" --backend kernel --report "$O/k0.json" -- true 2>"$O/k0.err" ||
	skip "no kernel back end here: $(cat "$O/k0.err")"
report_assert "$O/k0.json" "outcome['enforcement']['backend'] == 'seccomp-unotify+cgroup+fanotify'" \
	"'ptrace' not in outcome['enforcement']['layers']" "not outcome['enforcement']['degraded']"

# 4b. In a PID namespace of its own the proc connector is silent: the
# kernel back end is refused there (it would lose every fork and exec).
if unshare -pfm --mount-proc true 2>/dev/null; then
	unshare -pfm --mount-proc "${CAPWATCH_REAL:-$CAPWATCH}" --backend kernel -- true 2>"$O/pidns.err"
	rc=$?
	expect_rc 125 "--backend kernel in a PID namespace"
	grep -q 'proc connector sends no events' "$O/pidns.err" || fail "no reason given: $(cat "$O/pidns.err")"
fi

# 5. Exit statuses without ptrace: a grandchild, a fork that never execs,
# an orphan that outlives its parent (capwatch waits for it, then reports).
cw --backend kernel --profile verify --report "$O/t.json" --trace "$O/t.jsonl" -- sh -c \
	'sh -c "exit 7"; (exit 3); (sleep 0.3; echo orphan > orphan.txt; exit 9) & exit 0'
expect_rc 0 "the tree"
[ "$(cat orphan.txt 2>/dev/null)" = orphan ] || fail "capwatch ended before the orphan did"
report_assert "$O/t.json" "outcome['kind'] == 'success'" \
	"[p['exit']['code'] for p in d['processes'] if p['argv'] == ['sh', '-c', 'exit 7']] == [7]" \
	"3 in [p['exit']['code'] for p in d['processes'] if p.get('exit')]" \
	"9 in [p['exit']['code'] for p in d['processes'] if p.get('exit')]" \
	"all(p.get('exit') for p in d['processes'])"
trace_assert "$O/t.jsonl" "len([e for e in ev if e['type'] == 'spawn']) >= 3" \
	"execs('/usr/bin/sleep')[0]['argv'] == ['sleep', '0.3']"

# 6. A denial decided on the file opened for exec: a #! interpreter the
# profile does not allow fails the exec (the script never runs it).
printf '#!%s\n' "$W/interp" >script
cp /bin/sh interp
chmod +x script interp
cat >"$T/noint.json" <<EOF
{"name": "noint", "extends": "verify", "capabilities": {"process_spawn": {"deny": ["$W/interp"]}}}
EOF
cw --backend kernel --profile "$T/noint.json" --report "$O/i.json" -- sh -c './script; echo "rc=$?"' >"$O/i.out" 2>/dev/null
expect_rc 0 "a denied interpreter"
grep -q '^rc=126$' "$O/i.out" || fail "the exec through a denied interpreter did not fail: $(cat "$O/i.out")"
report_assert "$O/i.json" "denied_run()" "denials('process_spawn', '$W/interp')"

# 6b. The fanotify reader answers an allowed program's first exec event
# itself when it is the very file the exec notification allowed (held
# open since), and its system loader, without the decider (kernel.c
# fan_fast): five dynamically linked execs, each counted by capwatch -vv.
# The interpreter of 6 (not the system's loader) still went to the
# decider, which denied it by name.
cw --backend kernel --profile verify -vv --report "$O/f.json" -- \
	sh -c 'for i in 1 2 3 4 5; do /bin/true; done' 2>"$O/f.err"
expect_rc 0 "five execs"
counts=$(sed -n 's/.*kernel back end: \([0-9]*\) exec events decided, \([0-9]*\) loaders allowed by the reader, \([0-9]*\) members vouched for by their exec notification, \([0-9]*\) programs allowed by the reader.*/\1 \2 \3 \4/p' "$O/f.err")
set -- $counts
[ $# = 4 ] || fail "no counts of the exec events in -vv: $(grep 'kernel back end' "$O/f.err")"
[ "$2" -ge 5 ] && [ "$4" -ge 5 ] ||
	fail "the reader did not answer the programs and their loaders: decided $1, loaders $2, vouched $3, programs $4"
report_assert "$O/f.json" "len([p for p in d['processes'] if p.get('exe') == '/usr/bin/true']) == 5"

# 6c. An exec made by a thread other than the process's leader: the kernel
# ends the leader first (de_thread), and the connector reports that exit
# before the exec. The exec is still the process's, recorded with its
# program and argv and exit status (e173: it was ignored).
cw --backend kernel --profile verify --report "$O/t.json" -- "$PYTHON3" -c '
import os, threading, time
threading.Thread(target=lambda: os.execv("/bin/echo", ["echo", "from-a-thread"])).start()
time.sleep(30)' >"$O/t.out" 2>&1
expect_rc 0 "an exec from a thread"
grep -q '^from-a-thread$' "$O/t.out" || fail "the thread's exec did not run: $(cat "$O/t.out")"
report_assert "$O/t.json" "any(p.get('exe') == '/usr/bin/echo' and p.get('argv') == ['echo', 'from-a-thread'] and (p.get('exit') or {}).get('code') == 0 for p in d['processes'])"

# 7. capwatch killed outright: the sentinel ends the tree (setsid'd too).
rm -f pids
# (Found by a token in their command lines, not by the pids they print:
# under CAPWATCH_KERNEL_READS those are their own PID namespace's.)
tok=cw-backend-tree-$$
"$CAPWATCH" --backend kernel --profile verify -- sh -c 'setsid sh -c "sleep 300; : $1" & echo "$$ $!" > pids; wait; : $1' sh "$tok" \
	</dev/null >/dev/null 2>&1 &
cwpid=$!
i=0
while [ ! -s pids ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s pids ] || { kill -9 "$cwpid"; fail "the command did not start"; }
kill -9 "$cwpid"
wait "$cwpid" 2>/dev/null
i=0
gone=no
while [ $i -lt 200 ]; do
	alive=0
	pgrep -f -- "$tok" >/dev/null && alive=1
	[ $alive = 0 ] && { gone=yes; break; }
	sleep 0.05
	i=$((i + 1))
done
if [ $gone = no ]; then
	for p in $(pgrep -f -- "$tok"); do kill -9 "$p" 2>/dev/null; done
	fail "the tree outlived its killed supervisor"
fi
exit 0
