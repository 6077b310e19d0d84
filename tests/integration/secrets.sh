#!/bin/sh
# Secret-looking paths: reading $HOME/.ssh/id_rsa is denied under readonly
# and verify (cat fails, nothing of the key reaches stdout), and allowed but
# flagged under observe. HOME points into the test's temp dir; capwatch
# passes HOME through its environment sanitizer and uses it for "~".
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

HOME=$T/home
export HOME
mkdir -p "$HOME/.ssh"
KEY=$HOME/.ssh/id_rsa
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nintegtest-secret-0c7e\n-----END OPENSSH PRIVATE KEY-----\n' > "$KEY"
chmod 600 "$KEY"
echo 'API_TOKEN=integtest-dotenv-91aa' > .env

# HOME reaches the command.
cw --profile verify --report "$O/home.json" -- sh -c 'printf %s "$HOME"' >"$O/home.out"
expect_rc 0 "verify: print HOME"
[ "$(cat "$O/home.out")" = "$HOME" ] || fail "HOME under capwatch is '$(cat "$O/home.out")', expected $HOME"

for p in readonly verify; do
	cw --profile $p --report "$O/$p.json" --trace "$O/$p.jsonl" -- cat "$KEY" >"$O/$p.out" 2>"$O/$p.err"
	cat "$O/$p.err" >&2
	expect_rc 1 "$p: cat ~/.ssh/id_rsa"
	! grep -q integtest-secret "$O/$p.out" || fail "$p: the key was printed"
	# EACCES, or EPERM where the read is decided at its fanotify event
	# (CAPWATCH_KERNEL_READS=1: fanotify's FAN_DENY is EPERM).
	err=EACCES msg='Permission denied'
	if grep -q fanotify-open "$O/$p.json"; then err=EPERM msg='Operation not permitted'; fi
	grep -q "$msg" "$O/$p.err" || fail "$p: cat did not see $err"
	report_assert "$O/$p.json" \
		"outcome['state'] == 'denied'" \
		"denied_run()" \
		"kind(denial['capability']) == 'filesystem_read'" \
		"denial['capability']['scope'] == '$KEY'" \
		"len(denials('filesystem_read', '$KEY')) >= 1"
	trace_assert "$O/$p.jsonl" \
		"len(ops('filesystem_read', 'deny', '$KEY')) >= 1" \
		"all(e['secret'] is True and e['errno'] == '$err' for e in ops('filesystem_read', 'deny', '$KEY'))"
done

# .env in the workspace is a secret too (verify).
cw --profile verify --report "$O/env.json" -- cat .env >"$O/env.out" 2>/dev/null
expect_rc 1 "verify: cat .env"
! grep -q integtest-dotenv "$O/env.out" || fail "verify: .env was printed"
report_assert "$O/env.json" "kind(denial['capability']) == 'filesystem_read'" \
	"denial['capability']['scope'] == '$W/.env'"

# Every other secret shape of contract section 2 (verify), and look-alikes that are not secrets.
mkdir -p "$HOME/.aws" "$HOME/.gnupg" "$HOME/.docker" "$HOME/.kube" keys
for f in "$HOME/.aws/credentials" "$HOME/.gnupg/private.key" "$HOME/.netrc" "$HOME/.docker/config.json" \
	"$HOME/.kube/config" "$HOME/.git-credentials" "$W/.env.local" "$W/server.pem" "$W/keys/id_ed25519" \
	"$HOME/.ssh/known_hosts" "$HOME/.bashrc" "$W/environment.txt" "$W/notes.pem.txt" "$W/keys/identity.txt"; do
	echo "integtest-secret-$(basename "$f")" > "$f"
done
# A .pem is a secret when it holds a private key (a certificate-only one is
# not: tests/integration/secret_content.sh).
printf -- '-----BEGIN PRIVATE KEY-----\nintegtest-secret-server.pem\n-----END PRIVATE KEY-----\n' > "$W/server.pem"
n=0
for f in "$HOME/.aws/credentials" "$HOME/.gnupg/private.key" "$HOME/.netrc" "$HOME/.docker/config.json" \
	"$HOME/.kube/config" "$HOME/.git-credentials" "$W/.env.local" "$W/server.pem" "$W/keys/id_ed25519" \
	"$HOME/.ssh/known_hosts"; do
	n=$((n + 1))
	cw --profile verify --report "$O/s$n.json" -- cat "$f" >"$O/s$n.out" 2>/dev/null
	expect_rc 1 "verify: cat $f"
	[ ! -s "$O/s$n.out" ] || fail "verify: $f was printed"
	report_assert "$O/s$n.json" "kind(denial['capability']) == 'filesystem_read'" \
		"denial['capability']['scope'] == '$f'"
done
for f in "$HOME/.bashrc" "$W/environment.txt" "$W/notes.pem.txt" "$W/keys/identity.txt"; do
	cw --profile verify --report "$O/ns.json" -- cat "$f" >"$O/ns.out"
	expect_rc 0 "verify: cat $f (not a secret)"
	grep -q integtest-secret "$O/ns.out" || fail "verify: $f was not printed"
done

# Through a symlink in the workspace and through /proc/self/cwd: the
# resolved path decides.
ln -s "$KEY" innocent.txt
cw --profile verify --report "$O/l.json" -- cat innocent.txt >"$O/l.out" 2>/dev/null
expect_rc 1 "verify: cat a symlink to the key"
! grep -q integtest-secret-0c7e "$O/l.out" || fail "verify: the key was printed through a symlink"
report_assert "$O/l.json" "kind(denial['capability']) == 'filesystem_read'" "denial['capability']['scope'] == '$KEY'"
cw --profile verify --report "$O/p.json" -- sh -c 'cat /proc/self/cwd/.env' >"$O/p.out" 2>/dev/null
[ "$rc" != 0 ] || fail "verify: cat /proc/self/cwd/.env succeeded"
! grep -q integtest-dotenv "$O/p.out" || fail "verify: .env was printed through /proc/self/cwd"
report_assert "$O/p.json" "denial['capability']['scope'] == '$W/.env'"

# observe: allowed, recorded and flagged as a secret read.
cw --profile observe --report "$O/obs.json" --trace "$O/obs.jsonl" -- cat "$KEY" >"$O/obs.out"
expect_rc 0 "observe: cat ~/.ssh/id_rsa"
cmp "$O/obs.out" "$KEY" || fail "observe: cat did not print the key"
report_assert "$O/obs.json" \
	"not denials()" \
	"outcome['kind'] == 'success'" \
	"len(used('filesystem_read', '$KEY')) == 1"
trace_assert "$O/obs.jsonl" \
	"len(ops('filesystem_read', 'allow', '$KEY')) >= 1" \
	"all(e['secret'] is True and e.get('flagged') is True for e in ops('filesystem_read', 'allow', '$KEY'))"
# Where the report itself shows the flag is not fixed by the contract (its
# section 4 has no such field); say so in the log rather than fail.
"$CW_PY" "$CWCHECK" report "$O/obs.json" "any(e.get('flagged') or e.get('secret') for e in used('filesystem_read', '$KEY')) or 'flagged' in text" 2>/dev/null \
	|| echo "# note: the observe report does not mark the secret read as flagged (only the trace does)" >&2
exit 0
