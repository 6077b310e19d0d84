#!/bin/sh
# Read-only netlink route queries work for root under verify (issue 17
# item 5): `ip -br addr`, Python's if_nameindex (glibc binds, sends an
# RTM_GETLINK dump request and reads). capwatch performs the bind and the
# addressed send for the command with the command's own capabilities, so a
# change (RTM_NEWADDR) is still refused by the kernel: a root command has
# no CAP_NET_ADMIN. Runs in a private network namespace.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
[ "$(id -u)" = 0 ] || skip "the root case: an ordinary account's netlink was never refused"
if [ -z "${CW_NETLINK_NETNS:-}" ]; then
	unshare -n true 2>/dev/null || skip "no private network namespace (unshare -n)"
	CW_NETLINK_NETNS=1 exec unshare -n "$0" "$@"
fi
cw_workdir
cd "$W" || fail "cd $W"
ip link set lo up
cat >"$T/q.sh" <<'EOF2'
ip -br addr show dev lo
python3 -c 'import socket; print(sorted(n for _, n in socket.if_nameindex()))'
ip addr add 198.51.100.9/32 dev lo 2>&1 || echo "change refused"
EOF2
PATH=$(dirname "$CW_PY"):$PATH sh "$T/q.sh" >"$O/bare.out" 2>&1
ip addr del 198.51.100.9/32 dev lo 2>/dev/null
grep -q "^lo " "$O/bare.out" || { cat "$O/bare.out" >&2; fail "bare: ip -br addr printed nothing for lo"; }
cw --profile verify --report "$O/r.json" --trace "$O/t.jsonl" -- env PATH="$(dirname "$CW_PY"):$PATH" sh "$T/q.sh" >"$O/out" 2>&1
cat "$O/out" >&2
head -2 "$O/bare.out" >"$O/bare2"; head -2 "$O/out" >"$O/out2"
cmp -s "$O/bare2" "$O/out2" || fail "ip -br addr / if_nameindex differ from bare"
ip -4 addr show dev lo | grep -q 198.51.100.9 && { ip addr del 198.51.100.9/32 dev lo; fail "the command added an address through capwatch"; }
grep -q "change refused\|Operation not permitted" "$O/out" || fail "the address change was not refused"
report_assert "$O/r.json" "not any(x['capability']['kind'] == 'unrestricted' for x in d['denials'])" \
	"'capabilities:docker-default' in outcome['enforcement']['layers']"
trace_assert "$O/t.jsonl" "any(e.get('netlinkRouteRead') for e in ops())"
"$CAPWATCH" replay "$O/t.jsonl" >"$O/replay.out" 2>&1 || { cat "$O/replay.out" >&2; fail "replay disagrees with the run"; }
exit 0
