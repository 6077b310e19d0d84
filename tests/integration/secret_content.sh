#!/bin/sh
# Secrets by content, not only by name (contract section 2; issue 17 item
# 7): a certificate-only .pem (a CA bundle such as certifi's cacert.pem) and
# a committed template (.env.example) are plain reads under verify; a file
# holding a private key block is a secret whatever its name (.pem, .key,
# notes.txt); a certificate swapped for a key between capwatch's look and
# the open is still denied (the open must find the file it read).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
command -v openssl >/dev/null 2>&1 || skip "openssl is needed to make a key and a certificate"
cd "$W" || fail "cd $W"
openssl req -x509 -newkey rsa:2048 -nodes -keyout server.key -out cert.pem -days 1 -subj /CN=cwtest \
	>/dev/null 2>&1 || fail "openssl could not make a key"
grep -q "PRIVATE KEY-----" server.key || fail "the key file holds no PEM private key"
cp server.key key.pem
cp server.key notes.txt
cat cert.pem cert.pem > bundle.pem
printf 'API_TOKEN=changeme\n' > .env.example
printf 'API_TOKEN=hunter2\n' > .env

check() { # FILE WANT(plain|secret)
	cw --profile verify --report "$O/$1.json" -- cat "$1" >"$O/$1.out" 2>"$O/$1.err"
	case $2 in
	plain)
		[ "$rc" = 0 ] || { cat "$O/$1.err" >&2; fail "$1: a plain read was refused (exit $rc)"; }
		cmp -s "$1" "$O/$1.out" || fail "$1: the command did not read the file"
		report_assert "$O/$1.json" "outcome['kind'] == 'success'" "len(d['denials']) == 0" ;;
	secret)
		[ "$rc" != 0 ] || fail "$1: a secret was read (exit 0)"
		grep -q "PRIVATE KEY\|hunter2" "$O/$1.out" && fail "$1: the secret reached stdout"
		report_assert "$O/$1.json" "denied_run()" \
			"any(x['capability']['kind'] == 'filesystem_read' and x['rule'].endswith('filesystem_read_secret:default') and x['capability']['scope'].endswith('/$1') for x in d['denials'])" ;;
	esac
}
check cert.pem plain
check bundle.pem plain
check .env.example plain
check key.pem secret
check server.key secret
check notes.txt secret
check .env secret
report_assert "$O/notes.txt.json" "'private key' in d['denials'][0]['reason']"

# --observe records what verify would deny, and only that: the
# certificate is no would-be denial, the key under a .pem name is.
cw --observe --profile verify --report "$O/obs.json" -- sh -c 'cat cert.pem key.pem' >/dev/null 2>&1
[ "$rc" = 0 ] || fail "--observe: exit $rc"
report_assert "$O/obs.json" \
	"not any(x['capability']['scope'].endswith('/cert.pem') for x in d['denials'])" \
	"any(x['capability']['scope'].endswith('/key.pem') and not x['enforced'] for x in d['denials'])"

# The trace says why a .pem was read as a plain file, and replay agrees.
cw --profile verify --report "$O/t.json" --trace "$O/t.jsonl" -- cat cert.pem >/dev/null 2>&1
[ "$rc" = 0 ] || fail "cert.pem with a trace: exit $rc"
trace_assert "$O/t.jsonl" "any(e.get('keyFree') for e in ops())"
"$CAPWATCH" replay "$O/t.jsonl" >"$O/replay.out" 2>&1 || { cat "$O/replay.out" >&2; fail "replay of a certificate read found a denial"; }

# A python TLS client loading certifi's bundle (when installed) works.
if "$CW_PY" -c 'import certifi' 2>/dev/null; then
	cw --profile verify --report "$O/py.json" -- "$CW_PY" -c 'import certifi, ssl; ssl.create_default_context(cafile=certifi.where()); print("ok")' >"$O/py.out" 2>&1
	grep -q '^ok$' "$O/py.out" || { cat "$O/py.out" >&2; fail "loading certifi's CA bundle failed under verify"; }
	report_assert "$O/py.json" "not any('cacert.pem' in x['capability']['scope'] for x in d['denials'])"
fi
exit 0
