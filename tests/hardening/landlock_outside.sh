#!/bin/sh
# Landlock when the profile allows writes outside the workspace (issue 4
# item 4, session-1 note (g)). A custom profile allows "unrestricted"
# writes beneath one outside directory: the Landlock domain now covers
# that directory as well as the workspace, scratch and /dev, instead of
# being left out. The command's own writes (no supervisor in the way, as
# for what capwatch CONTINUEs) work there and are stopped elsewhere
# outside; capwatch itself runs with the layer listed. A profile whose
# scope can match anywhere ("**/...") still leaves the fs part out, and the
# trace says why.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
PROBE=$top_builddir/tests/hardening/ll_probe
[ -x "$PROBE" ] || fail "probe not built: $PROBE"
mkdir "$T/scratch" "$T/outside" "$T/allowed" || fail mkdir
echo canary > "$T/outside/canary"
cat > "$O/outw.json" <<JSON
{ "name": "outw", "extends": "verify",
  "capabilities": { "unrestricted": { "default": "deny", "allow": [ "$T/allowed/**", "personality" ] } } }
JSON
cat > "$O/anywhere.json" <<JSON
{ "name": "anywhere", "extends": "verify",
  "capabilities": { "unrestricted": { "default": "deny", "allow": [ "**/allowed/**" ] } } }
JSON

# 1. The domain, applied by capwatch's code to a child of the probe.
"$PROBE" "$O/outw.json" "$W" "$T/scratch" "$T/outside" "$T/allowed" > "$O/probe.txt" 2>&1
prc=$?
[ $prc = 77 ] && skip "Landlock unavailable: $(sed -n 's/^note //p' "$O/probe.txt")"
[ $prc = 0 ] || fail "ll_probe failed ($prc): $(cat "$O/probe.txt")"
grep -q '^layer landlock-abi[0-9]*:fs' "$O/probe.txt" || fail "no fs layer: $(cat "$O/probe.txt")"
want() { # NAME ERRNO
	got=$(sed -n "s/^$1 //p" "$O/probe.txt")
	[ "$got" = "$2" ] || fail "$1: errno $got, want $2 ($(tr '\n' ' ' < "$O/probe.txt"))"
}
want create_workspace 0
want create_scratch 0
want create_allowed 0
want mkdir_allowed 0
want create_allowed_deeper 0
want write_outside 13
want create_outside 13
want unlink_outside 13
[ "$(cat "$T/outside/canary")" = canary ] || fail "the canary outside changed"
[ -e "$T/outside/new" ] && fail "a file was created outside"
[ -e "$T/allowed/dir/deeper" ] || fail "the allowed write left no file"

# A scope that can match anywhere: no fs rules, and the note says why.
"$PROBE" "$O/anywhere.json" "$W" "$T/scratch" "$T/outside" > "$O/probe2.txt" 2>&1 ||
	fail "ll_probe anywhere: $(cat "$O/probe2.txt")"
grep -q '^layer landlock-abi[0-9]*:fs' "$O/probe2.txt" && fail "fs rules for a profile that allows writes anywhere"
grep -q '^note .*can match anywhere' "$O/probe2.txt" || fail "no reason given: $(cat "$O/probe2.txt")"
rm -rf "$T/allowed"/* "$W"/* "$T/scratch"/*

# 2. capwatch with the profile: the allowed write outside happens, another
# outside write is denied, and the report lists the Landlock fs layer.
cw --profile "$O/outw.json" --report "$O/r.json" -- sh -c '
	echo a > "$1/made" || exit 3
	echo b > "$2/evil" 2>/dev/null && exit 4
	echo ok > done' sh "$T/allowed" "$T/outside" 2> "$O/err.txt"
[ "$(cat "$T/allowed/made" 2>/dev/null)" = a ] || fail "the allowed write outside did not happen ($rc): $(cat "$O/err.txt")"
[ -e "$T/outside/evil" ] && fail "a write outside the allowed directory happened"
[ "$(cat done 2>/dev/null)" = ok ] || fail "the command did not finish ($rc): $(cat "$O/err.txt")"
layer=$(json_get "$O/r.json" '[l for l in d["outcome"]["enforcement"]["layers"] if l.startswith("landlock")]')
case $layer in *landlock-abi*:fs*) ;; *) fail "report layers lack landlock fs: $layer" ;; esac
# the shell went on and exited 0: the denial is there, tolerated (issue 17
# item 11), and the run is a success
report_assert "$O/r.json" "[e for e in denials('unrestricted', '$T/outside/evil') if e['enforced'] and e['tolerated']]" \
	"outcome['kind'] == 'success'"

# 3. The same run with the anywhere profile: no fs layer, a note in the trace.
cw --profile "$O/anywhere.json" --report "$O/r2.json" --trace "$O/t2.jsonl" -- true
[ $rc = 0 ] || fail "anywhere run failed ($rc)"
json_get "$O/r2.json" 'd["outcome"]["enforcement"]["layers"]' | grep -q ':fs' &&
	fail "report lists Landlock fs for a profile that allows writes anywhere"
grep -q 'landlock fs rules not applied.*can match anywhere' "$O/t2.jsonl" || fail "no note in the trace"
exit 0
