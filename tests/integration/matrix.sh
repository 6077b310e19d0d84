#!/bin/sh
# The built-in profile table of contract section 3, row by row: one real
# operation per capability under readonly, verify, repair and observe, the
# errno the operation got (allowed: its natural result; denied: EACCES for
# files, EPERM otherwise) and the report's decision. Runs in a private
# network namespace (the network rows connect to 203.0.113.7 and to a closed
# loopback port).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
cw_workdir
mkdir "$T/outside" .git
echo data > plain.txt
echo 'TOKEN=x' > .env
sleep 987657 &
victim=$!
trap 'kill $victim 2>/dev/null; rm -rf "$T"' EXIT

cat > op.py <<'PY'
import errno, os, socket, sys
op, arg = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
try:
	if op == "read":
		open(arg, "rb").read()
	elif op == "write":
		open(arg, "w").write("x")
	elif op == "spawn":
		pid = os.fork()
		if pid == 0:
			try:
				os.execv("/bin/true", ["/bin/true"])
			except OSError as e:
				os._exit(100 + e.errno)
		_, st = os.waitpid(pid, 0)
		code = os.waitstatus_to_exitcode(st)
		if code >= 100:
			raise OSError(code - 100, "exec")
	elif op == "loopback":
		s = socket.socket(); s.connect(("127.0.0.1", 9))
	elif op == "bind":
		# a local address that is not loopback (the wildcard is bound
		# on loopback under a profile that allows loopback only)
		s = socket.socket(); s.bind(("192.0.2.10", 0)); s.listen(1)
	elif op == "external":
		s = socket.socket(); s.settimeout(5); s.connect(("203.0.113.7", 80))
	elif op == "signal":
		os.kill(int(arg), 0)
except OSError as e:
	print(errno.errorcode.get(e.errno, str(e.errno)))
	sys.exit(0)
print("OK")
PY

# row CAP OP ARG ALLOWED_RESULT DENIED_ERRNO readonly verify repair observe
# (each profile column: allow | deny | ask; ask without a terminal denies)
n=0
row() {
	cap=$1 op=$2 arg=$3 okres=$4 denres=$5; shift 5
	for prof in readonly verify repair observe; do
		want=$1; shift
		n=$((n + 1))
		in_netns_addr setsid -w timeout -k 5 60 "$CAPWATCH" --profile $prof --report "$O/m$n.json" \
			-- "$CW_PY" op.py $op $arg >"$O/m$n.out" </dev/null 2>/dev/null
		got=$(cat "$O/m$n.out")
		case $want in
		allow)
			[ "$got" = "$okres" ] || fail "$prof / $cap ($op): got $got, expected the operation's own result $okres"
			report_assert "$O/m$n.json" "not denials('$cap')" ;;
		deny|ask)
			# a read decided at its fanotify event (CAPWATCH_KERNEL_READS=1,
			# now also inside this netns: the kernel back end runs there)
			# is refused with fanotify's EPERM, as in secrets.sh
			_den=$denres
			[ "$op" = read ] && grep -q fanotify-open "$O/m$n.json" && _den=EPERM
			# and there the tree has a PID namespace of its own: a
			# process outside it has no number to signal (ESRCH, nothing
			# to decide; tests/escapes esc_outside_refused)
			if [ "$op" = signal ] && grep -q pidns "$O/m$n.json"; then
				[ "$got" = ESRCH ] || fail "$prof / $cap ($op): got $got, expected ESRCH (outside the tree's PID namespace)"
				continue
			fi
			[ "$got" = "$_den" ] || fail "$prof / $cap ($op): got $got, expected $_den (denied)"
			report_assert "$O/m$n.json" "denials('$cap')" "kind(denial['capability']) == '$cap'" \
				"denial['nextAction'] == ('request_approval' if '$want' == 'ask' else 'change_command')" ;;
		esac
	done
}
#   capability           op       arg                  allowed      denied  ro    verify repair observe
row filesystem_read      read     plain.txt            OK           EACCES  allow allow  allow  allow
row filesystem_read      read     .env                 OK           EACCES  deny  deny   deny   allow
row workspace_write      write    new.txt              OK           EACCES  deny  allow  allow  allow
row protected_metadata   write    .git/config          OK           EACCES  deny  deny   deny   allow
row process_spawn        spawn    -                    OK           EACCES  allow allow  allow  allow
row isolated_loopback    loopback -                    ECONNREFUSED EPERM   deny  allow  deny   allow
row host_visible_binding bind     -                    OK           EPERM   deny  deny   deny   allow
row external_network     external -                    ENETUNREACH  EPERM   deny  ask    deny   allow
row process_control      signal   "$victim"            OK           EPERM   deny  deny   deny   allow
row unrestricted         write    "$T/outside/x"       OK           EACCES  deny  deny   deny   allow
kill -0 $victim || fail "the signal probe (signal 0) killed the outside process"
exit 0
