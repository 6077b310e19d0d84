#!/bin/sh
# E145 (approval x E09): what an approver's "allow once" covers when the
# operation changes, or its asker dies, while the question is open
# (2766b13: any answer runs the handler again on the saved notification,
# and the answer meets the decision only while the operation is still the
# one asked about).
#   1. asked about a.lock, the path rewritten to b.lock (also "ask"), the
#      first question allowed: b.lock is asked about on its own, and denied
#      there; neither file is made.
#   2. asked about a.lock, rewritten to a file outside the workspace (the
#      profile denies it), allowed: refused as unrestricted, not made.
#   3. the asking process is SIGKILLed with its question open, then the
#      approver allows: nothing is made, nothing recorded as allowed.
# Positive controls: bare, the rewritten name is what gets opened (1, 2),
# and the child's open happens (3).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e143_ask_flip
P=$ESC_BIN/e143_ask_flip
PROF=$(esc_profile locks '{"workspace_write": {"ask": ["**/*.lock"]}}' verify)
mkdir -p "$H/out" || fail "mkdir"
EVIL=$H/out/evil.txt

clean() { rm -f "$W/asked" "$W/flipped" "$W/a.lock" "$W/b.lock" "$EVIL"; }

# ---- positive controls ----
for second in "$W/b.lock" "$EVIL"; do
	clean
	: >"$W/asked"
	bare "$P" once "$W/a.lock" "$second" "$W/asked" "$W/flipped"
	[ -e "$second" ] && [ ! -e "$W/a.lock" ] || esc_control_failed "bare: the rewritten name $second was never opened: $(cat "$O/bare.out")"
done
clean
(sleep 0.5; : >"$W/asked") &
bare "$P" kill "$W/a.lock" "$W/asked" "$W/flipped"
wait
[ -e "$W/a.lock" ] || esc_control_failed "bare: the child's open did not happen: $(cat "$O/bare.out")"

# ---- 1. allowed once for a.lock, rewritten to b.lock ----
clean
esc_with_approver one allow "$W/asked" "$W/flipped" -- "$P" once "$W/a.lock" "$W/b.lock" "$W/asked" "$W/flipped"
cat "$OUT" >&2
grep -q "\"scope\": \"$W/a.lock\"" "$O/one.log" || fail "1: the first question was not about a.lock: $(cat "$O/one.log")"
[ ! -e "$W/b.lock" ] || esc_bypass "1: b.lock was made on the approval of a.lock"
[ ! -e "$W/a.lock" ] || esc_bypass "1: a.lock was made (the open's name was b.lock by then)"
[ "$asks" = 2 ] && grep -q "\"scope\": \"$W/b.lock\"" "$O/one.log" ||
	fail "1: b.lock was not asked about on its own: $asks questions: $(cat "$O/one.log")"
grep -q '^open=EACCES' "$OUT" || fail "1: the open saw $(grep '^open=' "$OUT"), expected EACCES"
report_has "len(denials('workspace_write', '$W/b.lock')) == 1" "not d['approvals']"

# ---- 2. allowed once for a.lock, rewritten to a file outside ----
clean
esc_with_approver two allow "$W/asked" "$W/flipped" -- "$P" once "$W/a.lock" "$EVIL" "$W/asked" "$W/flipped"
cat "$OUT" >&2
[ "$asks" = 1 ] || fail "2: $asks questions, expected 1: $(cat "$O/two.log")"
[ ! -e "$EVIL" ] || esc_bypass "2: $EVIL (outside the workspace) was made on the approval of a.lock"
[ ! -e "$W/a.lock" ] || esc_bypass "2: a.lock was made (the open's name was $EVIL by then)"
grep -q '^open=E' "$OUT" || fail "2: the open saw $(grep '^open=' "$OUT")"
report_has "denials('unrestricted', '$EVIL')" "not d['approvals']"

# ---- 3. the asker is killed, then allowed ----
clean
esc_with_approver three allow "$W/asked" "$W/flipped" -- "$P" kill "$W/a.lock" "$W/asked" "$W/flipped"
cat "$OUT" >&2
grep -q '^child killed' "$OUT" || fail "3: the child was not killed with its question open: $(cat "$OUT")"
[ ! -e "$W/a.lock" ] || esc_bypass "3: a.lock was made for a process killed before the answer"
report_has "not d['approvals']"
trace_has "not ops('workspace_write', 'allow', '$W/a.lock')"
exit 0
