#!/bin/sh
# Profile files (contract section 3): extends, per-capability
# allow/deny/ask with scopes, and the rule that took each decision named
# in the report. Network cases run in a private network namespace.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
P=$T/profiles
mkdir "$P"

# 1. A program denied by path: as a child, and as the command itself.
cat > "$P/nocurl.json" <<'J'
{"name": "nocurl", "extends": "verify", "notes": "integration test",
 "capabilities": {"process_spawn": {"deny": ["/usr/bin/curl", "**/wget"]}}}
J
CURL=$(realpath "$(command -v curl 2>/dev/null || echo /usr/bin/curl)")
if [ "$CURL" = /usr/bin/curl ] && [ -x "$CURL" ]; then
	cw --profile "$P/nocurl.json" --report "$O/c1.json" --trace "$O/c1.jsonl" -- sh -c 'curl --version; echo "child=$?"' >"$O/c1.out" 2>/dev/null
	expect_rc 0 "nocurl: sh running curl"
	! grep -q '^curl ' "$O/c1.out" || fail "nocurl: curl ran"
	grep -q '^child=' "$O/c1.out" && ! grep -q '^child=0$' "$O/c1.out" || fail "nocurl: curl's exec did not fail ($(cat "$O/c1.out"))"
	report_assert "$O/c1.json" "denied_run()" \
		"kind(denial['capability']) == 'process_spawn'" \
		"denial['capability']['scope'] == '/usr/bin/curl'" \
		"denial['rule'].startswith('nocurl:process_spawn:deny')"
	trace_assert "$O/c1.jsonl" "ops('process_spawn', 'deny', '/usr/bin/curl')" "not execs('/usr/bin/curl')"

	# Through a symlink with an innocent name: the resolved program decides.
	ln -s /usr/bin/curl mytool
	cw --profile "$P/nocurl.json" --report "$O/c3.json" -- sh -c './mytool --version; echo "child=$?"' >"$O/c3.out" 2>/dev/null
	! grep -q '^curl ' "$O/c3.out" || fail "nocurl: curl ran through a symlink"
	report_assert "$O/c3.json" "kind(denial['capability']) == 'process_spawn'" \
		"denial['capability']['scope'] == '/usr/bin/curl'"

	cw --profile "$P/nocurl.json" --report "$O/c2.json" -- curl --version >"$O/c2.out" 2>/dev/null
	expect_rc 126 "nocurl: curl as the command"
	[ ! -s "$O/c2.out" ] || fail "nocurl: curl ran as the command"
	report_assert "$O/c2.json" "outcome['kind'] == 'policy_denied'" "'exit' not in outcome" \
		"kind(denial['capability']) == 'process_spawn'"
else
	echo "# curl is not /usr/bin/curl here: program-scope case not run" >&2
fi

# A script denied by its own path (executed directly, through its #! line).
printf '{"name": "noevil", "extends": "verify", "capabilities": {"process_spawn": {"deny": ["**/evil.sh"]}}}\n' > "$P/noevil.json"
printf '#!/bin/sh\necho EVIL-RAN\n' > evil.sh
chmod +x evil.sh
cw --profile "$P/noevil.json" --report "$O/e.json" --trace "$O/e.jsonl" -- sh -c './evil.sh; echo "child=$?"' >"$O/e.out" 2>/dev/null
expect_rc 0 "noevil: sh running ./evil.sh"
! grep -q EVIL-RAN "$O/e.out" || fail "noevil: the denied script ran"
report_assert "$O/e.json" "denial['capability']['scope'] == '$W/evil.sh'" "denial['rule'] == 'noevil:process_spawn:deny[0]'"
trace_assert "$O/e.jsonl" "ops('process_spawn', 'deny', '$W/evil.sh')"

# 2. A path glob carved out of workspace_write.
cat > "$P/gen.json" <<'J'
{"name": "gen", "extends": "verify",
 "capabilities": {"workspace_write": {"default": "allow", "deny": ["**/generated/**"]}}}
J
mkdir -p src/generated
cw --profile "$P/gen.json" --report "$O/g.json" -- sh -c 'echo a > src/ok.txt; echo b > src/generated/x.txt' 2>/dev/null
expect_rc 2 "gen: write into generated/"
[ -f src/ok.txt ] && [ ! -e src/generated/x.txt ] || fail "gen: the glob did not carve out generated/"
report_assert "$O/g.json" "denial['capability']['scope'] == '$W/src/generated/x.txt'" \
	"denial['rule'] == 'gen:workspace_write:deny[0]'" "len(denials()) == 1"

# 3. extends a profile file by relative path, which extends readonly.
cat > "$P/base.json" <<'J'
{"name": "base", "extends": "readonly", "capabilities": {"workspace_write": {"allow": ["**/out/**"]}}}
J
cat > "$P/child.json" <<'J'
{"name": "child", "extends": "base.json", "notes": "only out/ is writable"}
J
mkdir out
cw --profile "$P/child.json" --report "$O/x.json" -- sh -c 'echo a > out/a.txt; echo b > b.txt' 2>/dev/null
expect_rc 2 "child extends base.json extends readonly"
[ -f out/a.txt ] && [ ! -e b.txt ] || fail "child profile: out/ should be writable and nothing else"
report_assert "$O/x.json" "d['profile'] == 'child'" "denial['capability']['scope'] == '$W/b.txt'" \
	"denial['rule'].startswith(('child:', 'base:', 'readonly:'))"

# 4. ask in a profile: denied without a terminal (request_approval); --approve grants one scope.
cat > "$P/ask.json" <<'J'
{"name": "ask", "extends": "verify", "capabilities": {"workspace_write": "ask"}}
J
setsid -w timeout -k 5 60 "$CAPWATCH" --profile "$P/ask.json" --report "$O/a1.json" -- sh -c 'echo a > asked.txt' </dev/null 2>/dev/null
rc=$?
expect_rc 2 "ask without a terminal"
[ ! -e asked.txt ] || fail "ask without a terminal: the write happened"
report_assert "$O/a1.json" "denial['nextAction'] == 'request_approval'" "denial['rule'] == 'ask:workspace_write:default'"
setsid -w timeout -k 5 60 "$CAPWATCH" --profile "$P/ask.json" --approve "workspace_write:$W/asked.txt" --report "$O/a2.json" \
	-- sh -c 'echo a > asked.txt; echo b > other.txt' </dev/null 2>/dev/null
rc=$?
expect_rc 2 "ask with --approve for one path"
[ -f asked.txt ] && [ ! -e other.txt ] || fail "--approve workspace_write:PATH did not grant exactly that path"
report_assert "$O/a2.json" "denial['capability']['scope'] == '$W/other.txt'" "len(denials()) == 1"

# 5. Address scopes (in a network namespace).
if unshare -n true 2>/dev/null; then
	cat > "$P/net.json" <<'J'
{"name": "net", "extends": "verify",
 "capabilities": {"external_network": {"default": "deny", "allow": ["203.0.113.7:80", "198.51.100.0/24"]}}}
J
	cat > conn.py <<'PY'
import errno, socket, sys
s = socket.socket()
s.settimeout(10)
try:
	s.connect((sys.argv[1], int(sys.argv[2])))
except OSError as e:
	print(errno.errorcode.get(e.errno, str(e.errno)))
	sys.exit(3)
print("CONNECTED")
PY
	for c in "203.0.113.7 80 ENETUNREACH" "203.0.113.7 443 EPERM" "198.51.100.9 8080 ENETUNREACH" "203.0.113.8 80 EPERM"; do
		set -- $c
		in_netns timeout -k 5 60 "$CAPWATCH" --profile "$P/net.json" --report "$O/n.json" -- "$CW_PY" conn.py "$1" "$2" >"$O/n.out" </dev/null
		[ "$(cat "$O/n.out")" = "$3" ] || fail "net profile: connect $1:$2 gave '$(cat "$O/n.out")', expected $3"
		if [ "$3" = EPERM ]; then
			report_assert "$O/n.json" "denial['rule'] == 'net:external_network:default'" "denial['nextAction'] == 'change_command'"
		else
			report_assert "$O/n.json" "not denials()"
		fi
	done
else
	echo "# no network namespace: address-scope case not run" >&2
fi
exit 0
