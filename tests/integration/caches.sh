#!/bin/sh
# Per-user caches under a profile that denies writes outside the workspace
# (issue 17 item 9): XDG_CACHE_HOME, npm_config_cache, PIP_CACHE_DIR,
# GOMODCACHE, CCACHE_DIR, YARN_CACHE_FOLDER point into the run's scratch
# (gone with it), so npm and pip work and the user's caches are untouched;
# a cache the command's environment names is kept; unrestricted keeps the
# user's caches.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
cw --profile verify --report "$O/r.json" -- sh -c 'for v in XDG_CACHE_HOME npm_config_cache PIP_CACHE_DIR GOMODCACHE CCACHE_DIR YARN_CACHE_FOLDER; do eval "echo $v=\$$v"; done; echo TMPDIR=$TMPDIR; mkdir -p "$npm_config_cache/x" && echo made' >"$O/out" 2>"$O/err"
expect_rc 0 "verify: a write into the redirected cache"
tmp=$(sed -n 's/^TMPDIR=//p' "$O/out")
[ -n "$tmp" ] || fail "no TMPDIR"
for v in XDG_CACHE_HOME npm_config_cache PIP_CACHE_DIR GOMODCACHE CCACHE_DIR YARN_CACHE_FOLDER; do
	val=$(sed -n "s/^$v=//p" "$O/out")
	case $val in "$tmp"/cache*) ;; *) fail "$v is not in the run's scratch: '$val'" ;; esac
done
grep -q '^made$' "$O/out" || fail "the cache directory could not be made"
report_assert "$O/r.json" "len(d['denials']) == 0"
# A cache the command's environment names is its own.
npm_config_cache=$T/mycache cw --profile verify --env-pass npm_config_cache --report "$O/r2.json" -- sh -c 'echo $npm_config_cache' >"$O/out2" 2>&1
[ "$(cat "$O/out2")" = "$T/mycache" ] || fail "an explicit npm_config_cache was replaced: $(cat "$O/out2")"
if command -v npm >/dev/null 2>&1; then
	echo '{"name": "cwcache", "version": "1.0.0"}' > package.json
	HOME=$T/home; mkdir -p "$HOME"; export HOME
	unshare -n true 2>/dev/null && NS="unshare -n" || NS=
	$NS "$CAPWATCH" --profile verify --env-pass HOME --report "$O/npm.json" -- npm install --offline --no-audit --no-fund >"$O/npm.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { cat "$O/npm.out" >&2; fail "npm install under verify: exit $rc"; }
	[ ! -e "$HOME/.npm" ] || fail "npm wrote the user's ~/.npm"
	# npm may still look a name up (update checks): that is the network's
	# business (and refused in the private netns), not the cache's.
	report_assert "$O/npm.json" "not [x for x in d['denials'] if x['capability']['kind'] != 'external_network']"
fi
exit 0
