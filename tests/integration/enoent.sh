#!/bin/sh
# Names that do not exist (issue 17 item 6): a call the kernel would fail
# with ENOENT gets ENOENT under capwatch too, and no denial. `rm -f nofile`
# under readonly exits 0 as bare; chmod and mv of a missing name say "No
# such file"; a library probing for .env under verify gets ENOENT; creating
# a file under readonly is still denied.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
cd "$W" || fail "cd $W"
cat >"$T/probe.py" <<'EOF2'
import errno, os
for what, f in (("read .env", lambda: open(".env").read()),
                ("read missing", lambda: open("missing.txt").read()),
                ("write missing", lambda: os.open("missing.txt", os.O_WRONLY)),
                ("chmod missing", lambda: os.chmod("missing.txt", 0o600)),
                ("rename missing", lambda: os.rename("missing.txt", "other.txt")),
                ("unlink missing", lambda: os.unlink("missing.txt")),
                ("rmdir missing", lambda: os.rmdir("missingdir"))):
    try:
        f()
        print(what, "ok")
    except OSError as e:
        print(what, errno.errorcode[e.errno])
EOF2
"$CW_PY" "$T/probe.py" >"$O/bare.out" 2>&1
for prof in readonly verify; do
	cw --profile "$prof" --report "$O/$prof.json" -- "$CW_PY" "$T/probe.py" >"$O/$prof.out" 2>"$O/$prof.err"
	cmp -s "$O/bare.out" "$O/$prof.out" || { diff "$O/bare.out" "$O/$prof.out" >&2; fail "$prof: answers differ from bare"; }
	report_assert "$O/$prof.json" "outcome['kind'] == 'success'" "len(d['denials']) == 0"
done
grep -q "^read .env ENOENT$" "$O/bare.out" || fail "bare: the probe did not see ENOENT"
cw --profile readonly --report "$O/rm.json" -- rm -f nofile >"$O/rm.out" 2>&1
expect_rc 0 "rm -f nofile under readonly"
report_assert "$O/rm.json" "len(d['denials']) == 0"
# A creation is still a write the profile decides.
cw --profile readonly --report "$O/touch.json" -- touch newfile >"$O/touch.out" 2>&1
[ "$rc" != 0 ] || fail "touch newfile under readonly succeeded"
[ ! -e newfile ] || fail "newfile was created under readonly"
report_assert "$O/touch.json" "denied_run()" "denial['capability']['kind'] == 'workspace_write'"
exit 0
