#!/bin/sh
# Another user's home cannot make this run's files secrets (red team 7
# follow-up of e157-e160): capwatch follows the symbolic links of every
# home's secret places (a dotfile manager's ~/.aws -> a repository), and
# every /home/X is looked at, so a local user eve could point her ~/.ssh
# at /usr and every program of everybody's runs would read as a secret
# (a denial of every run on the machine). Another user's links count only
# for files that user owns: eve's own linked credentials stay a secret,
# /usr does not become one. In a private mount namespace with a tmpfs on
# /home, so the host's /home is never touched.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
[ "$(id -u)" = 0 ] || skip "needs root (a mount namespace, files of another uid)"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace"
EVE=12345
mkdir -p "$T/evedot/aws"
printf 'aws_secret_access_key=EVE-%s\n' "$$" >"$T/evedot/aws/credentials"
chown -R "$EVE" "$T/evedot"
chmod 755 "$T"
cat >"$T/inner.sh" <<'EOF2'
mount -t tmpfs tmpfs /home || exit 90
mkdir /home/eve && chown "$EVE" /home/eve || exit 91
ln -s /usr /home/eve/.ssh && ln -s "$T/evedot/aws" /home/eve/.aws || exit 92
chown -h "$EVE" /home/eve/.ssh /home/eve/.aws
"$CAPWATCH" --profile verify --report "$O/r.json" -- sh -c '
	cat /usr/share/common-licenses/GPL-3 >/dev/null 2>&1 || ls /usr/bin >/dev/null || echo usr-denied
	cat "$1" >/dev/null 2>&1 && echo eve-secret-read
	exit 0' sh "$T/evedot/aws/credentials"
EOF2
EVE=$EVE T=$T O=$O CAPWATCH=$CAPWATCH timeout 90 unshare -m --propagation private sh "$T/inner.sh" >"$O/out" 2>"$O/err"
rc=$?
[ "$rc" -lt 90 ] || fail "setting up the private /home failed ($rc): $(cat "$O/err")"
expect_rc 0 "the run: $(cat "$O/out" "$O/err")"
grep -q usr-denied "$O/out" && fail "another user's ~/.ssh -> /usr made /usr a secret: $(cat "$O/out")"
grep -q eve-secret-read "$O/out" && fail "eve's own credentials, reached through her ~/.aws link, were read"
report_assert "$O/r.json" \
	"denials('filesystem_read', '$T/evedot/aws/credentials')" \
	"not [e for e in d['denials'] if e['capability']['scope'].startswith('/usr')]"
exit 0
