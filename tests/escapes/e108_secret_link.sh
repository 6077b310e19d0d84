#!/bin/sh
# E14 for reads (issue 14 item 5): a hard link made in the run gives a
# secret a plain name, and the secret is read through it. (a) .env in the
# workspace; (b) the user's ~/.ssh/id_ed25519 (HOME is $H, outside the
# workspace: the link lands in the workspace, the source is only read).
# A hard link of a secret is a secret read of its source.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
tok="ENVTOKEN-$esc_name-$$"
key="AWSKEY-$esc_name-$$"
printf 'API_TOKEN=%s\n' "$tok" >"$W/.env"
mkdir -p "$W/home/.aws"
printf '[default]\naws_secret_access_key = %s\n' "$key" >"$W/home/.aws/credentials"
ln "$W/.env" "$T/probe" 2>/dev/null || skip "hard links not possible in $T"
rm -f "$T/probe"

# Positive control: bare, the link is made and the bytes come out.
bare sh -c "ln .env notes.txt && cat notes.txt && ln home/.aws/credentials key.txt && cat key.txt"
grep -q "$tok" "$O/bare.out" || esc_control_failed "no secret through the link: $(cat "$O/bare.out")"
grep -q "$key" "$O/bare.out" || esc_control_failed "no key through the link: $(cat "$O/bare.out")"
rm -f "$W/notes.txt" "$W/key.txt"

# (a) ln .env notes.txt && cat notes.txt
under verify -- sh -c 'ln .env notes.txt; cat notes.txt'
grep -q "$tok" "$OUT" && esc_bypass "(a) .env read through a hard link made in the run (ln .env notes.txt) under --profile verify"
[ -e "$W/notes.txt" ] && esc_bypass "(a) the hard link notes.txt to .env was created"
expect_denied filesystem_read "'$W/.env'"
report_has 'any(e["rule"] == "verify:filesystem_read_secret:default" and e["syscall"] in ("link", "linkat") for e in denials("filesystem_read"))'

# (b) HOME=$W/home: ln ~/.aws/credentials key.txt && cat key.txt
HOME=$W/home under verify -- sh -c "ln home/.aws/credentials key.txt; cat key.txt"
grep -q "$key" "$OUT" && esc_bypass "(b) ~/.aws/credentials read through a hard link made in the run"
[ -e "$W/key.txt" ] && esc_bypass "(b) the hard link key.txt to ~/.aws/credentials was created"
expect_denied filesystem_read "'$W/home/.aws/credentials'"
report_has 'any(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))'
exit 0
