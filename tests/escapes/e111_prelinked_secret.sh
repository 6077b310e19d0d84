#!/bin/sh
# E14 for reads (issue 14 item 5): hard links made BEFORE the run give a
# secret a plain name (a checkout, or an earlier step, made them): the
# name proves nothing, the inode does. (a) notes.txt is .env; (b)
# key.txt is ~/.ssh/id_ed25519 (HOME=$H); (c) the command first removes
# the name .env, so notes.txt is the secret's only name (one link) when
# it is read; (d) the file is opened by python (O_RDONLY) and by `cp`
# to a fresh name. Every read of those inodes is a secret read.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
tok="ENVTOKEN-$esc_name-$$"
key="KEYBYTES-$esc_name-$$"
mk() {
	rm -f "$W/.env" "$W/notes.txt" "$W/key.txt" "$W/copy.txt"
	printf 'API_TOKEN=%s\n' "$tok" >"$W/.env"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$key" >"$H/.ssh/id_ed25519"
	ln "$W/.env" "$W/notes.txt" || skip "hard links not possible in $T"
	ln -f "$H/.ssh/id_ed25519" "$W/key.txt" || skip "hard links not possible in $T"
}

# Positive control: bare, the links read as the secrets.
mk
bare sh -c 'cat notes.txt key.txt'
grep -q "$tok" "$O/bare.out" || esc_control_failed "(a) $(cat "$O/bare.out")"
grep -q "$key" "$O/bare.out" || esc_control_failed "(b) $(cat "$O/bare.out")"

# (a) + (b)
mk
HOME=$H under verify -- sh -c 'cat notes.txt; cat key.txt'
grep -q "$tok" "$OUT" && esc_bypass "(a) .env read through notes.txt, a hard link made before the run"
grep -q "$key" "$OUT" && esc_bypass "(b) ~/.ssh/id_ed25519 read through key.txt, a hard link made before the run"
expect_denied filesystem_read "'$W/notes.txt'"
report_has "denials('filesystem_read', '$W/key.txt')" \
	'all(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))' \
	'any("same file as the secret" in e["reason"] for e in d["denials"])'

# (c) the secret's own name removed first: one link left
mk
HOME=$H under verify -- sh -c 'rm .env && cat notes.txt'
[ -e "$W/.env" ] && fail "(c) rm .env did not run: $(cat "$OUT")"
grep -q "$tok" "$OUT" && esc_bypass "(c) the secret read through its last name after rm .env"
expect_denied filesystem_read "'$W/notes.txt'"

# (d) other readers: python open(), cp
mk
HOME=$H under verify -- sh -c "\"$PY\" -c 'print(open(\"notes.txt\").read())'; cp key.txt copy.txt; cat copy.txt"
grep -q "$tok" "$OUT" && esc_bypass "(d) python read .env through notes.txt"
grep -q "$key" "$OUT" && esc_bypass "(d) cp copied the key through key.txt"
grep -qs "$key" "$W/copy.txt" && esc_bypass "(d) copy.txt holds the key"
expect_denied filesystem_read "'$W/notes.txt'"
report_has "denials('filesystem_read', '$W/key.txt')"
exit 0
