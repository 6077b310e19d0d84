#!/bin/sh
# explain summarises a trace (and a report): tree, capabilities, denials.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
set -e
"$GEN" build verify >"$T/b.jsonl"
run_cw "$T/out" "$T/err" explain "$T/b.jsonl"
expect_rc 0 "explain"
# summary
has "$T/out" "under profile \"verify\""
has "$T/out" "run: 5 processes"
has "$T/out" "outcome: denied / enforcement_denied"
has "$T/out" "denials: 3"
# tree: children indented under their parents
grep -q "^  100 /usr/bin/sh: sh -c 'make && ./test.sh' \[exit 1\]" "$T/out" || fail "root of the tree"
grep -q "^    101 /usr/bin/make: make \[exit 0\]" "$T/out" || fail "child of the tree"
grep -q "^      102 /usr/bin/gcc: gcc -c a.c -o out/a.o \[exit 0\]" "$T/out" || fail "grandchild of the tree"
# capabilities per process
has "$T/out" "102 gcc: filesystem_read 9 scopes (9 uses), workspace_write 2 scopes (2 uses)"
# denials with their rules
has "$T/out" "pid 104 test.sh openat unrestricted /etc/hosts: deny"
has "$T/out" "rule verify:unrestricted:default"
has "$T/out" "rule verify:filesystem_read_secret:default"
has "$T/out" "curl connect external_network 203.0.113.7:80"
# not a terminal: no colour
if grep -q "$(printf '\033')" "$T/out"; then fail "colour when stdout is not a tty"; fi

# observe: allowed secret reads are flagged
"$GEN" build observe >"$T/o.jsonl"
run_cw "$T/out" "$T/err" explain "$T/o.jsonl"
expect_rc 0 "explain of an observe run"
has "$T/out" "flagged: 1 allowed but worth a look (1 secret reads"
has "$T/out" "filesystem_read /home/u/.ssh/id_rsa (rule observe:filesystem_read_secret:default)"
has "$T/out" "denials: 0"

# on a terminal: colour, unless NO_COLOR is set
if command -v script >/dev/null 2>&1; then
	script -qec "'$CW' explain '$T/b.jsonl'" /dev/null >"$T/tty" 2>&1 || true
	grep -q "$(printf '\033')\[" "$T/tty" || fail "no colour on a terminal"
	NO_COLOR=1 script -qec "'$CW' explain '$T/b.jsonl'" /dev/null >"$T/tty" 2>&1 || true
	has "$T/tty" "process tree"
	if grep -q "$(printf '\033')" "$T/tty"; then fail "colour on a terminal with NO_COLOR set"; fi
else
	echo "note: script(1) missing, colour on a terminal not checked" >&2
fi

# a hostile path cannot reach the terminal as control characters
"$GEN" script verify >"$T/s.jsonl"
"$PYTHON3" - "$T/s.jsonl" <<'P'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines()
lines[-2] = lines[-2]  # keep
lines.insert(2, '{"type":"note","seq":99,"time":0.5,"pid":200,"level":"warning","message":"evil \\u001b]0;pwned\\u0007 title"}')
open(p, "w").write("\n".join(lines) + "\n")
P
run_cw "$T/out" "$T/err" explain "$T/s.jsonl"
expect_rc 0 "explain of a hostile trace"
if grep -q "$(printf '\033')" "$T/out"; then fail "an escape character reached the output"; fi
has "$T/out" '\x1b]0;pwned'

# a report: processes and denials from the report itself
cat >"$T/r.json" <<'R'
{
  "schema": "capwatch.report/v1", "policyVersion": 1, "profile": "readonly",
  "command": {"name": "./build.sh", "args": ["all"]},
  "outcome": {"state": "denied", "kind": "enforcement_denied", "exit": {"code": 2}},
  "denials": [{"pid": 11, "program": "/usr/bin/curl", "syscall": "connect",
               "capability": "external_network", "scope": "203.0.113.7:443",
               "rule": "readonly:external_network:default", "time": 0.2, "host": "example.com"}],
  "processes": [{"pid": 10, "ppid": 1, "argv": ["./build.sh", "all"], "exe": "/ws/build.sh",
                 "exit": {"code": 2}, "start": 0, "end": 0.3},
                {"pid": 11, "ppid": 10, "argv": ["curl", "https://example.com/"], "exe": "/usr/bin/curl",
                 "exit": {"code": 7}, "start": 0.1, "end": 0.25}],
  "capabilitiesUsed": [{"kind": "external_network", "scope": "203.0.113.7:443", "count": 1}],
  "stats": {"events": 10, "notifications": 5, "elapsed": 0.3}
}
R
run_cw "$T/out" "$T/err" explain "$T/r.json"
expect_rc 0 "explain of a report"
has "$T/out" "report of \`./build.sh all\` under profile \"readonly\""
grep -q "^    11 /usr/bin/curl: curl https://example.com/ \[exit 7\]" "$T/out" || fail "report tree"
has "$T/out" "rule readonly:external_network:default; host example.com"

# a big trace: quick, and the summary stays short
"$GEN" big 50000 verify >"$T/big.jsonl"
start=$(date +%s)
run_cw "$T/out" "$T/err" explain "$T/big.jsonl"
end=$(date +%s)
expect_rc 0 "explain of a 50,000-event trace"
[ $((end - start)) -le 10 ] || fail "explain took $((end - start)) s on 50,000 events"
# the summary (up to the first blank line) fits in about 20 lines
n=$(awk 'NF == 0 { exit } { n++ } END { print n }' "$T/out")
[ "$n" -le 22 ] || fail "summary is $n lines"
has "$T/out" "programs (3): "
has "$T/out" "... and "
[ "$(wc -l <"$T/out")" -le 200 ] || fail "explain printed $(wc -l <"$T/out") lines for a big trace"
run_cw "$T/out" "$T/err" explain --all "$T/big.jsonl"
[ "$(grep -c '^  seq ' "$T/out")" -eq 50 ] || fail "--all shows every denial"

# A child that forks without exec runs its parent's program: explain names
# it so, not "?" (issue 17 item 14).
cat >"$T/fk.jsonl" <<'EOF2'
{"type":"header","schema":"capwatch.trace/v1","version":1,"profile":"verify","roots":["/w"],"command":{"name":"python3","args":[]},"kernel":"x","start":"2026-12-01T00:00:00Z"}
{"type":"spawn","seq":1,"time":0.001,"pid":100,"ppid":1,"tid":100,"via":"fork"}
{"type":"exec","seq":2,"time":0.002,"pid":100,"ppid":1,"exe":"/usr/bin/python3.11","argv":["python3"],"preload":"unknown"}
{"type":"spawn","seq":3,"time":0.003,"pid":101,"ppid":100,"tid":101,"via":"fork"}
{"type":"exit","seq":4,"time":0.004,"pid":101,"code":0}
{"type":"exit","seq":5,"time":0.005,"pid":100,"code":0}
EOF2
run_cw "$T/out" "$T/err" explain "$T/fk.jsonl"
has "$T/out" "101 /usr/bin/python3.11"
hasnt "$T/out" "101 ?"
# Which denial explains the outcome (issue 17 item 11): pid 100's secret
# read is tolerated (it exited 0); of pid 101's two, the ask
# (request_approval) heads though the other one is later.
cat >"$T/hd.jsonl" <<'EOF2'
{"type":"header","schema":"capwatch.trace/v1","version":1,"profile":"verify","roots":["/w"],"command":{"name":"sh","args":[]},"kernel":"x","start":"2026-12-01T00:00:00Z"}
{"type":"spawn","seq":1,"time":0.001,"pid":100,"ppid":1,"tid":100,"via":"fork"}
{"type":"op","seq":2,"time":0.002,"pid":100,"ppid":1,"tid":100,"source":"seccomp","syscall":"openat","op":"open","capability":"filesystem_read","scope":"/w/.env","decision":"deny","rule":"verify:filesystem_read_secret:default","next_action":"change_command"}
{"type":"spawn","seq":3,"time":0.003,"pid":101,"ppid":100,"tid":101,"via":"fork"}
{"type":"op","seq":4,"time":0.004,"pid":101,"ppid":100,"tid":101,"source":"seccomp","syscall":"connect","op":"connect","capability":"external_network","scope":"203.0.113.7:443","decision":"deny","rule":"verify:external_network:default","next_action":"request_approval"}
{"type":"op","seq":5,"time":0.005,"pid":101,"ppid":100,"tid":101,"source":"seccomp","syscall":"openat","op":"open","capability":"filesystem_read","scope":"/w/.env","decision":"deny","rule":"verify:filesystem_read_secret:default","next_action":"change_command"}
{"type":"exit","seq":6,"time":0.006,"pid":101,"code":1}
{"type":"exit","seq":7,"time":0.007,"pid":100,"code":0}
EOF2
run_cw "$T/out" "$T/err" explain "$T/hd.jsonl"
has "$T/out" "denials: 3 (1 tolerated: the process went on and exited 0)"
has "$T/out" "explains the outcome: pid 101 ? connect external_network 203.0.113.7:443"
grep -q "seq 2 .*/w/.env: deny (tolerated" "$T/out" || fail "the tolerated denial is not marked"
grep -q "seq 5 .*/w/.env: deny$" "$T/out" || fail "an untolerated denial is marked tolerated"
exit 0
