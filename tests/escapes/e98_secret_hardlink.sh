#!/bin/sh
# E98: a secret read through a hard link the command makes itself:
# `ln .env notes.txt && cat notes.txt`. The link is an ordinary
# workspace_write (allowed by verify) and notes.txt is not a secret-looking
# name, so a decision on names alone lets the bytes out.
# Capability sought: filesystem_read of a secret (.env) under verify.
# Expected after the fix: the link of a secret is decided as a read of the
# secret (contract: "including through another name (a hard link...)") and
# denied; or the read through the new name is decided on the inode. The
# secret bytes never appear on stdout; the report names a filesystem_read
# denial of the secret.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="E98_TOKEN=$$-hunter2"
printf '%s\n' "$SECRET" >"$W/.env"
bare sh -c 'ln .env notes.txt && cat notes.txt'
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare ln+cat did not print the secret: $(cat "$O/bare.out")"
rm -f "$W/notes.txt"
under verify -- sh -c 'ln .env notes.txt && cat notes.txt'
grep -q "$SECRET" "$OUT" && esc_bypass "the secret .env was read through a hard link made in the run (ln .env notes.txt && cat notes.txt) under --profile verify"
expect_denied filesystem_read
exit 0
