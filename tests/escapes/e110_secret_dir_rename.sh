#!/bin/sh
# E14/E15 for reads (issue 14 item 5): a directory whose files are
# secrets by where they lie, renamed so that they are not, then read.
# (a) a workspace directory named .ssh holding an id_* key (secret only
# in a directory of that name); (b) ~/.aws and ~/.ssh when the home
# directory is the workspace (an agent started in ~). Renaming such a
# directory is a secret read of it. A directory that only holds .env
# moves it under the same name, which is still a secret: allowed, and
# the .env stays unreadable.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
dkey="DEPLOYKEY-$esc_name-$$"
akey="AWSKEY-$esc_name-$$"
skey="SSHCONF-$esc_name-$$"
tok="ENVTOKEN-$esc_name-$$"
mk() {
	rm -rf "$W/deploy" "$W/keys" "$W/home" "$W/app" "$W/app.old"
	mkdir -p "$W/deploy/.ssh" "$W/home/.aws" "$W/home/.ssh" "$W/app"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$dkey" >"$W/deploy/.ssh/id_deploy"
	printf '[default]\naws_secret_access_key = %s\n' "$akey" >"$W/home/.aws/credentials"
	printf 'Host x\n  # %s\n' "$skey" >"$W/home/.ssh/config"
	printf 'API_TOKEN=%s\n' "$tok" >"$W/app/.env"
}
cmd_a='mv deploy/.ssh deploy/keys; cat deploy/keys/id_deploy'
cmd_b='cd home && mv .aws aws; cat aws/credentials; mv .ssh ssh; cat ssh/config'

# Positive controls (bare).
mk
bare sh -c "$cmd_a"
grep -q "$dkey" "$O/bare.out" || esc_control_failed "(a) $(cat "$O/bare.out")"
mk
bare sh -c "$cmd_b"
grep -q "$akey" "$O/bare.out" || esc_control_failed "(b) .aws: $(cat "$O/bare.out")"
grep -q "$skey" "$O/bare.out" || esc_control_failed "(b) .ssh: $(cat "$O/bare.out")"

# (a) deploy/.ssh -> deploy/keys
mk
under verify -- sh -c "$cmd_a"
grep -q "$dkey" "$OUT" && esc_bypass "(a) a key under a renamed .ssh directory was read under --profile verify"
[ -d "$W/deploy/.ssh" ] || esc_bypass "(a) the .ssh directory was renamed"
expect_denied filesystem_read "'$W/deploy/.ssh'"
report_has 'any(e["rule"] == "verify:filesystem_read_secret:default" and e["syscall"].startswith("rename") for e in denials("filesystem_read"))'

# (b) HOME is in the workspace: ~/.aws -> aws, ~/.ssh -> ssh
mk
HOME=$W/home under verify -- sh -c "$cmd_b"
grep -q "$akey" "$OUT" && esc_bypass "(b) ~/.aws/credentials read after renaming ~/.aws"
grep -q "$skey" "$OUT" && esc_bypass "(b) ~/.ssh/config read after renaming ~/.ssh"
[ -d "$W/home/.aws" ] && [ -d "$W/home/.ssh" ] || esc_bypass "(b) a secret directory of the home was renamed"
expect_denied filesystem_read "'$W/home/.aws'"
report_has "denials('filesystem_read', '$W/home/.ssh')"

# Not over-blocked: app/ holding .env is renamed; .env stays a secret.
mk
under verify -- sh -c 'mv app app.old && cat app.old/.env'
[ -d "$W/app.old" ] || fail "renaming a directory that holds .env was refused: $(cat "$OUT")"
grep -q "$tok" "$OUT" && esc_bypass "app.old/.env was readable after the rename"
expect_denied filesystem_read "'$W/app.old/.env'"
exit 0
