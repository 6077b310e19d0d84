#!/bin/sh
# Kernel back end red team: disarm the sentinel, then outlive capwatch.
#
# The sentinel (kernel.c sentinel_start) is a child of capwatch outside
# the run's cgroup; it blocks every signal but SIGKILL and writes
# cgroup.kill when capwatch's end of its pipe closes. The tree finds it
# (a process whose parent is the tree's parent, capwatch, named
# capwatch-sentinel in /proc/PID/stat) and tries, in order:
# SIGSTOP, SIGKILL, pidfd_open + pidfd_send_signal(SIGKILL),
# prlimit64(RLIMIT_CPU 0/0: the kernel's own SIGKILL at the next tick),
# setpriority 19, and the pidfd-like directory /proc/PID (e122).
# Then the test SIGKILLs capwatch: a tree member that would act 3 s later
# (create $W/LATE) must be gone (the test waits for its lock).
# Positive control: the same tries against a victim the test started.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
cat >"$T/disarm.py" <<'PY'
import os, sys, signal, resource, time
if sys.argv[1] == "find":
    cw = os.getppid()
    pid = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            st = open("/proc/%s/stat" % d).read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        if ppid == cw and comm.startswith("capwatch-sentin"):
            pid = int(d)
    print("SENTINEL", pid, flush=True)
else:
    pid = int(sys.argv[1])
if pid <= 1:
    print("NOTFOUND"); sys.exit(3)
def t(name, fn):
    try:
        fn(); r = "ok"
    except OSError as e:
        r = e.strerror
    print("TRY", name, r, flush=True)
t("sigstop", lambda: os.kill(pid, signal.SIGSTOP))
t("prlimit_cpu", lambda: resource.prlimit(pid, resource.RLIMIT_CPU, (0, 0)))
t("setpriority", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19))
t("procdir_pidfd", lambda: signal.pidfd_send_signal(os.open("/proc/%d" % pid, os.O_RDONLY | os.O_DIRECTORY), signal.SIGKILL))
t("pidfd", lambda: signal.pidfd_send_signal(os.pidfd_open(pid), signal.SIGKILL))
t("sigkill", lambda: os.kill(pid, signal.SIGKILL))
time.sleep(0.5)
try:
    st = open("/proc/%d/stat" % pid).read()
    state = st[st.rindex(")") + 2]
except OSError:
    state = "gone"
print("STATE", state, flush=True)
if len(sys.argv) > 2:
    # A member that acts after capwatch is gone: 3 s on. It holds a lock
    # on LATE.lock for its life (the test takes it once it is gone) and
    # says so before READY.
    if os.fork() == 0:
        import fcntl
        os.setsid()
        fd = os.open(sys.argv[2] + ".lock", os.O_WRONLY | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        open(sys.argv[2] + ".held", "w").close()
        time.sleep(3)
        open(sys.argv[2], "w").close()
        os._exit(0)
    end = time.time() + 30
    while not os.path.exists(sys.argv[2] + ".held") and time.time() < end:
        time.sleep(0.02)
    print("READY", flush=True)
    time.sleep(60)
PY
# member_gone: after capwatch was SIGKILLed, wait until the member is gone
# (its lock free: at once when the sentinel killed the tree, 3 s on when
# it was left to act), not 5 s whatever happened (issue 16 item 7).
member_gone() {
	[ -e "$W/LATE.held" ] || { cat "$OUT" >&2; fail "the member never held its lock"; }
	flock -w 30 "$W/LATE.lock" true || esc_bypass "a member of the tree was alive 30 s after capwatch was SIGKILLed"
}
victim_start sleep 60
bare "$CW_PY" "$T/disarm.py" "$VICTIM_PID"
victim_alive && esc_control_failed "bare: the victim survived: $(cat "$O/bare.out")"

R=$O/probe.json
if esc_pidns; then
	# The tree's own PID namespace (CAPWATCH_KERNEL_READS=1): the
	# sentinel has no number there, so the tree cannot find it (getppid()
	# is 0, /proc lists the tree only). The attack is handed the host
	# pid, which the test finds from outside (capwatch's child named
	# capwatch-sentin...): each try must fail ESRCH (ENOENT for the
	# /proc/PID directory, EPERM for pidfd_open, decided on the number;
	# capwatch is killed before it writes a report), the sentinel, seen from outside, must run on,
	# and no member may outlive capwatch.
	cat >"$T/wait.py" <<'PY'
import os, sys, time
end = time.time() + 30
while not os.path.exists(sys.argv[1]) and time.time() < end:
    time.sleep(0.05)
pid = open(sys.argv[1]).read().strip()
os.execv(sys.executable, [sys.executable] + sys.argv[2:3] + [pid] + sys.argv[3:])
PY
	R=$O/report.json OUT=$O/cw.out
	"$CAPWATCH" --profile verify --backend kernel --report "$R" -- "$CW_PY" "$T/wait.py" "$T/sentinel" "$T/disarm.py" "$W/LATE" >"$OUT" 2>&1 &
	CWP=$!
	esc_bg_started $CWP
	i=0 S=
	while [ -z "$S" ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && { cat "$OUT" >&2; fail "no sentinel found under capwatch $CWP"; }
		sleep 0.05
		S=$("$CW_PY" - "$CWP" <<'PY'
import os, sys
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        st = open("/proc/%s/stat" % d).read()
    except OSError:
        continue
    comm = st[st.index("(") + 1:st.rindex(")")]
    if st[st.rindex(")") + 2:].split()[1] == sys.argv[1] and comm.startswith("capwatch-sentin"):
        print(d)
PY
)
	done
	echo "$S" >"$T/sentinel.tmp" && mv "$T/sentinel.tmp" "$T/sentinel"
	i=0
	while ! grep -q '^READY' "$OUT"; do
		i=$((i + 1))
		[ $i -gt 200 ] && { cat "$OUT" >&2; fail "the attack did not get ready"; }
		kill -0 $CWP 2>/dev/null || { cat "$OUT" >&2; fail "capwatch ended early"; }
		sleep 0.05
	done
	esc_log "sentinel $S: $(grep -E '^(TRY|STATE)' "$OUT" | tr '\n' ' ')"
	[ "$(grep -c '^TRY ' "$OUT")" = 6 ] || { cat "$OUT" >&2; fail "the attack did not make its six tries"; }
	grep '^TRY ' "$OUT" | grep -v -e ' No such process$' -e '^TRY procdir_pidfd No such file or directory$' \
		-e '^TRY pidfd Operation not permitted$' &&
		esc_bypass "a try on the sentinel $S did not fail ESRCH (ENOENT for its /proc directory) in the tree's PID namespace"
	st=$(sed 's/.*) //' "/proc/$S/stat" 2>/dev/null | cut -d' ' -f1)
	case $st in R|S|D) ;; *) esc_bypass "the sentinel $S was stopped or killed by the tree (state ${st:-gone})" ;; esac
	esc_kill $CWP
	member_gone
	[ -e "$W/LATE" ] && esc_bypass "a member of the tree acted after capwatch was SIGKILLed (sentinel disarmed?)"
	exit 0
fi

R=$O/report.json OUT=$O/cw.out
"$CAPWATCH" --profile verify --backend kernel --report "$R" -- "$CW_PY" "$T/disarm.py" find "$W/LATE" >"$OUT" 2>&1 &
CWP=$!
esc_bg_started $CWP
i=0
while ! grep -q '^READY' "$OUT"; do
	i=$((i + 1))
	[ $i -gt 200 ] && { cat "$OUT" >&2; fail "the attack did not get ready"; }
	kill -0 $CWP 2>/dev/null || { cat "$OUT" >&2; fail "capwatch ended early"; }
	sleep 0.05
done
esc_log "$(grep -E '^(SENTINEL|TRY|STATE)' "$OUT" | tr '\n' ' ')"
grep -q '^STATE [RSD]' "$OUT" || esc_bypass "the sentinel was stopped or killed by the tree: $(grep -E '^(TRY|STATE)' "$OUT" | tr '\n' ' ')"
esc_kill $CWP
member_gone
[ -e "$W/LATE" ] && esc_bypass "a member of the tree acted after capwatch was SIGKILLed (sentinel disarmed?)"
:
