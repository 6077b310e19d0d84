#!/bin/sh
# Kernel reads (CAPWATCH_KERNEL_READS=1), found by the helper that ran the
# integration suite under the mode (2026-12-02): a FIFO named like a
# secret is read with no decision. Read-only opens pass the filter in that
# mode and are decided at their fanotify FAN_OPEN_PERM event, but the
# kernel sends permission events only for regular files and directories:
# none for a FIFO (as for devices, which the tree's /dev and nodev keep
# out; nothing keeps FIFOs out). A credential helper outside the tree that
# serves .env through a named pipe hands its secret to the tree. Under the
# portable back end, or with reads notified, the open is decided on its
# name: denied. KNOWN OPEN for the mode (KNOWN-OPEN.md); the mode is not
# the default.
# Capability sought: filesystem_read of a secret (.env) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
SECRET="E156_TOKEN=$$-hunter2"

# The writer: outside the tree, in this test's temp dir, one message per
# reader, bounded in time (it ends when the test does, esc_cleanup).
WRITER=
serve() {
	[ -n "$WRITER" ] && esc_kill "$WRITER"
	rm -f "$W/.env"
	mkfifo "$W/.env" || fail "mkfifo"
	timeout 30 sh -c 'printf "%s\n" "$1" >"$2"' sh "$SECRET" "$W/.env" &
	WRITER=$!
	esc_bg_started "$WRITER"
}

serve
bare timeout 10 cat "$W/.env"
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "cat did not read the secret from the FIFO bare: $(head -3 "$O/bare.out")"

serve
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
ESC_TIMEOUT=30 under verify -- timeout 10 cat .env
esc_log "layers $(json_get "$R" '" ".join(d["outcome"]["enforcement"]["layers"])'): $(grep -c "$SECRET" "$OUT") reads got the secret"
grep -q "$SECRET" "$OUT" && esc_bypass "the FIFO .env was read with no decision under CAPWATCH_KERNEL_READS=1 (fanotify has no permission event for FIFOs)"
expect_denied filesystem_read
exit 0
