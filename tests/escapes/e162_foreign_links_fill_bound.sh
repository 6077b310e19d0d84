#!/bin/sh
# Red team 8 (2026-12-02), under every back end: the links of homes'
# secret places are kept in one table of 64 (secret_ids.c LINKS_MAX) for
# the whole run, filled in the order the homes are read: the run's home,
# /root, then /home/X in readdir order. Another local user, eve, who
# makes 65 links in her own ~/.ssh to files she owns (all followed: the
# foreign-owner rule lets a user's links count for her own files) fills
# the table before the next home is read, and bob's ~/.aws -> his dotfiles
# repository is dropped: his credentials read as a plain file by a root
# run under verify. The only trace is a warning note ("N symbolic links ...
# past the first 64 are not followed"), not a denial. The bound was meant
# against a home with too many links of its own, not one user's links
# deciding what counts as another user's secret.
# In a private mount namespace with tmpfs on /home and /root (tmpfs lists
# the newest entry first: eve is made last, so she is read before bob).
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_mountns
esc_setup
EVE=12345 BOB=12346
tok="BOB-$esc_name-$$"
chmod 755 "$T"
mount -t tmpfs tmpfs /home || skip "cannot mount a tmpfs on /home"
esc_mounted /home
mount -t tmpfs tmpfs /root || skip "cannot mount a tmpfs on /root"
esc_mounted /root
mkdir -p /home/bob/dotfiles/aws || fail "mkdir bob"
printf 'aws_secret_access_key=%s\n' "$tok" >/home/bob/dotfiles/aws/credentials
ln -s /home/bob/dotfiles/aws /home/bob/.aws || skip "no symbolic links on tmpfs"
chown -hR "$BOB" /home/bob
mkdir -p /home/eve/.ssh /home/eve/f || fail "mkdir eve"
for i in $(seq 1 65); do
	echo "eve's file $i" >/home/eve/f/$i && ln -s /home/eve/f/$i /home/eve/.ssh/l$i || fail "eve's links"
done
chown -hR "$EVE" /home/eve
first=$(ls -f /home | grep -v '^\.' | head -n 1)
[ "$first" = eve ] || skip "readdir of this tmpfs does not list the newest entry first (/home: $(ls -f /home | tr '\n' ' '))"

ATTACK='cat /home/bob/dotfiles/aws/credentials; echo done'
# Positive control: bare, bob's credentials are read.
HOME=$H bare sh -c "$ATTACK"
grep -q "$tok" "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	HOME=$H under verify "$@" -- sh -c "$ATTACK"
	grep -q "$tok" "$OUT" &&
		esc_bypass "$_w: bob's ~/.aws credentials read through his link, after eve's 65 links filled the table: $(grep "$tok" "$OUT")"
	grep -q done "$OUT" || fail "$_w: the command did not finish: $(cat "$OUT")"
	expect_denied filesystem_read "'/home/bob/dotfiles/aws/credentials'"
	report_has 'any("through a symbolic link" in e["reason"] for e in d["denials"])'
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

esc_each_backend check
exit 0
