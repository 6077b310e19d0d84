#!/bin/sh
# E111 with the scan's budget spent by the command: a hard link made before
# the run (notes.txt) to a secret in a subdirectory (config/.env) reads as
# the secret because the first read of a multiply-linked file starts the
# identity scan (secret_ids.c), breadth first over at most 10,000 directory
# entries. Creating files with open(O_CREAT) does not start the scan, so
# the command first creates 10,050 empty files in the workspace root: the
# scan spends its budget on them and never reaches config/, and notes.txt
# reads as a plain file. (a) without the flood: denied (sanity); (b) with
# it: must be denied too.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
tok="ENVTOKEN-$esc_name-$$"
mk() {
	rm -rf "$W"/junk* "$W/config" "$W/notes.txt"
	mkdir -p "$W/config"
	printf 'API_TOKEN=%s\n' "$tok" >"$W/config/.env"
	ln "$W/config/.env" "$W/notes.txt" || skip "hard links not possible in $T"
}
cat >"$T/flood.py" <<'PY'
import os, sys
for i in range(int(sys.argv[1])):
    os.close(os.open("junk%05d" % i, os.O_CREAT | os.O_WRONLY, 0o644))
try:
    print(open("notes.txt").read())
except OSError as e:
    print("notes.txt:", e)
PY
mk
bare "$PY" "$T/flood.py" 0
grep -q "$tok" "$O/bare.out" || esc_control_failed "bare: $(cat "$O/bare.out")"

mk
under verify -- "$PY" "$T/flood.py" 0
grep -q "$tok" "$OUT" && fail "(a) notes.txt read without the flood: the identity check is off?"
expect_denied filesystem_read "'$W/notes.txt'"

mk
under verify -- "$PY" "$T/flood.py" 10050
if grep -q "$tok" "$OUT"; then
	esc_bypass "(b) config/.env read through notes.txt (a hard link made before the run) after the command created 10,050 files in the workspace: the identity scan spent its budget on them (outcome $(json_get "$R" 'd["outcome"]["kind"]'))"
fi
expect_denied filesystem_read "'$W/notes.txt'"
exit 0
