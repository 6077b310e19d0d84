#!/bin/sh
# export --format sarif: results match the run's denials, and every log we
# write is valid SARIF 2.1.0 by Microsoft's SARIF Multitool (`validate`, with
# the SARIF and the GitHub rule sets) and by the official SARIF 2.1.0 JSON
# schema the multitool package ships. No schema of ours is involved.
#
# The multitool comes from the npm registry: npm install --prefix "$T/npm"
# @microsoft/sarif-multitool (a self-contained .NET binary, no dotnet needed).
# tools/install-deps makes such an install once in
# /var/cache/capwatch-tests/sarif-multitool, used when present; set
# SARIF_MULTITOOL_PREFIX to another directory holding one to reuse it
# instead of downloading ~100 MB per run. Without npm or when the install
# fails, every other check still runs and the test exits 77 saying so.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tools/lib.sh"
cw_tmpdir
T=$(cd "$T" && pwd -P)
set -e
NOTES=

# ---- the validator ----
MT= MT_SCHEMA=
setup_multitool() {
	cached=${CW_SARIF_MULTITOOL_DIR:-/var/cache/capwatch-tests/sarif-multitool}
	if [ -z "${SARIF_MULTITOOL_PREFIX:-}" ] && [ -d "$cached/node_modules/@microsoft/sarif-multitool" ]; then
		SARIF_MULTITOOL_PREFIX=$cached
	fi
	prefix=${SARIF_MULTITOOL_PREFIX:-$T/npm}
	if [ -z "${SARIF_MULTITOOL_PREFIX:-}" ]; then
		command -v npm >/dev/null 2>&1 || { NOTES="$NOTES npm-missing"; return 0; }
		if ! npm install --silent --no-audit --no-fund --prefix "$prefix" @microsoft/sarif-multitool \
			>"$T/npm.log" 2>&1; then
			sed 's/^/  npm: /' "$T/npm.log" | tail -5 >&2
			NOTES="$NOTES npm-install-failed"
			return 0
		fi
	fi
	# index.js of the package names the platform binary; calling it directly
	# avoids bin.js, which re-splits arguments through a shell
	MT=$(cd "$prefix" && node -e 'console.log(require("@microsoft/sarif-multitool"))' 2>/dev/null) || MT=
	if [ -z "$MT" ] || [ ! -f "$MT" ]; then
		NOTES="$NOTES multitool-no-binary-for-$(uname -s)-$(uname -m)"
		MT=
		return 0
	fi
	[ -x "$MT" ] || chmod u+x "$MT" # the package's postinstall does this; npm may not run it
	MT_SCHEMA=$(dirname "$MT")/sarif-2.1.0.json
	[ -f "$MT_SCHEMA" ] || fail "the multitool package lacks sarif-2.1.0.json"
	# ICU may be missing on a small system; the validator does not need it
	export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
	if ! "$MT" --version >"$T/mt.log" 2>&1; then
		cat "$T/mt.log" >&2
		NOTES="$NOTES multitool-does-not-run"
		MT=
	fi
}
setup_multitool

# mt_validate SARIF [1]: queue a copy of the log (as it is now) for the
# multitool; 1 = the self-test, the log is broken and must be flagged.
# mt_validate_all runs the multitool ONCE over every queued log (each start
# of the .NET binary costs about 2 s, and it accepts many files), then
# judges each log on its own: its verdict (the multitool's output log, read
# back: any result of level error on that file fails it, a tool notification
# of level error fails all), then the official schema through
# python3-jsonschema (also catches what the multitool's deserializer drops
# silently, e.g. an unknown "level" value).
n_mt=0
mt_validate() {
	[ -n "$MT" ] || return 0
	n_mt=$((n_mt + 1))
	mkdir -p "$T/mt"
	cp "$1" "$T/mt/$n_mt-$(basename "$1")"
	echo "${2:-0} $T/mt/$n_mt-$(basename "$1")" >>"$T/mt.list"
}
mt_validate_all() {
	[ -n "$MT" ] && [ "$n_mt" -gt 0 ] || return 0
	out=$T/validate.sarif
	set +e
	# shellcheck disable=SC2046 # the queued names have no spaces ($T is mktemp's)
	"$MT" validate --rule-kind "Sarif;Gh" -j "$MT_SCHEMA" -o "$out" $(cut -d' ' -f2 "$T/mt.list") >"$T/mt.log" 2>&1
	mrc=$?
	set -e
	[ "$mrc" -eq 0 ] || { cat "$T/mt.log" >&2; fail "sarif-multitool validate: exit $mrc"; }
	"$PYTHON3" - "$out" "$T/mt.list" "$MT_SCHEMA" "$T/mt.log" <<'P' || { cat "$T/mt.log" >&2; fail "a log is not valid SARIF (above)"; }
import json, os, re, sys, urllib.parse
import jsonschema
log = json.load(open(sys.argv[1]))
queued = [l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines()]
# every log was read: the console says how many it scanned
m = re.search(r"Done\. (\d+) files? scanned", open(sys.argv[4]).read())
assert m and int(m.group(1)) == len(queued), ("scanned", m and m.group(0), len(queued))
assert len(log["runs"]) == 1
run = log["runs"][0]
inv = run["invocations"][0]
assert inv.get("executionSuccessful") is True, inv
bad = [n for n in inv.get("toolExecutionNotifications", []) if n.get("level", "warning") == "error"]
assert not bad, bad
errors = {}
for r in run.get("results", []):
    if r.get("level", "warning") != "error":
        continue
    uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    u = urllib.parse.urlsplit(uri)
    assert u.scheme == "file", uri
    errors.setdefault(os.path.realpath(urllib.parse.unquote(u.path)), []).append(r)
schema = json.load(open(sys.argv[3]))
v = jsonschema.validators.validator_for(schema)(schema)
ok = True
for want, path in queued:
    errs = errors.pop(os.path.realpath(path), [])
    for r in errs:
        print(f"multitool: {path}:", r["ruleId"], json.dumps(r.get("message")), file=sys.stderr)
    if int(want):   # the self-test: a broken log must be flagged
        if not errs:
            print(f"{path}: the multitool did not flag a broken log", file=sys.stderr)
            ok = False
        continue
    if errs:
        print(f"{path}: {len(errs)} validation errors", file=sys.stderr)
        ok = False
    for e in v.iter_errors(json.load(open(path, encoding="utf-8"))):
        print(f"schema: {path}:", list(e.absolute_path), e.message, file=sys.stderr)
        ok = False
assert not errors, ("errors on files not queued", list(errors))
sys.exit(0 if ok else 1)
P
}

# ---- the checks of content ----
# check SARIF SOURCE [--flagged]: one result per denial of SOURCE (a trace or
# a report), in order, then the flagged allows; ruleId/ruleIndex/level,
# message and location as documented.
check() {
	"$PYTHON3" - "$@" <<'P' || fail "$1 does not match $2"
import json, sys, urllib.parse
sarif, src = sys.argv[1], sys.argv[2]
flagged = "--flagged" in sys.argv[3:]
raw = open(sarif, "rb").read()
raw.decode("utf-8")                      # strict: the log is UTF-8
log = json.loads(raw)
assert log["version"] == "2.1.0" and log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
assert len(log["runs"]) == 1
run = log["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "capwatch" and drv["version"], drv
rules = drv["rules"]

def b(o, k):
    if k + "_hex" in o:
        return bytes.fromhex(o[k + "_hex"])
    return o[k].encode() if isinstance(o.get(k), str) else None

first = open(src, encoding="utf-8").readline()
recs = []
if '"type"' in first and '"header"' in first:
    evs = [json.loads(l) for l in open(src, encoding="utf-8") if l.strip()]
    ops = [e for e in evs if e.get("type") == "op"]
    for e in ops:
        if e["decision"] != "allow":
            recs.append(dict(rule=e["rule"], cap=e["capability"], scope=e["scope"], sb=b(e, "scope"),
                             level="error" if e.get("enforced", True) else "warning",
                             na=e["next_action"], syscall=e["syscall"]))
    if flagged:
        for e in ops:
            if e["decision"] == "allow" and e.get("flagged"):
                recs.append(dict(rule=e["rule"], cap=e["capability"], scope=e["scope"], sb=b(e, "scope"),
                                 level="note", na="none", syscall=e["syscall"]))
else:
    rep = json.load(open(src, encoding="utf-8"))
    for d in rep["denials"]:
        c = d["capability"]
        recs.append(dict(rule=d["rule"], cap=c["kind"], scope=c["scope"], sb=b(c, "scope"),
                         level="error" if d["enforced"] else "warning", na=None, syscall=d["syscall"]))
    od = rep["outcome"].get("denial")
    if od and recs and recs[0]["cap"] == od["capability"]["kind"] and recs[0]["scope"] == od["capability"]["scope"]:
        recs[0]["na"] = od["nextAction"]

res = run["results"]
assert len(res) == len(recs), (len(res), len(recs), [r["ruleId"] for r in res])
assert len({r["id"] for r in rules}) == len(rules), "duplicate rules"
assert {r["id"] for r in rules} == {x["rule"] for x in recs}, (rules, recs)
for rule in rules:
    assert rule["shortDescription"]["text"] and rule["help"]["text"], rule
    assert rule["properties"]["capability"] in rule["shortDescription"]["text"], rule
bases = {k: v["uri"] for k, v in run.get("originalUriBaseIds", {}).items()}
for r, x in zip(res, recs):
    assert r["ruleId"] == x["rule"] and rules[r["ruleIndex"]]["id"] == x["rule"], (r, x)
    assert r["level"] == x["level"], (r["level"], x)
    m = r["message"]["text"]
    assert x["cap"] in m and x["scope"] in m and x["syscall"] in m, (m, x)
    p = r["properties"]
    assert p["capability"] == x["cap"] and p["scope"] == x["scope"], p
    if x["na"]:
        assert p["nextAction"] == x["na"], (p, x)
    assert p["nextAction"] in ("none", "request_approval", "change_command", "enable_sandbox"), p
    loc = r["locations"][0]
    assert loc["logicalLocations"][0]["kind"] == "module", loc
    path = x["sb"][5:] if x["sb"].startswith(b"unix:/") else x["sb"]
    if path.startswith(b"/"):
        a = loc["physicalLocation"]["artifactLocation"]
        uri = a["uri"]
        assert uri.isascii() and " " not in uri, uri
        if "uriBaseId" in a:
            uri = bases[a["uriBaseId"]] + uri
        u = urllib.parse.urlsplit(uri)
        assert u.scheme == "file" and u.netloc == "", uri
        assert urllib.parse.unquote_to_bytes(u.path) == path, (uri, path)
    else:
        assert "physicalLocation" not in loc, loc
print(f"{sarif}: {len(res)} results, {len(rules)} rules", file=sys.stderr)
P
}

# the validator works here: a broken log is flagged
if [ -n "$MT" ]; then
	"$GEN" build verify >"$T/b.jsonl"
	run_cw "$T/b.sarif" "$T/err" export --format sarif "$T/b.jsonl"
	expect_rc 0 "export sarif of a synthetic trace"
	"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runs"][0]["results"][0]["bogus"]=1; json.dump(d, open(sys.argv[2], "w"))' \
		"$T/b.sarif" "$T/broken.sarif"
	mt_validate "$T/broken.sarif" 1
fi

# ---- synthetic traces ----
# enforced denials (an ask denied for want of a terminal: request_approval)
"$GEN" build verify >"$T/b.jsonl"
run_cw "$T/out" "$T/err" export --format sarif "$T/b.jsonl" -o "$T/b.sarif"
expect_rc 0 "export sarif -o"
[ ! -s "$T/out" ] || fail "export -o wrote to stdout"
check "$T/b.sarif" "$T/b.jsonl"
has "$T/b.sarif" '"nextAction":	"request_approval"'
mt_validate "$T/b.sarif"
# observe mode: the same denials as warnings
"$GEN" build verify observe >"$T/o.jsonl"
run_cw "$T/o.sarif" "$T/err" export --format sarif "$T/o.jsonl"
expect_rc 0 "export sarif (observe)"
check "$T/o.sarif" "$T/o.jsonl"
has "$T/o.sarif" '"level":	"warning"'
hasnt "$T/o.sarif" '"level":	"error"'
mt_validate "$T/o.sarif"
# flagged allows only with --flagged
"$GEN" build observe >"$T/f.jsonl"
run_cw "$T/f.sarif" "$T/err" export --format sarif "$T/f.jsonl"
expect_rc 0 "export sarif without --flagged"
check "$T/f.sarif" "$T/f.jsonl"
run_cw "$T/ff.sarif" "$T/err" export --format sarif --flagged "$T/f.jsonl"
expect_rc 0 "export sarif --flagged"
check "$T/ff.sarif" "$T/f.jsonl" --flagged
has "$T/ff.sarif" '"level":	"note"'
mt_validate "$T/ff.sarif"
# paths that are not UTF-8, outside the workspace: absolute file URIs of the
# exact bytes
"$GEN" bytes none >"$T/y.jsonl"
run_cw "$T/y.sarif" "$T/err" export --format sarif "$T/y.jsonl"
expect_rc 0 "export sarif of non-UTF-8 paths"
check "$T/y.sarif" "$T/y.jsonl"
has "$T/y.sarif" '"uri":	"file:///opt/caf%E9/%FF%FE.txt"'
mt_validate "$T/y.sarif"
# usage
run_cw "$T/out" "$T/err" export --format html --flagged "$T/f.jsonl"
expect_rc 125 "--flagged without --format sarif"
run_cw "$T/out" "$T/err" export --format sarif "$T/nope.jsonl" -o "$T/n.sarif"
expect_rc 2 "export sarif of a missing trace"
[ ! -e "$T/n.sarif" ] || fail "a half-written log was left behind"

# ---- real runs ----
if [ "$CW" = "$CAPWATCH" ]; then
	mkdir "$T/ws" && cd "$T/ws"
	set +e
	"$CAPWATCH" --profile readonly --report "$T/r.json" --trace "$T/t.jsonl" -- \
		sh -c 'echo x > f; echo y > "$(printf "b\377d")"; exit 3' >"$T/out1" 2>"$T/err1"
	rc=$?
	set -e
	[ -s "$T/r.json" ] || { cat "$T/err1" >&2; fail "the supervisor wrote no report (exit $rc)"; }
	[ "$rc" -eq 3 ] || { cat "$T/err1" >&2; fail "the denied run exited $rc, expected 3"; }
	[ "$(json_get "$T/r.json" 'len(d["denials"])')" = 2 ] || { cat "$T/r.json" >&2; fail "expected 2 denials"; }
	for src in t.jsonl r.json; do
		run_cw "$T/real-$src.sarif" "$T/err" export --format sarif "$T/$src"
		expect_rc 0 "export sarif of a real $src"
		check "$T/real-$src.sarif" "$T/$src"
		# inside the workspace: relative to WORKSPACE, which is the root
		has "$T/real-$src.sarif" '"uri":	"b%FFd"'
		has "$T/real-$src.sarif" "\"uri\":	\"file://$T/ws/\""
		has "$T/real-$src.sarif" '"ruleId":	"readonly:workspace_write:default"'
		has "$T/real-$src.sarif" '"exitCode":	3'
		mt_validate "$T/real-$src.sarif"
	done
	# denied before it started: the report has the denial, the trace only
	# counts it (the log says so)
	set +e
	"$CAPWATCH" --profile none --report "$T/p.json" --trace "$T/p.jsonl" -- true >"$T/out1" 2>"$T/err1"
	rc=$?
	set -e
	[ "$rc" -eq 126 ] || { cat "$T/err1" >&2; fail "profile none: exit $rc, expected 126"; }
	run_cw "$T/p-r.sarif" "$T/err" export --format sarif "$T/p.json"
	expect_rc 0 "export sarif of a policy_denied report"
	check "$T/p-r.sarif" "$T/p.json"
	has "$T/p-r.sarif" '"ruleId":	"none:process_spawn:default"'
	mt_validate "$T/p-r.sarif"
	run_cw "$T/p-t.sarif" "$T/err" export --format sarif "$T/p.jsonl"
	expect_rc 0 "export sarif of a policy_denied trace"
	has "$T/p-t.sarif" "the command was denied before it started"
	mt_validate "$T/p-t.sarif"
	cd "$T"
	# a network denial, in a namespace of our own (no route off the box)
	if unshare -n true 2>/dev/null; then
		set +e
		unshare -n sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh \
			"$CAPWATCH" --profile readonly --report "$T/n.json" --trace "$T/n.jsonl" -- "$CW_PY" -c '
import socket
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("192.0.2.1", 9))
except OSError as e:
    print(e)
' >"$T/out2" 2>"$T/err2"
		rc=$?
		set -e
		[ -s "$T/n.json" ] || { cat "$T/err2" >&2; fail "no report of the network run (exit $rc)"; }
		for src in n.jsonl n.json; do
			run_cw "$T/net-$src.sarif" "$T/err" export --format sarif "$T/$src"
			expect_rc 0 "export sarif of a network denial ($src)"
			check "$T/net-$src.sarif" "$T/$src"
			has "$T/net-$src.sarif" '"ruleId":	"readonly:external_network:default"'
			has "$T/net-$src.sarif" '192.0.2.1:9'
			mt_validate "$T/net-$src.sarif"
		done
	else
		NOTES="$NOTES no-netns(network-denial-not-tested)"
	fi
else
	NOTES="$NOTES capwatch-does-not-dispatch(real-runs-not-tested)"
fi

mt_validate_all

if [ -z "$MT" ]; then
	echo "SKIP: content checks passed, but SARIF validation did not run:$NOTES" >&2
	exit 77
fi
[ -z "$NOTES" ] || echo "note:$NOTES" >&2
echo "validated $n_mt logs with $("$MT" --version 2>&1 | head -1)" >&2
exit 0
