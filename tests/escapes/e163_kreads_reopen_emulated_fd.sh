#!/bin/sh
# Red team 9 (2026-12-06), reads decided in the kernel
# (CAPWATCH_KERNEL_READS=1, opt-in): a secret opened O_WRONLY (a workspace
# write, allowed under verify) and reopened for reading through
# /proc/self/fd/N was read with no decision and nothing in the trace. The
# write open is performed by capwatch and installed in the tree (ADDFD):
# opened from capwatch's "/", its file was on capwatch's mount of the
# workspace, in capwatch's mount namespace, which has no fanotify mark
# (kernel.c mark_mounts marks the mounts of the tree's namespace only).
# The read-only reopen passed the filter under the mode, followed the
# magic link to that unmarked mount, and the kernel sent no FAN_OPEN_PERM
# event; Landlock's READ_FILE rule allowed it (beneath the workspace).
# Every secret the profile lets the tree open for writing was readable:
# `.env`, a `.key` holding a private key, and a file where a home's secret
# place leads through a link (~/.aws -> dotfiles/aws in the workspace,
# e157/e161). Held since: in this mode capwatch opens the tree's files
# from the tree's root (run->tree_root_fd, RESOLVE_IN_ROOT), on its
# watched mounts, and the reopen is an event decided as a read. Under the
# portable back end and the default kernel back end the reopen is
# notified and decided on its object: denied. readonly denies the
# O_WRONLY open.
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
tok="E163-$$"
D=$W/dotfiles
mkdir -p "$D/aws" || fail "mkdir"
ln -s "$D/aws" "$H/.aws" || skip "no symbolic links in $T"
printf 'API_KEY=%s-env\n' "$tok" >"$W/.env"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s-key\n-----END OPENSSH PRIVATE KEY-----\n' "$tok" >"$W/server.key"
printf 'aws_secret_access_key=%s-aws\n' "$tok" >"$D/aws/credentials"
echo "a public file" >"$W/README"
cat >"$T/reopen.py" <<'PYEOF'
import os, sys
for f in sys.argv[1:]:
    try:
        fd = os.open(f, os.O_WRONLY | os.O_CLOEXEC)
        r = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY | os.O_CLOEXEC)
        sys.stdout.write(os.read(r, 4096).decode())
    except OSError as e:
        print("%s: %s" % (f, e))
PYEOF
ATTACK="python3 '$T/reopen.py' '$W/.env' '$W/server.key' '$D/aws/credentials'; cat '$W/README'"
# Positive control: bare, all three are read.
HOME=$H bare sh -c "$ATTACK"
[ "$(grep -c "$tok" "$O/bare.out")" = 3 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	HOME=$H under verify "$@" -- sh -c "$ATTACK"
	grep -q "$tok" "$OUT" &&
		esc_bypass "$_w: secrets opened O_WRONLY and reopened read-only through /proc/self/fd: $(grep "$tok" "$OUT" | tr '\n' ' ')"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

esc_each_backend check
exit 0
