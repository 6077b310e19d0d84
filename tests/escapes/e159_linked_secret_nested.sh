#!/bin/sh
# Red team 7 (2026-12-02), under every back end: e157 followed only the
# links directly in a home's secret directory, and only among its first
# 32 entries of any kind. (a) a link in a subdirectory of a real ~/.ssh
# (GNU stow links files one by one where the directory exists:
# ~/.ssh/keys/work -> a vault), (b) a link in a directory ~/.ssh links to
# (~/.gnupg -> dotfiles/gnupg whose private-keys-v1.d holds a link), and
# (c) a link in ~/.aws past its first 32 entries (200 plain files
# besides) were read as plain files, with no note. (b) also under the
# default and portable back ends once followed: a *.key holding no PEM
# private key block is no secret by its name, and fs_open.c asked for the
# link only for names that were no secrets (gnupg's key files are
# S-expressions, "Key: (private-key ...)").
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
V=$T/vault D=$T/dotfiles
a="SUBDIR-$esc_name-$$" b="NESTED-$esc_name-$$" c="CROWD-$esc_name-$$"
mkdir -p "$V" "$H/.ssh/keys" "$D/gnupg/private-keys-v1.d" "$H/.aws" || fail "mkdir"
printf '%s\n' "$a" >"$V/work_key"
printf 'Key: (private-key (ecc (curve Ed25519) (q #%s#)))\n' "$b" >"$V/gpg.key"
printf '%s\n' "$c" >"$V/aws_creds"
ln -s "$V/work_key" "$H/.ssh/keys/work" && ln -s "$D/gnupg" "$H/.gnupg" &&
	ln -s "$V/gpg.key" "$D/gnupg/private-keys-v1.d/ABCD.key" || skip "no symbolic links in $T"
# (c): the link's place in readdir order decides: 200 plain files, then
# the link under the first name (of 20 tried) that readdir gives past
# the 32nd entry; when none is, (c) is not run.
i=0
while [ $i -lt 200 ]; do : >"$H/.aws/cache-$i.json"; i=$((i + 1)); done
crowd=0 k=0
while [ $k -lt 20 ] && [ "$crowd" = 0 ]; do
	ln -s "$V/aws_creds" "$H/.aws/credentials-$k"
	crowd=$("$CW_PY" -c 'import os,sys; n=[e.name for e in os.scandir(sys.argv[1])]; print(int(n.index(sys.argv[2]) >= 32))' "$H/.aws" "credentials-$k")
	[ "$crowd" = 1 ] || rm -f "$H/.aws/credentials-$k"
	k=$((k + 1))
done
echo "a public file" >"$W/README"
ATTACK="cat '$V/work_key' '$V/gpg.key' '$V/aws_creds' README"
HOME=$H bare sh -c "$ATTACK"
for s in "$a" "$b" "$c"; do
	grep -q "$s" "$O/bare.out" || esc_control_failed "bare read lacks $s: $(cat "$O/bare.out")"
done

check() { # WHAT [OPTS...]
	_w=$1
	shift
	HOME=$H under verify "$@" -- sh -c "$ATTACK"
	grep -q "$a" "$OUT" && esc_bypass "$_w: (a) ~/.ssh/keys/work read through its link"
	grep -q "$b" "$OUT" && esc_bypass "$_w: (b) ~/.gnupg/private-keys-v1.d/ABCD.key read through its links"
	[ "$crowd" = 1 ] && grep -q "$c" "$OUT" && esc_bypass "$_w: (c) ~/.aws/credentials-N (past 32 entries) read through its link"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read "'$V/work_key'"
	report_has "denials('filesystem_read', '$V/gpg.key')" \
		'all(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))'
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied (crowd case run: $crowd)"
}

esc_each_backend check
exit 0
