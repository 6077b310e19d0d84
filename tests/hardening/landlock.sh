#!/bin/sh
# Landlock backstop (issue 4 item 4). The domain capwatch builds stops the
# writes a command makes itself (what capwatch leaves to the kernel or a
# race would let through) outside the workspace, the scratch directory and
# /dev; capwatch's own emulated writes are unaffected; the report names the
# layer, and --no-landlock / --observe leave it out.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
PROBE=$top_builddir/tests/hardening/ll_probe
[ -x "$PROBE" ] || fail "probe not built: $PROBE"
mkdir "$T/scratch" "$T/outside" || fail mkdir
echo canary > "$T/outside/canary"

# 1. The domain itself, applied by capwatch's code to a child of the probe.
"$PROBE" verify "$W" "$T/scratch" "$T/outside" > "$O/probe.txt" 2>&1
prc=$?
[ $prc = 77 ] && skip "Landlock unavailable: $(sed -n 's/^note //p' "$O/probe.txt")"
[ $prc = 0 ] || fail "ll_probe failed ($prc): $(cat "$O/probe.txt")"
grep -q '^layer landlock-abi[0-9]*:fs' "$O/probe.txt" || fail "no fs layer: $(cat "$O/probe.txt")"
want() { # NAME ERRNO
	got=$(sed -n "s/^$1 //p" "$O/probe.txt")
	[ "$got" = "$2" ] || fail "$1: errno $got, want $2 ($(tr '\n' ' ' < "$O/probe.txt"))"
}
want create_workspace 0
want mkdir_workspace 0
want create_scratch 0
want write_devnull 0
want write_outside 13
want create_outside 13
want unlink_outside 13
if grep -q '^layer landlock-abi[3-9]' "$O/probe.txt"; then want truncate_outside 13; fi
want mknod_block_workspace 13
[ "$(cat "$T/outside/canary")" = canary ] || fail "the canary outside changed"
[ -e "$T/outside/new" ] && fail "a file was created outside"

# readonly: no workspace writes either; observe: no fs rules at all.
rm -rf "$W/ws-file" "$W/ws-dir"
"$PROBE" readonly "$W" "$T/scratch" "$T/outside" > "$O/probe-ro.txt" 2>&1 || fail "ll_probe readonly: $(cat "$O/probe-ro.txt")"
grep -q '^create_workspace 13$' "$O/probe-ro.txt" || fail "readonly: workspace create not stopped: $(cat "$O/probe-ro.txt")"
"$PROBE" observe "$W" "$T/scratch" "$T/outside" > "$O/probe-obs.txt" 2>&1 || fail "ll_probe observe: $(cat "$O/probe-obs.txt")"
grep -q '^layer none$' "$O/probe-obs.txt" || fail "observe got a Landlock layer: $(cat "$O/probe-obs.txt")"
rm -rf "$W/ws-file" "$W/ws-dir" "$W/blk" "$T/scratch/tmp-file"

# 2. capwatch applies it and says so; emulated writes still work, and so
# does a reopen of stderr when it is a file outside the workspace.
cw --report "$O/r.json" -- sh -c '
	echo a > f && mkdir d && mv f d/g && rm d/g && rmdir d &&
	echo t > "$TMPDIR/t" && echo n > /dev/null && echo e >> /dev/stderr && echo ok > done' 2> "$O/err.txt"
[ $rc = 0 ] || fail "emulated writes under Landlock failed ($rc): $(cat "$O/err.txt")"
[ "$(cat done)" = ok ] || fail "the command did not finish its writes"
grep -q '^e$' "$O/err.txt" || fail "the reopen of stderr (a file outside) failed: $(cat "$O/err.txt")"
layer=$(json_get "$O/r.json" '[l for l in d["outcome"]["enforcement"]["layers"] if l.startswith("landlock-abi")]')
case $layer in *landlock-abi*:fs*) ;; *) fail "report layers lack landlock: $layer" ;; esac

cw --no-landlock --report "$O/r2.json" -- true
[ $rc = 0 ] || fail "--no-landlock run failed ($rc)"
[ "$(json_get "$O/r2.json" 'any(l.startswith("landlock") for l in d["outcome"]["enforcement"]["layers"])')" = False ] ||
	fail "--no-landlock still reports the layer"
cw --observe --report "$O/r3.json" -- true
[ "$(json_get "$O/r3.json" 'any(l.startswith("landlock") for l in d["outcome"]["enforcement"]["layers"])')" = False ] ||
	fail "--observe reports a Landlock layer"
exit 0
