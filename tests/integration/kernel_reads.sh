#!/bin/sh
# Reads decided in the kernel (issue 15, CAPWATCH_KERNEL_READS=1, the
# kernel back end): the tree in a PID namespace of its own with a /proc of
# that namespace and a /dev of a few devices, every other mount nodev; a
# read-only open is decided at its fanotify event, once per inode. Each
# case checks the effect: what the command saw, what was denied, what the
# trace recorded, and that no notification was spent on a plain read.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
[ "$(id -u)" = 0 ] || skip "needs root (the kernel back end)"
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
cw --backend kernel --report "$O/k0.json" -- true 2>"$O/k0.err"
[ "$rc" = 0 ] || skip "no kernel back end here: $(cat "$O/k0.err")"
report_assert "$O/k0.json" "'fanotify-open' in ' '.join(outcome['enforcement']['layers'])" \
	"'pidns' in ' '.join(outcome['enforcement']['layers'])"
H=$T/home
mkdir -p "$H/.ssh" "$W/src"
printf 'int main(void) { return 0; }\n' >"$W/src/a.c"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAkeybytes\n-----END OPENSSH PRIVATE KEY-----\n' >"$H/.ssh/id_ed25519"
ln "$H/.ssh/id_ed25519" "$W/innocent.txt" # a hard link made before the run

# 1. The tree's own PID namespace: its shell is pid 2, capwatch is not in
# its /proc, and the init (pid 1) gives nothing away.
cw --backend kernel --report "$O/1.json" -- sh -c '
	echo "self=$$"
	ls /proc | grep -c "^[0-9]"
	ls /proc | grep -qx "'"$$"'" && echo "sees the test shell"
	ls /proc/1/root/ >/dev/null 2>&1 && echo "init root readable"
	cat /proc/1/environ >/dev/null 2>&1 && echo "init environ readable"
	exit 0' >"$O/1.out" 2>"$O/1.err"
expect_rc 0 "pid namespace"
grep -qx 'self=2' "$O/1.out" || fail "the command is not pid 2 of its namespace: $(cat "$O/1.out")"
n=$(sed -n 2p "$O/1.out")
[ "$n" -le 5 ] || fail "the tree's /proc lists $n processes: not its own namespace's"
grep -q 'sees the test shell\|readable' "$O/1.out" && fail "outside the tree is visible: $(cat "$O/1.out")"

# 2. /dev holds the harmless devices and no other; no device node opens
# anywhere else (nodev), even one the host made in the workspace.
mknod "$W/zero2" c 1 5 2>/dev/null || true
cw --backend kernel --report "$O/2.json" -- sh -c '
	ls /dev | tr "\n" " "; echo
	head -c 4 /dev/zero | od -An -tx1
	echo x >/dev/null && echo null-ok
	[ -e /dev/sda ] || [ -e /dev/vda ] || [ -e /dev/mem ] || [ -e /dev/kmsg ] || echo no-disks
	if [ -c ./zero2 ]; then head -c 1 ./zero2 >/dev/null 2>&1 && echo zero2-opened; fi
	exit 0' >"$O/2.out" 2>&1
expect_rc 0 "minimal /dev"
grep -q 'null-ok' "$O/2.out" || fail "/dev/null does not work: $(cat "$O/2.out")"
grep -q 'no-disks' "$O/2.out" || fail "a disk or /dev/mem is in the tree's /dev: $(cat "$O/2.out")"
grep -q ' 00 00 00 00' "$O/2.out" || fail "/dev/zero does not read: $(cat "$O/2.out")"
grep -q 'zero2-opened' "$O/2.out" && fail "a device node outside /dev opened (no nodev)"

# 3. Secrets: by name, by identity (a hard link made before the run), by
# content (a key written into a file the tree read before), and through a
# name made during the run (a rename): each denied (EPERM) and recorded
# with "via": "fanotify" (its source stays seccomp); an ordinary file read 200 times is one event.
printf 'plain\n' >"$W/notes.txt"
HOME=$H cw --backend kernel --profile verify --report "$O/3.json" --trace "$O/3.jsonl" -- sh -c '
	cat "$HOME/.ssh/id_ed25519" >/dev/null 2>&1 && echo by-name-read
	cat innocent.txt >/dev/null 2>&1 && echo by-link-read
	cat notes.txt >/dev/null || echo notes-failed
	i=0; while [ $i -lt 200 ]; do read l <src/a.c; i=$((i+1)); done
	printf -- "-----BEGIN RSA PRIVATE KEY-----\nMIIxx\n-----END RSA PRIVATE KEY-----\n" >notes.txt
	cat notes.txt >/dev/null 2>&1 && echo by-content-read
	printf "API_KEY=x\n" >plain.cfg; cat plain.cfg >/dev/null || echo cfg-failed
	mv plain.cfg .env; cat .env >/dev/null 2>&1 && echo by-rename-read
	exit 0' >"$O/3.out" 2>"$O/3.err"
expect_rc 0 "secrets"
for w in by-name-read by-link-read by-content-read by-rename-read notes-failed cfg-failed; do
	grep -q "$w" "$O/3.out" && fail "$w: $(cat "$O/3.out")"
done
report_assert "$O/3.json" \
	"denials('filesystem_read', real('$H/.ssh/id_ed25519'))" \
	"denials('filesystem_read', real('$W/innocent.txt'))" \
	"denials('filesystem_read', real('$W/notes.txt'))" \
	"denials('filesystem_read', real('$W/.env'))"
trace_assert "$O/3.jsonl" \
	"all(e['source'] == 'seccomp' and e.get('via') == 'fanotify' for e in ops(decision='deny') if e.get('capability') == 'filesystem_read')" \
	"all(e['errno'] == 'EPERM' for e in ops(decision='deny') if e.get('capability') == 'filesystem_read')" \
	"len([e for e in ops(resolved=real('$W/src/a.c'))]) == 1" \
	"not [e for e in ops(resolved=real('$W/src/a.c')) if e.get('via') != 'fanotify']"
# The report and the trace keep their schemas (a read's "source" is one of
# the contract's; "via" says where it was decided).
"$PYTHON3" "$top_srcdir/tests/unit/schema_check.py" --report "$O/3.json" --trace "$O/3.jsonl"
case $? in
	0) ;;
	77) echo "# schema_check.py skipped (no jsonschema module)" >&2 ;;
	*) fail "report or trace of reads in the kernel does not validate" ;;
esac

# 4. Pids in arguments are the namespace's: a child is signalled, the
# init and a process outside (the test's own shell) are process_control.
# The child is waited for before the next kill: its SIGCHLD, arriving
# while that kill waits to be received, would make it fail with EINTR
# (the kernel back end's known EINTR, capwatch(1) "Signals";
# tests/integration/eintr.sh) and no decision would be made.
sleep 30 &
outside=$!
cw --backend kernel --profile verify --report "$O/4.json" -- sh -c '
	sleep 30 & c=$!
	kill $c && wait $c; echo child-killed $?
	kill -0 1 2>/dev/null && echo init-reached
	kill -0 '"$outside"' 2>/dev/null && echo outside-reached
	exit 0' >"$O/4.out" 2>&1
kill "$outside" 2>/dev/null
expect_rc 0 "pids"
grep -q "child-killed 143" "$O/4.out" || fail "the command could not signal its child: $(cat "$O/4.out")"
grep -q 'init-reached\|outside-reached' "$O/4.out" && fail "a signal left the tree: $(cat "$O/4.out")"
report_assert "$O/4.json" "denials('process_control', '1')"

# 5. What a build does still works: a compiler, a pty, a python start
# (its CA bundle is a certificate, not a secret).
if command -v cc >/dev/null 2>&1; then
	cw --backend kernel --profile verify --report "$O/5.json" -- sh -c 'cc -o a.out src/a.c && ./a.out' >"$O/5.out" 2>&1
	expect_rc 0 "cc under reads in the kernel: $(cat "$O/5.out")"
	report_assert "$O/5.json" "not d['denials']"
fi
cw --backend kernel --profile verify --report "$O/6.json" -- "$PYTHON3" -c '
import os, pty
m, s = pty.openpty(); os.write(s, b"hi\n"); assert os.read(m, 2) == b"hi"
print("ok", os.ttyname(s))' >"$O/6.out" 2>&1
expect_rc 0 "a pty: $(cat "$O/6.out")"
grep -q '^ok /dev/pts/' "$O/6.out" || fail "a pty: $(cat "$O/6.out")"
report_assert "$O/6.json" "not d['denials']"

# 7. A read is recorded with the thread that opened (FAN_REPORT_TID), as
# under the portable back end: a second thread's read has a tid of its
# own, the main thread's is its process's.
printf 'a\n' >"$W/by-thread.txt"
printf 'b\n' >"$W/by-main.txt"
cw --backend kernel --profile verify --report "$O/7.json" --trace "$O/7.jsonl" -- "$PYTHON3" -c '
import threading
t = threading.Thread(target=lambda: open("by-thread.txt").read()); t.start(); t.join()
open("by-main.txt").read()
print("ok")' >"$O/7.out" 2>&1
expect_rc 0 "reads by two threads: $(cat "$O/7.out")"
trace_assert "$O/7.jsonl" \
	"len(ops(resolved=real('$W/by-thread.txt'))) == 1" \
	"all(e['tid'] != e['pid'] for e in ops(resolved=real('$W/by-thread.txt')))" \
	"len(ops(resolved=real('$W/by-main.txt'))) == 1" \
	"all(e['tid'] == e['pid'] and e.get('via') == 'fanotify' for e in ops(resolved=real('$W/by-main.txt')))"
exit 0
