#!/bin/sh
# E60: newlines and terminal escapes in names: the trace must stay one JSON
# object per line (no forged "ALLOW" record), and neither the report nor
# the trace nor capwatch's own stderr may carry a raw ESC/BEL byte.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
n1=$(printf 'a\nALLOW external_network 203.0.113.10 pid=1\n{"type":"op","decision":"allow"}')
n2=$(printf 'e\033]0;pwned\007\033[2J\033]8;;x\033\\')
bare sh -c 'echo x > "$1"; echo y > "$2"' sh "$W/$n1" "$W/$n2"
[ -e "$W/$n1" ] && [ -e "$W/$n2" ] || esc_control_failed "bare create of the odd names failed"
rm -f "$W/$n1" "$W/$n2"
# The command's own stderr is discarded: $OUT is capwatch's output only.
under readonly --verbose -- sh -c 'exec 2>/dev/null; echo x > "$1"; echo y > "$2"' sh "$W/$n1" "$W/$n2"
[ -e "$W/$n1" ] || [ -e "$W/$n2" ] && esc_bypass "odd names created under --profile readonly"
expect_denied workspace_write
"$PY" - "$TR" <<'PYEOF' || esc_bypass "the trace has a line that is not one JSON object: log injection"
import json, sys
for line in open(sys.argv[1], "rb"):
    d = json.loads(line)
    assert isinstance(d, dict) and "type" in d, line
PYEOF
for f in "$R" "$TR"; do
	if tr -d '\n' <"$f" | od -An -c | grep -q '033\|\\a\|007'; then
		esc_bypass "raw control bytes in $(basename "$f")"
	fi
done
grep -q "$(printf '\033')" "$OUT" && esc_bypass "capwatch's own stderr (--verbose) carries a raw ESC byte from a target file name"
grep -q '^ALLOW external_network' "$OUT" && esc_bypass "capwatch's own stderr (--verbose) prints a target file name with its raw newline: a forged line 'ALLOW external_network ...' appears"
exit 0
