#!/bin/sh
# E59: names that confuse matching or reports: invalid UTF-8 (0xFF, the
# overlong 0xC0 0xAF), NFD vs NFC, U+202E, zero-width characters. Writes
# under readonly are denied whatever the bytes, and the trace keeps the
# exact bytes (path_hex); casefolded directories (".GIT" = ".git") are
# checked where the kernel offers them (tmpfs casefold, root).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
for hex in 626164ffc0af 65cc81 c3a9 e280ae747874 e2808b2e676974; do
	name=$("$PY" -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))" "$hex")
	bare sh -c "echo x > \"\$1\"" sh "$W/$name"
	[ -e "$W/$name" ] || esc_control_failed "bare create of hex:$hex failed"
	rm -f "$W/$name"
	under readonly -- sh -c "echo x > \"\$1\"" sh "$W/$name"
	[ -e "$W/$name" ] && esc_bypass "created $W/<hex:$hex> under --profile readonly"
	expect_denied workspace_write
	"$PY" - "$TR" "$hex" <<'PYEOF' || fail "the trace does not keep the bytes of hex:$hex"
import json, sys
want = sys.argv[2]
for line in open(sys.argv[1], "rb"):
    ev = json.loads(line)
    a = ev.get("args") or {}
    raw = a.get("path_hex") or a.get("path", "").encode().hex()
    if ev.get("type") == "op" and raw.endswith(want):
        sys.exit(0)
sys.exit(1)
PYEOF
done
# Casefold: needs a casefold-capable filesystem in a private mount ns.
if [ "$(id -u)" = 0 ] && command -v chattr >/dev/null; then
	esc_log "casefold: see e59b (tmpfs casefold, when the kernel has it)"
fi
