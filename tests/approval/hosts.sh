#!/bin/sh
# Host-name network rules: a profile allows external_network for
# "pkgs.example.com:80" and "*.mirror.example.org:80". capwatch resolves the
# names itself; here a test hosts file is bind-mounted over /etc/hosts in a
# private network and mount namespace (unshare -nm), so nothing leaves the
# box: an allowed connect fails ENETUNREACH, a denied one EPERM.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cat >"$T/hosts" <<'H'
127.0.0.1 localhost
203.0.113.7 pkgs.example.com
203.0.113.9 a.mirror.example.org
203.0.113.10 mirror.example.org.evil.test
H
unshare -nm sh -c 'mount --bind "$1" /etc/hosts' sh "$T/hosts" 2>/dev/null ||
	skip "cannot bind-mount a test hosts file over /etc/hosts in a mount namespace"

cat >"$T/names.json" <<'J'
{"name": "names", "extends": "verify",
 "capabilities": {"external_network": {"default": "deny",
   "allow": ["pkgs.example.com:80", "*.mirror.example.org:80"]}}}
J

# conn.py ADDR PORT [HOSTNAME]: connect (by address, or by name through the
# command's own resolver) and print the errno name.
cat > conn.py <<'PY'
import errno, socket, sys
s = socket.socket()
s.settimeout(10)
try:
	s.connect((sys.argv[1], int(sys.argv[2])))
	print("CONNECTED")
except OSError as e:
	print(errno.errorcode.get(e.errno, str(e.errno)))
PY

# cwh NAME ADDR PORT: one connect under the profile, in the namespace.
cwh() {
	unshare -nm sh -c 'mount --bind "$1" /etc/hosts && ip link set lo up 2>/dev/null; shift; exec "$@"' sh "$T/hosts" \
		setsid -w timeout -k 5 60 "$CAPWATCH" --profile "$T/names.json" \
		--report "$O/$1.json" --trace "$O/$1.jsonl" -- "$CW_PY" conn.py "$2" "$3" </dev/null >"$O/$1.out"
	rc=$?
}
want() { # NAME ERRNO
	[ "$(cat "$O/$1.out")" = "$2" ] || fail "$1: connect saw '$(cat "$O/$1.out")', expected $2"
}

# 1. The exact name: its address and port are allowed, the rule names the host.
cwh exact 203.0.113.7 80
want exact ENETUNREACH
trace_assert "$O/exact.jsonl" \
	"len(ops('external_network', 'allow', '203.0.113.7:80')) == 1" \
	"ops('external_network', 'allow', '203.0.113.7:80')[0]['rule'] == 'names:external_network:allow[0] host pkgs.example.com'"
report_assert "$O/exact.json" "not denials()" "len(used('external_network', '203.0.113.7:80')) == 1" \
	"d['hostMatches'] == [{'capability': {'kind': 'external_network', 'scope': '203.0.113.7:80'}, 'host': 'pkgs.example.com', 'rule': 'names:external_network:allow[0] host pkgs.example.com', 'decision': 'allow', 'count': 1}]"

# 2. The same name by name, through the command's own resolver.
cwh byname pkgs.example.com 80
want byname ENETUNREACH

# 3. Another port of that address: denied.
cwh port 203.0.113.7 443
want port EPERM
report_assert "$O/port.json" "denial['rule'] == 'names:external_network:default'"

# 4. An address no allowed name has: denied.
cwh other 203.0.113.8 80
want other EPERM

# 5. The wildcard: an address whose name (reverse, then confirmed forward) is below mirror.example.org.
cwh wild 203.0.113.9 80
want wild ENETUNREACH
report_assert "$O/wild.json" "d['hostMatches'][0]['host'] == 'a.mirror.example.org'"
trace_assert "$O/wild.jsonl" \
	"ops('external_network', 'allow', '203.0.113.9:80')[0]['rule'] == 'names:external_network:allow[1] host a.mirror.example.org'"

# 6. A name that only looks like it: denied.
cwh evil 203.0.113.10 80
want evil EPERM

# 7. IPv4-mapped IPv6 form of the allowed address.
cat > conn6.py <<'PY'
import errno, socket
s = socket.socket(socket.AF_INET6)
s.settimeout(10)
try:
	s.connect(("::ffff:203.0.113.7", 80))
	print("CONNECTED")
except OSError as e:
	print(errno.errorcode.get(e.errno, str(e.errno)))
PY
cp conn6.py conn.py
cwh mapped x 0
want mapped ENETUNREACH
"$CW_PY" "$top_srcdir/tests/approval/schema_check.py" "$top_srcdir/schemas" "$O"/*.json "$O"/*.jsonl || fail "reports or traces do not match their schemas"
exit 0
