#!/bin/sh
# E99: a secret read after renaming it: `mv .env notes.txt && cat
# notes.txt`. The rename is an ordinary workspace_write (allowed by
# verify); afterwards nothing about the name says "secret".
# Capability sought: filesystem_read of a secret (.env) under verify.
# Expected after the fix: renaming a secret is decided as a read of it
# (contract: "a rename or link of a secret") and denied; the secret bytes
# never appear on stdout; the report names a filesystem_read denial.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="E99_TOKEN=$$-hunter2"
printf '%s\n' "$SECRET" >"$W/.env"
bare sh -c 'mv .env notes.txt && cat notes.txt'
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare mv+cat did not print the secret: $(cat "$O/bare.out")"
rm -f "$W/notes.txt"; printf '%s\n' "$SECRET" >"$W/.env"
under verify -- sh -c 'mv .env notes.txt && cat notes.txt'
grep -q "$SECRET" "$OUT" && esc_bypass "the secret .env was read after renaming it (mv .env notes.txt && cat notes.txt) under --profile verify"
expect_denied filesystem_read
exit 0
