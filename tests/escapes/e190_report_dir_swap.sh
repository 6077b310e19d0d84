#!/bin/sh
# E190 (red team 22): capwatch's own files replaced through their
# directories. The report, the trace and the profile file were protected
# by their exact names only (e67), so under verify the command could
# rename the directory holding them away (an ordinary workspace_write)
# and a directory it had prepared, with a forged report, trace or
# profile, into its place: the user then read the command's report at the
# --report path, and the next run with the same command line loaded the
# command's profile. The same through a symlink in the name the report
# was given by (replace the link). Capability sought: protected_metadata.
# A directory above one of these files may not be renamed (either end)
# or removed now (cw_path_holds_protected); its mode and times, and files
# beside the report, stay ordinary workspace writes.
# Parts 5 and 6: the names as the kernel walks them, not collapsed. A
# report given as sub/../report.json through a symlink sub was protected
# as ws/report.json, a name nothing walks, and sub was no directory above
# it: the command replaced sub (and with it what sub/.. is). A profile
# extending "lib/base.json" with conf/lib a symlink was protected by its
# realpath only: the command retargeted conf/lib and the next run loaded
# its base profile. Now every name walked is protected (cw_walked_names).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
swap='mv out out.real && mkdir fake && echo "{\"forged\":true}" > fake/report.json && echo "{\"forged\":true}" > fake/trace.jsonl && mv fake out'
relink='rm link && mkdir fake && echo "{\"forged\":true}" > fake/report.json && ln -s fake link'
profswap='mv conf conf.real && echo "{\"name\":\"x\",\"extends\":\"observe\"}" > conf.real/p.json && mv conf.real conf'

# Positive controls: bare, each swap puts the forged file at the name.
cd "$W" || fail "cd $W"
mkdir -p out conf && echo '{}' >out/report.json && echo >out/trace.jsonl
bare sh -c "$swap"
grep -q forged "$W/out/report.json" || esc_control_failed "bare: the directory swap did not replace out/report.json"
rm -rf "$W/out" "$W/out.real" "$W/fake"
mkdir out && ln -s out link && echo '{}' >out/report.json
bare sh -c "$relink"
grep -q forged "$W/link/report.json" || esc_control_failed "bare: the relinked name did not show the forged report"
rm -rf "$W/out" "$W/link" "$W/fake"
printf '{"name":"mine","extends":"verify","capabilities":{"external_network":"deny"}}\n' >conf/p.json
cp conf/p.json "$O/p.orig"
bare sh -c "$profswap"
grep -q observe "$W/conf/p.json" || esc_control_failed "bare: the profile swap did not rewrite conf/p.json"
rm -rf "$W/conf" "$W/conf.real"

# 1. The report's and trace's directory renamed away, a forged one in.
mkdir -p "$W/out"
N=$((N + 1)); R=$W/out/report.json TR=$W/out/trace.jsonl OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile verify --report out/report.json --trace out/trace.jsonl -- sh -c "$swap" >"$OUT" 2>&1
rc=$?
[ -d "$W/out.real" ] && esc_bypass "the command renamed the report's directory away (exit $rc)"
grep -qx "{\"forged\":true}" "$R" "$TR" && esc_bypass "a forged report or trace is at the --report/--trace name"
report_has 'd["schema"] == "capwatch.report/v1"'
expect_denied protected_metadata "lambda s: s.endswith('/out')"
rm -rf "$W/out" "$W/fake"

# 2. The report named through a symlink: the link replaced.
mkdir "$W/out" && ln -s out "$W/link"
N=$((N + 1)); R=$W/link/report.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile verify --report link/report.json -- sh -c "$relink" >"$OUT" 2>&1
rc=$?
[ -L "$W/link" ] && [ "$(readlink "$W/link")" = out ] || esc_bypass "the command replaced the symlink the report was named by (exit $rc)"
grep -qx "{\"forged\":true}" "$R" && esc_bypass "a forged report is at the --report name"
report_has 'd["schema"] == "capwatch.report/v1"'
expect_denied protected_metadata "lambda s: s.endswith('/link')"
rm -rf "$W/out" "$W/link" "$W/fake"

# 3. The profile file's directory swapped: the next run's profile.
mkdir "$W/conf" && cp "$O/p.orig" "$W/conf/p.json"
N=$((N + 1)); R=$O/report$N.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile conf/p.json --report "$R" -- sh -c "$profswap" >"$OUT" 2>&1
rc=$?
cmp -s "$W/conf/p.json" "$O/p.orig" || esc_bypass "the command rewrote the run's profile through its directory: $(cat "$W/conf/p.json")"
[ -d "$W/conf.real" ] && esc_bypass "the command renamed the profile's directory away"
expect_denied protected_metadata "lambda s: s.endswith('/conf')"

# 4. Not over-blocked: beside the report, and the directory's mode and
# times, are ordinary workspace writes.
rm -rf "$W/out" && mkdir "$W/out"
N=$((N + 1)); R=$W/out/report.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile verify --report out/report.json -- \
	sh -c 'echo x > out/other.txt && mv out/other.txt out/moved.txt && chmod 755 out && touch out && mkdir out/sub && rmdir out/sub' >"$OUT" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$OUT" >&2; fail "ordinary writes beside the report failed (exit $rc)"; }
[ -f "$W/out/moved.txt" ] || fail "out/moved.txt was not made"
report_has 'not [e for e in d["denials"]]'
# 5. The report given as sub/../report.json, sub a symlink into real/x:
# (a) sub replaced by a link into a forged directory, (b) real/x, the
# directory behind the link, replaced the same way.
relinkdd='mkdir -p forge/y && echo "{\"forged\":true}" > forge/report.json && ln -s forge/y newlink && mv -T newlink sub'
behind='mkdir -p forge/y && echo "{\"forged\":true}" > forge/report.json && mv real/x real/x.old && ln -s ../forge/y real/x'
for part in relinkdd behind; do
	eval "attack=\$$part"
	rm -rf "$W/real" "$W/sub" "$W/forge" "$W/newlink" && mkdir -p "$W/real/x" && ln -s real/x "$W/sub"
	echo '{}' >"$W/real/report.json"
	bare sh -c "$attack"
	grep -q forged "$W/sub/../report.json" || esc_control_failed "bare ($part): sub/../report.json is not the forged report"
	rm -rf "$W/real" "$W/sub" "$W/forge" "$W/newlink" && mkdir -p "$W/real/x" && ln -s real/x "$W/sub"
	N=$((N + 1)); R=$W/real/report.json OUT=$O/cw$N.out
	timeout -k 5 60 "$CAPWATCH" --profile verify --report sub/../report.json -- sh -c "$attack" >"$OUT" 2>&1
	rc=$?
	grep -qx "{\"forged\":true}" "$W/sub/../report.json" && esc_bypass "($part) a forged report is at the --report name sub/../report.json (exit $rc)"
	report_has 'd["schema"] == "capwatch.report/v1"'
	case $part in
	relinkdd) expect_denied protected_metadata "lambda s: s.endswith('/ws/sub')" ;;
	behind) expect_denied protected_metadata "lambda s: s.endswith('/real/x')" ;;
	esac
done
rm -rf "$W/real" "$W/sub" "$W/forge" "$W/newlink"

# 6. A profile extending "lib/base.json", conf/lib a symlink: the link
# retargeted to a directory whose base.json extends observe.
retarget='mkdir -p forge && echo "{\"name\":\"forged\",\"extends\":\"observe\"}" > forge/base.json && ln -s ../forge conf/newlib && mv -T conf/newlib conf/lib'
mkchain() {
	rm -rf "$W/conf" "$W/shared" "$W/forge" && mkdir -p "$W/conf" "$W/shared" && ln -s ../shared "$W/conf/lib"
	printf '{"name":"base","extends":"verify","capabilities":{"external_network":"deny"}}\n' >"$W/shared/base.json"
	printf '{"name":"mine","extends":"lib/base.json"}\n' >"$W/conf/p.json"
}
mkchain
cp "$W/conf/lib/base.json" "$O/base.orig"
bare sh -c "$retarget"
grep -q observe "$W/conf/lib/base.json" || esc_control_failed "bare: the retarget did not change conf/lib/base.json"
mkchain
N=$((N + 1)); R=$O/report$N.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile conf/p.json --report "$R" -- sh -c "$retarget" >"$OUT" 2>&1
rc=$?
cmp -s "$W/conf/lib/base.json" "$O/base.orig" || esc_bypass "the command changed the profile the next run extends: $(cat "$W/conf/lib/base.json") (exit $rc)"
expect_denied protected_metadata "lambda s: s.endswith('/conf/lib')"
exit 0
