#!/bin/sh
# Secrets by content (contract section 2: "any file holding a private
# key"): capwatch scans a file under a plain name for a PRIVATE KEY block,
# but only its first 4096 bytes and only when it is 64..65536 bytes long
# (supervisor/handlers/keys.c cw_keys_worth_scanning, fs.c
# cw_keys_scan_fd(fd, 4096)). (a) a key at the start of notes.txt: denied
# (the feature works); (b) the same key after 4 KiB of text; (c) a key at
# the start of a file longer than 64 KiB (a bundle, a log, a backup). (b)
# and (c) are files holding a private key and must read as secrets.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
key="KEYBYTES-$esc_name-$$"
pem() { printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' "$key"; }
mk() {
	rm -f "$W/notes.txt" "$W/late.txt" "$W/big.txt"
	pem >"$W/notes.txt"
	{ i=0; while [ $i -lt 60 ]; do echo "padding line $i ................................................................"; i=$((i + 1)); done; pem; } >"$W/late.txt"
	{ pem; "$PY" -c 'import sys; sys.stdout.write(("y" * 79 + "\n") * 1000)'; } >"$W/big.txt"
	[ "$(wc -c <"$W/late.txt")" -gt 4200 ] || fail "late.txt too short"
	[ "$(wc -c <"$W/big.txt")" -gt 65536 ] || fail "big.txt too short"
}

# Positive control: bare, each file gives the key.
mk
for f in notes.txt late.txt big.txt; do
	bare cat "$W/$f"
	grep -q "$key" "$O/bare.out" || esc_control_failed "bare cat $f: $(head -c 300 "$O/bare.out")"
done

bad=
for prof in verify readonly; do
	# (a) the feature: a key at the start of a small file is a secret.
	mk
	under $prof -- cat notes.txt
	grep -q "$key" "$OUT" && fail "($prof a) the key at the start of notes.txt was read: content scanning is off?"
	expect_denied filesystem_read "'$W/notes.txt'"
	# (b) the key after the scanned 4 KiB
	under $prof -- cat late.txt
	if grep -q "$key" "$OUT"; then
		bad="$bad; ($prof b) a private key after 4 KiB of late.txt ($(wc -c <"$W/late.txt") bytes) read as a plain file"
	else
		expect_denied filesystem_read "'$W/late.txt'"
	fi
	# (c) a file longer than 64 KiB
	under $prof -- cat big.txt
	if grep -q "$key" "$OUT"; then
		bad="$bad; ($prof c) a private key at the start of big.txt ($(wc -c <"$W/big.txt") bytes, > 64 KiB) read as a plain file"
	else
		expect_denied filesystem_read "'$W/big.txt'"
	fi
done
[ -z "$bad" ] || esc_bypass "${bad#; }"
exit 0
