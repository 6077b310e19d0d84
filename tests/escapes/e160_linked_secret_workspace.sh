#!/bin/sh
# Red team 7 (2026-12-02), a false denial under every back end: e157 made
# whatever a link in a home's secret directory leads to a secret, even a
# directory holding the workspace. ~/.ssh/sockets -> the temp directory
# the workspace lies in (an ssh ControlPath directory kept in /tmp or
# $XDG_RUNTIME_DIR) made every file of the workspace "the secret
# ~/.ssh/sockets/ws/...": `cat README` in the workspace was denied. Any
# user with a home in /home can plant such a link in their own ~/.ssh
# (every /home/X is followed) and deny everyone's runs below its target.
# A link whose target holds a workspace root (or the run's scratch
# directory) is not followed; one below the workspace still is.
# Capability sought: none (ordinary work must not be denied).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
ln -s "$T" "$H/.ssh/sockets" || skip "no symbolic links in $T"
mkdir -p "$W/deploy" && printf 'KEY-%s\n' "$$" >"$W/deploy/key"
ln -s "$W/deploy" "$H/.ssh/deploy"
echo "a public file $$" >"$W/README"
HOME=$H bare cat README
grep -q "a public file $$" "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	HOME=$H under verify "$@" -- sh -c 'cat README; cat deploy/key'
	grep -q "a public file $$" "$OUT" || fail "$_w: false denial of the workspace's README: $(cat "$OUT")"
	grep -q "KEY-$$" "$OUT" && esc_bypass "$_w: ~/.ssh/deploy/key read through its link"
	report_has "denials('filesystem_read', '$W/deploy/key')" \
		"not denials('filesystem_read', '$W/README')"
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): README read, key denied"
}

esc_each_backend check
exit 0
