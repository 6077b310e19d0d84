#!/bin/sh
# Red team 7 (2026-12-02), under every back end: e157 made a home's secret
# place reached through a symbolic link a secret by its resolved path, but
# not by identity. ~/.aws -> a dotfiles repository ($D/aws): (a) a hard
# link made before the run (an rsnapshot / `cp -al` backup of the
# repository) read as a plain file, since the start-up scan did not follow
# the link into $D; with the repository as the workspace (working on one's
# dotfiles), (b) `ln aws/credentials x` and (c) `mv aws/credentials y`
# were ordinary workspace writes (the source was no secret by its name),
# and x and y then read as plain files.
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
D=$W/dotfiles
tok="AWS-$esc_name-$$"
mkdir -p "$D/aws" "$T/backup" || fail "mkdir"
ln -s "$D/aws" "$H/.aws" || skip "no symbolic links in $T"
reset() {
	rm -rf "$D/aws" "$D/x" "$D/y" "$T/backup/credentials"
	mkdir -p "$D/aws"
	printf 'aws_secret_access_key=%s\n' "$tok" >"$D/aws/credentials"
	ln "$D/aws/credentials" "$T/backup/credentials" || skip "no hard links in $T"
	echo "a public file" >"$D/README"
}
ATTACK='cat "'$T'/backup/credentials"; ln aws/credentials x && cat x; mv aws/credentials y && cat y; cat README'
# Positive control: bare, every other name reads the secret.
reset
(cd "$D" && HOME=$H bare sh -c "$ATTACK")
[ "$(grep -c "$tok" "$O/bare.out")" = 3 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	reset
	cd "$D" || fail "cd $D"
	HOME=$H under verify --workspace "$D" "$@" -- sh -c "$ATTACK"
	cd "$W" || fail "cd $W"
	grep -q "$tok" "$OUT" && esc_bypass "$_w: the secret read under another name: $(grep "$tok" "$OUT" | head -3)"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read
	report_has 'all(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))'
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

esc_each_backend check
exit 0
