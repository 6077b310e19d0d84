#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1): reads through a mount
# the tree's new view hides. cw_kernel_child -> reads_view
# (supervisor/kernel.c) mounts a tmpfs over /dev (and a new /proc) after
# unshare(CLONE_NEWNS); the command's working directory, taken over from
# capwatch, still points into the old /dev/shm mount, now covered.
# mark_mounts marks each mount by its mount point name
# (/proc/CHILD/root/dev/shm): that name resolves to the new /dev/shm, the
# covered copy gets no fanotify mark at all ("hidden under another mount:
# nothing can be exec'd from what the tree cannot reach", counted in
# mark_failures or marked twice on the visible one). But the tree reaches
# it by its cwd: a read-only open relative to it is neither notified (the
# filter) nor reported by fanotify, and Landlock allows the workspace. So
# with the workspace in /dev/shm (a tmpfs scratch directory), `cat .env`
# prints the secret, while `cat $W/.env` (the new, marked /dev/shm) is
# denied. The portable back end decides both opens: denied.
# Capability sought: filesystem_read of a secret (.env) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
S=$(mktemp -d /dev/shm/cwtest.XXXXXX) || skip "mktemp in /dev/shm"
trap 'cd / && rm -rf "$S"; esc_cleanup' EXIT
SECRET="E152_TOKEN=$$-hunter2"
printf '%s\n' "$SECRET" >"$S/.env"
cd "$S" || fail "cd $S"

bare sh -c 'cat .env'
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare cat .env did not print the secret: $(cat "$O/bare.out")"

# The mode under attack (auto: the kernel back end as root; under
# CW_BACKEND=portable the same run shows the portable back end's answer).
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
# The same secret by its absolute name: denied (the policy's answer).
under verify -- sh -c "cat '$S/.env'"
grep -q "$SECRET" "$OUT" && esc_bypass "the .env was read by its absolute name: not this test's hole"
expect_denied filesystem_read
esc_log "backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'): $S/.env by its absolute name denied"
# By the working directory.
under verify -- sh -c 'cat .env; grep " /dev/shm " /proc/self/mountinfo'
esc_log "the tree's /dev/shm mounts: $(grep -c ' /dev/shm ' "$OUT")"
grep -q "$SECRET" "$OUT" && esc_bypass "the .env was read relative to a working directory on the covered /dev/shm mount (no fanotify mark, no notification) under CAPWATCH_KERNEL_READS=1"
expect_denied filesystem_read
cd /
exit 0
