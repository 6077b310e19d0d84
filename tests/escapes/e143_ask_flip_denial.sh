#!/bin/sh
# E143 (approval x E09): the path of an open that waits for an approver
# is rewritten by another thread while the question is open, and the
# approver says "deny". Since 2766b13 any answer runs the open's handler
# again on the saved notification; the re-run decides on the rewritten
# bytes, and the approver's denial meets the decision only while the
# operation is still the one asked about. When it is not, the denial is
# dropped: it is in neither the report nor the trace (only the "waiting
# for approval" note is), the run can end "success", and the same
# notification is asked again under each new name.
#
#   1. asked about x.lock, rewritten to free.txt (the profile allows it),
#      denied: the call succeeds on free.txt (decided on its own: by
#      design) and the approver's deny of x.lock must be a denial of the
#      report (at 2766b13^: EACCES, one denial "approval:socket:once").
#   2. the name moves on all the time (cNNNNNNN.lock), the approver denies
#      each question: every deny the approver gave must be a denial of the
#      report (at 2766b13^: one question, one denial).
#   3. the built-in verify profile (asks before the network), in a private
#      netns: connect(203.0.113.7:80) asked, the sockaddr rewritten to a
#      loopback listener (isolated_loopback, allowed), denied: the
#      approver's deny of external_network 203.0.113.7:80 must be a denial
#      of the report.
#
# Positive control: bare, the program's flipper rewrites the buffer and the
# open succeeds (there is nobody to ask).
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e143_ask_flip
P=$ESC_BIN/e143_ask_flip
PROF=$(esc_profile locks '{"workspace_write": {"ask": ["**/*.lock"]}}' verify)


# ---- positive control ----
: >"$W/asked"
bare "$P" once "$W/x.lock" "$W/free.txt" "$W/asked" "$W/flipped"
grep -q '^open=OK' "$O/bare.out" && grep -q '^flips=1' "$O/bare.out" ||
	esc_control_failed "bare: $(cat "$O/bare.out")"
rm -f "$W/asked" "$W/flipped" "$W/x.lock" "$W/free.txt"

# ---- 1. deny, the operation changed to an allowed one ----
esc_with_approver one deny "$W/asked" "$W/flipped" -- "$P" once "$W/x.lock" "$W/free.txt" "$W/asked" "$W/flipped"
cat "$OUT" >&2
[ "${asks:-0}" -ge 1 ] || fail "1: the approver was never asked (exit $rc)"
grep -q "\"scope\": \"$W/x.lock\"" "$O/one.log" || fail "1: the first question was not about x.lock: $(cat "$O/one.log")"
[ ! -e "$W/x.lock" ] || esc_bypass "1: x.lock was created after the approver denied it"
"$CW_PY" "$CWCHECK" report "$R" "len(denials('workspace_write', '$W/x.lock')) >= 1" \
	"denied_run()" ||
	esc_bypass "1: the approver denied workspace_write $W/x.lock; the report has no such denial (outcome $("$CW_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcome"]["kind"])' "$R"), program: $(grep '^open=' "$OUT"))"

# ---- 2. the name moves on; every question denied ----
rm -f "$W"/*.lock
esc_with_approver two deny -- "$P" cycle "$W/x.lock" "$W" 2
cat "$OUT" >&2
grep -q '^open=EACCES' "$OUT" || fail "2: the open was not denied: $(grep '^open=' "$OUT") (exit $rc)"
ls "$W"/*.lock >/dev/null 2>&1 && esc_bypass "2: a .lock file was created: $(ls "$W"/*.lock | head -3)"
nd=$("$CW_PY" - "$R" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for e in d.get("denials") or [] if e.get("source") == "approval"
          or str(e.get("rule", "")).startswith("approval:")))
PY
)
esc_log "2: $asks questions for one open, $nd denials by the approver in the report"
[ "$nd" = "$asks" ] ||
	esc_bypass "2: the approver denied $asks questions of one open; the report holds $nd of those denials"

# ---- 3. connect under the built-in verify profile ----
"$CW_PY" -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 8081)); s.listen(8)
open(sys.argv[1] + ".ready", "w").close()
while True:
    c, _ = s.accept()
    open(sys.argv[1], "a").write("hit\n")
    c.close()
' "$O/lo.hits" &
esc_bg_started $!
i=0
while [ ! -e "$O/lo.hits.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
rm -f "$W/asked" "$W/flipped"
: >"$W/asked"
bare "$P" connect "$SINK_ADDR:80" 127.0.0.1:8081 "$W/asked" "$W/flipped"
grep -q '^connect=OK' "$O/bare.out" || esc_control_failed "bare: the rewritten connect did not reach the loopback listener: $(cat "$O/bare.out")"
rm -f "$W/asked" "$W/flipped"
PROF=verify
esc_with_approver three deny "$W/asked" "$W/flipped" -- "$P" connect "$SINK_ADDR:80" 127.0.0.1:8081 "$W/asked" "$W/flipped"
cat "$OUT" >&2
grep -q "\"scope\": \"$SINK_ADDR:80\"" "$O/three.log" || fail "3: the question was not about $SINK_ADDR:80: $(cat "$O/three.log")"
"$CW_PY" "$CWCHECK" report "$R" "len(denials('external_network', '$SINK_ADDR:80')) >= 1" \
	"denied_run()" ||
	esc_bypass "3: the approver denied external_network $SINK_ADDR:80; the report has no such denial (outcome $("$CW_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcome"]["kind"])' "$R"), program: $(grep '^connect=' "$OUT"))"
exit 0
