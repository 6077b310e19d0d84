#!/bin/sh
# Kernel back end red team: leave the run's cgroup.
#
# Membership of the kernel back end is the cgroup v2 group
# .../capwatch-PID (cw_kernel_in_tree(), cgroup.kill at --timeout and at the
# end, the sentinel). A root command (Docker's default capabilities, no
# CAP_SYS_ADMIN) may migrate itself: the kernel wants write access to the
# cgroup.procs of the destination and of the common ancestor, which
# CAP_DAC_OVERRIDE gives. So the only wall is capwatch deciding the open
# of a cgroup.procs for writing. Tried, each by the attack itself:
#   direct       open(PARENT/cgroup.procs, O_WRONLY)
#   selfroot     /proc/self/root + PARENT/cgroup.procs
#   pid1root     /proc/1/root + PARENT/cgroup.procs (another mount ns view)
#   dirfd        O_PATH on PARENT, openat(fd, "cgroup.procs", O_WRONLY)
#   opath_reopen O_PATH on PARENT/cgroup.procs, reopen /proc/self/fd/N
#   devfd        the same through /dev/fd/N
#   symlink      $W/procs -> PARENT/cgroup.procs, open($W/procs)
#   hardlink     link(PARENT/cgroup.procs, $W/procs2) (kernfs: EPERM/EXDEV)
#   threads      PARENT/cgroup.threads
#   subgroup     mkdir in the run's own group, move there, then to PARENT
#   pidfd_root   the parent through /proc/<capwatch>/root (capwatch itself)
# The run's capwatch is started in a group of the test's own
# (.../cw-e138-$$), so PARENT is that group, never the host's.
# Bypass: /proc/self/cgroup of the attack no longer names capwatch-PID.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
MNT=
for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ "$(stat -f -c %T "$m" 2>/dev/null)" = cgroup2fs ] && MNT=$m && break
done
[ -n "$MNT" ] || skip "no cgroup v2 mount"
OWN=$(sed -n 's/^0:://p' /proc/self/cgroup)
[ "$OWN" = / ] && OWN=
G=$MNT$OWN/cw-e138-$$
mkdir "$G" || skip "cannot make a test cgroup under $MNT$OWN"
cg_cleanup() {
	for d in "$G"/*/*/ "$G"/*/ "$G"; do
		[ -d "$d" ] || continue
		[ -e "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill" 2>/dev/null
	done
	sleep 0.2
	for d in "$G"/*/*/ "$G"/*/ "$G"; do rmdir "$d" 2>/dev/null; done
	esc_cleanup
}
trap cg_cleanup EXIT

cat >"$T/leave.py" <<'PY'
import os, sys, time
parent, W = sys.argv[1], sys.argv[2]
me = str(os.getpid())
def cg():
    return [l.split("::", 1)[1].strip() for l in open("/proc/self/cgroup") if l.startswith("0::")][0]
before = cg()
def wr(path, flags=os.O_WRONLY, dirfd=None):
    fd = os.open(path, flags, dir_fd=dirfd)
    try:
        os.write(fd, me.encode())
    finally:
        os.close(fd)
res = {}
def attempt(name, fn):
    try:
        fn(); res[name] = "ok"
    except OSError as e:
        res[name] = e.strerror
    now = cg()
    print("TRY %s %s cgroup=%s" % (name, res[name], now), flush=True)
    if now != before:
        print("LEFT via %s: %s -> %s" % (name, before, now), flush=True)
        sys.exit(0)
P = parent + "/cgroup.procs"
tries = {
  "direct": lambda: wr(P),
  "selfroot": lambda: wr("/proc/self/root" + P),
  "pid1root": lambda: wr("/proc/1/root" + P),
  "dirfd": lambda: wr("cgroup.procs", dirfd=os.open(parent, os.O_PATH | os.O_DIRECTORY)),
  "opath_reopen": lambda: wr("/proc/self/fd/%d" % os.open(P, os.O_PATH)),
  "devfd": lambda: wr("/dev/fd/%d" % os.open(P, os.O_PATH)),
  "symlink": lambda: (os.path.lexists(W + "/procs") or os.symlink(P, W + "/procs"), wr(W + "/procs")),
  "hardlink": lambda: (os.link(P, W + "/procs2"), wr(W + "/procs2")),
  "threads": lambda: wr(parent + "/cgroup.threads"),
  "subgroup": lambda: (os.mkdir(parent + before[before.rfind("/"):] + "/sub"),
                       wr(parent + before[before.rfind("/"):] + "/sub/cgroup.procs"), wr(P)),
  "ppid_root": lambda: wr("/proc/%d/root%s" % (os.getppid(), P)),
}
for name in (sys.argv[3:] or tries):
    attempt(name, tries[name])
print("STAYED", " ".join("%s=%s" % kv for kv in res.items()))
PY

# Positive control: bare, from a group below $G, to $G.
mkdir "$G/inner"
bare sh -c "echo \$\$ >'$G/inner/cgroup.procs' && exec '$CW_PY' '$T/leave.py' '$G' '$W' direct"
grep -q '^LEFT via direct' "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"
rmdir "$G/inner" 2>/dev/null

for opt in "" --no-landlock; do
	rm -f "$W/procs" "$W/procs2"
	# capwatch in $G: its group is $G/capwatch-PID, the parent is $G.
	R=$O/report$((N + 1)).json
	timeout -k 5 120 sh -c "echo \$\$ >'$G/cgroup.procs' && exec '$CAPWATCH' --profile verify --backend kernel $opt --report '$R' --trace '$O/trace.jsonl' -- '$CW_PY' '$T/leave.py' '$G' '$W'" >"$O/cw$opt.out" 2>&1
	rc=$?
	N=$((N + 1)) OUT=$O/cw$opt.out
	[ -s "$R" ] || { cat "$OUT" >&2; fail "no report (exit $rc)"; }
	esc_log "${opt:-landlock}: $(grep -E '^(STAYED|LEFT)' "$OUT")"
	grep -q '^LEFT' "$OUT" && esc_bypass "${opt:-with landlock}: the command left the run's cgroup: $(grep '^LEFT' "$OUT")"
	grep -q '^STAYED' "$OUT" || { cat "$OUT" >&2; fail "the attack did not finish"; }
	report_has 'denied_run()'
done
