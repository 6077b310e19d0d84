#!/bin/sh
# E14/E15 for reads (issue 14 item 5): a secret renamed to a plain name
# and read under it. (a) mv .env notes.txt; (b) renameat2
# RENAME_EXCHANGE of a plain file with .env (each end moves to the
# other's name); (c) a deploy key under a .ssh directory renamed to a
# .pub name. Renaming a secret is a secret read of it; a rename to
# another secret name (.env.tmp -> .env, an atomic save) stays allowed.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
tok="ENVTOKEN-$esc_name-$$"
dkey="DEPLOYKEY-$esc_name-$$"
mk() {
	printf 'API_TOKEN=%s\n' "$tok" >"$W/.env"
	mkdir -p "$W/deploy/.ssh"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$dkey" >"$W/deploy/.ssh/id_deploy"
	printf 'plain\n' >"$W/notes.txt"
}
xchg="import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, b'notes.txt', -100, b'.env', 2)
if r != 0: print('renameat2:', os.strerror(ctypes.get_errno()), file=sys.stderr)
sys.stdout.write(open('notes.txt').read())"

# Positive controls: bare, every rename works and the bytes come out.
mk
bare sh -c 'rm notes.txt && mv .env notes.txt && cat notes.txt'
grep -q "$tok" "$O/bare.out" || esc_control_failed "(a) mv .env: $(cat "$O/bare.out")"
mk
bare "$PY" -c "$xchg"
grep -q "$tok" "$O/bare.out" || esc_control_failed "(b) RENAME_EXCHANGE: $(cat "$O/bare.out")"
mk
bare sh -c 'mv deploy/.ssh/id_deploy deploy/.ssh/id_deploy.pub && cat deploy/.ssh/id_deploy.pub'
grep -q "$dkey" "$O/bare.out" || esc_control_failed "(c) mv id_deploy: $(cat "$O/bare.out")"
rm -rf "$W/deploy" "$W/notes.txt" "$W/.env"

# (a) mv .env notes.txt && cat notes.txt
mk; rm -f "$W/notes.txt"
under verify -- sh -c 'mv .env notes.txt; cat notes.txt'
grep -q "$tok" "$OUT" && esc_bypass "(a) .env read after mv .env notes.txt under --profile verify"
[ -e "$W/.env" ] || esc_bypass "(a) .env was renamed"
expect_denied filesystem_read "'$W/.env'"
report_has 'any(e["rule"] == "verify:filesystem_read_secret:default" and e["syscall"].startswith("rename") for e in denials("filesystem_read"))'

# (b) RENAME_EXCHANGE(notes.txt, .env), then read notes.txt
mk
under verify -- "$PY" -c "$xchg"
grep -q "$tok" "$OUT" && esc_bypass "(b) .env read after renameat2(notes.txt, .env, RENAME_EXCHANGE)"
grep -q "$tok" "$W/.env" || esc_bypass "(b) the exchange moved .env"
expect_denied filesystem_read "'$W/.env'"

# (c) a key that is a secret by its directory's name, renamed to a .pub
mk
under verify -- sh -c 'mv deploy/.ssh/id_deploy deploy/.ssh/id_deploy.pub; cat deploy/.ssh/id_deploy.pub'
grep -q "$dkey" "$OUT" && esc_bypass "(c) deploy key read after a rename to id_deploy.pub"
expect_denied filesystem_read "'$W/deploy/.ssh/id_deploy'"

# Not over-blocked: a rename between secret names is a plain write, and
# the new name is still a secret.
rm -f "$W/.env.tmp"; printf 'API_TOKEN=%s\n' "$tok" >"$W/.env.tmp"
under verify -- sh -c 'mv .env.tmp .env && cat .env'
[ -e "$W/.env.tmp" ] && fail "mv .env.tmp .env (an atomic save) was refused"
grep -q "$tok" "$OUT" && esc_bypass "the renamed .env was readable"
report_has '[e for e in denials("filesystem_read") if e["syscall"] in ("open", "openat")]' \
	'not [e for e in d["denials"] if e["syscall"].startswith("rename")]'
exit 0
