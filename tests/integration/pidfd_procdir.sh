#!/bin/sh
# pidfd_send_signal on a descriptor of a /proc/PID directory (issue 17
# item 4; CPython's test_signal.PidfdSignalTest): the kernel accepts one as
# a pidfd, so capwatch must too. Signalling itself works as bare; a
# descriptor that is neither gets EBADF as bare; a /proc directory of a
# process outside the tree (capwatch's parent shell, signal 0 only) is
# process_control: since e122 (a swapped /proc/VICTIM descriptor under
# the decided pidfd's number) the open of that directory is refused
# already (fs_special.c), so no descriptor of it exists to signal
# through; bare, the open works and so does the signal.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
cat >"$T/p.py" <<'EOF2'
import os, signal, sys
# SIGINT raises KeyboardInterrupt even if the test's launcher ignored it
# (a background job of a shell does)
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    signal.pidfd_send_signal(0, signal.SIGINT)
    print("fd0 sent")
except OSError as e:
    print("fd0 errno", e.errno)
fd = os.open("/proc/%d" % os.getpid(), os.O_DIRECTORY)
try:
    signal.pidfd_send_signal(fd, signal.SIGINT)
    print("self: no signal")
except KeyboardInterrupt:
    print("self ok")
try:
    out = os.open("/proc/%s" % sys.argv[1], os.O_DIRECTORY)
except OSError as e:
    print("outside open errno", e.errno)
else:
    try:
        signal.pidfd_send_signal(out, 0)
        print("outside sent")
    except OSError as e:
        print("outside errno", e.errno)
EOF2
"$CW_PY" "$T/p.py" $$ >"$O/bare.out" 2>&1
grep -q '^self ok$' "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: pidfd_send_signal on /proc/self did not deliver"; }
grep -q '^outside sent$' "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: signal 0 through /proc/\$\$ failed"; }
cw --profile verify --report "$O/r.json" -- "$CW_PY" "$T/p.py" $$ >"$O/out" 2>"$O/err"
cat "$O/out" >&2
grep -q '^fd0 errno 9$' "$O/out" || fail "fd 0 (not a pidfd) did not get EBADF"
grep -q '^self ok$' "$O/out" || fail "pidfd_send_signal on a /proc/PID directory of the command itself failed"
if grep -q fanotify-open "$O/r.json"; then
	# The tree in a PID namespace of its own (CAPWATCH_KERNEL_READS=1):
	# its /proc has no directory of a process outside; its own
	# directory's number is the namespace's (translated by capwatch).
	grep -q '^outside open errno 2$' "$O/out" || fail "a process outside the tree has a /proc directory in the tree's /proc"
	report_assert "$O/r.json" "len(d['denials']) == 0"
	# Its init's directory exists there: a signal through it is
	# process_control (the init is capwatch's, not the command's).
	cw --profile verify --report "$O/i.json" -- "$CW_PY" "$T/p.py" 1 >"$O/i.out" 2>"$O/i.err"
	cat "$O/i.out" >&2
	grep -q '^outside errno 1$' "$O/i.out" || fail "a signal through the init's /proc directory was not refused with EPERM"
	report_assert "$O/i.json" \
		"any(x['syscall'] == 'pidfd_send_signal' and x['capability']['kind'] == 'process_control' for x in d['denials'])"
	exit 0
fi
grep -q '^outside open errno 1$' "$O/out" || fail "the /proc/PID directory of a process outside the tree was not refused with EPERM"
report_assert "$O/r.json" \
	"any(x['syscall'] == 'openat' and x['capability']['kind'] == 'process_control' and x['capability']['scope'] == '$$' for x in d['denials'])" \
	"len(d['denials']) == 1"
exit 0
