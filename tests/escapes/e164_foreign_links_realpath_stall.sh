#!/bin/sh
# Red team 9 (2026-12-06), under every back end: one local user delays
# every capwatch run on the machine, whoever runs it, by minutes to hours
# before the command starts. At start-up secret_ids.c links_get() looks at
# every home in /home (up to 32) and links_of_home() walks its secret
# directories (~/.ssh, ~/.aws, ~/.gnupg: up to 2,048 entries a home),
# calling link_add() on each symbolic link, and link_add() calls
# realpath(3) before anything else: before the foreign-owner rule, before
# the per-home bound of 64 (e162's fix), for links that are then dropped.
# glibc's realpath asks the kernel for each component with the whole
# prefix (readlink of the path so far), so a link into a directory 1,900
# levels deep, through a chain of 39 links each "a/../" 700 times, costs
# about 6.5 s of kernel walking here; eve, with 2,048 such links in her
# own ~/.ssh (mode 755), makes every run wait about 3.7 hours; --timeout
# does not cover the start-up (the watchdog starts with the command).
# Here: 8 links of "a/../" 250 times (about 2 s of realpath each, so
# 16 s before the fix), and the run must not take 10 s longer than the same run
# without them. In a private mount namespace with tmpfs on /home.
# Capability sought: none; availability of every run (issue 14's "the
# command cannot stall the supervisor", here by any local user).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
EVE=12345
NL=8
mount -t tmpfs tmpfs /home || skip "cannot mount a tmpfs on /home"
esc_mounted /home
mkdir -p /home/eve/.ssh /home/eve/d || fail "mkdir eve"
# The amplifier: 1,900 directories deep, then s0 -> a/../ x250 s1 -> ... s39.
(cd /home/eve/d && i=0 && while [ $i -lt 1900 ]; do mkdir a && cd a || exit 1; i=$((i + 1)); done &&
 mkdir a s39 && body=$("$PYTHON3" -c "print('a/../' * 250, end='')") && i=0 &&
 while [ $i -lt 39 ]; do ln -s "${body}s$((i + 1))" "s$i" || exit 1; i=$((i + 1)); done && pwd >"$T/deep") ||
	fail "eve's deep tree"
deep=$(cat "$T/deep")
i=1
while [ $i -le $NL ]; do ln -s "$deep/s0" /home/eve/.ssh/l$i || fail "eve's links"; i=$((i + 1)); done
chown -hR "$EVE" /home/eve
chmod 755 /home/eve /home/eve/.ssh

# Positive control: one realpath(3) of one of eve's links takes over a second.
"$PYTHON3" - /home/eve/.ssh/l1 >"$O/bare.out" 2>&1 <<'PYEOF'
import ctypes, sys, time
libc = ctypes.CDLL(None)
libc.realpath.restype = ctypes.c_void_p
t = time.monotonic()
r = libc.realpath(sys.argv[1].encode(), None)
print("%.2f" % (time.monotonic() - t), "resolved" if r else "failed")
PYEOF
cost=$(cut -d' ' -f1 "$O/bare.out")
"$PYTHON3" -c "import sys; sys.exit(0 if float(sys.argv[1]) > 1 else 1)" "$cost" ||
	esc_control_failed "realpath of eve's link took $(cat "$O/bare.out") s"
esc_log "one realpath of eve's link: $cost s"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	_t0=$(date +%s)
	HOME=$H ESC_TIMEOUT=300 under verify --timeout 5 "$@" -- /bin/true
	_t=$(($(date +%s) - _t0))
	[ "$rc" = 0 ] || fail "$_w: capwatch exit $rc: $(cat "$OUT")"
	[ "$_t" -gt 10 ] &&
		esc_bypass "$_w: a run of /bin/true took $_t s ($NL links in another user's ~/.ssh; one realpath $cost s; 2,048 links would make it hours)"
	esc_log "$_w: $_t s"
}

esc_each_backend check
exit 0
