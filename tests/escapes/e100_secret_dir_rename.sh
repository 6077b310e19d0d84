#!/bin/sh
# E100: a secret read after renaming the directory that makes it one:
# HOME=$H is also the workspace, $H/.aws/credentials is a secret by its
# directory; `mv $H/.aws $H/aws && cat $H/aws/credentials` renames the
# directory (a workspace_write) and reads the same file under a name no
# rule covers.
# Capability sought: filesystem_read of a secret (~/.aws) under verify.
# Expected after the fix: renaming a directory that holds secrets is
# decided as a read of them and denied; the secret bytes never appear on
# stdout; the report names a filesystem_read denial.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
SECRET="aws_secret_access_key = E100-$$-wJalrXUtnFEMI"
mkdir -p "$H/.aws"
printf '[default]\n%s\n' "$SECRET" >"$H/.aws/credentials"
cmd="mv '$H/.aws' '$H/aws' && cat '$H/aws/credentials'"
bare sh -c "$cmd"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "bare mv+cat did not print the secret: $(cat "$O/bare.out")"
mv "$H/aws" "$H/.aws"
oldhome=${HOME:-}
export HOME="$H"
under verify --workspace "$H" -- sh -c "$cmd"
export HOME="$oldhome"
grep -q "$SECRET" "$OUT" && esc_bypass "~/.aws/credentials was read after renaming ~/.aws (HOME and workspace $H) under --profile verify"
expect_denied filesystem_read
exit 0
