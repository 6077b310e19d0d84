#!/bin/sh
# Where a write lands decides its capability (contract section 2), on the
# path as the kernel resolves it: ".." and symlinks lead outside the
# workspace -> unrestricted, denied under verify, nothing written there.
# The run's scratch TMPDIR and /dev/null need no capability. --workspace
# replaces the default root (the cwd).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
OUT=$T/outside
mkdir "$OUT" sub
echo original > "$OUT/target"

# outside_denied TAG PATH CMD...: the write to PATH (outside) is denied.
outside_denied() {
	tag=$1 path=$2; shift 2
	cw --profile verify --report "$O/$tag.json" --trace "$O/$tag.jsonl" -- "$@" 2>"$O/$tag.err"
	cat "$O/$tag.err" >&2
	[ "$rc" != 0 ] || fail "$tag: the command succeeded"
	grep -q 'Permission denied' "$O/$tag.err" || fail "$tag: the command did not see EACCES"
	report_assert "$O/$tag.json" \
		"denied_run()" \
		"kind(denial['capability']) == 'unrestricted'" \
		"denial['capability']['scope'] == '$path'" \
		"len(denials('unrestricted', '$path')) >= 1"
	trace_assert "$O/$tag.jsonl" \
		"all(e['errno'] == 'EACCES' for e in ops('unrestricted', 'deny', '$path'))" \
		"len(ops('unrestricted', 'deny', '$path')) >= 1"
}

outside_denied dotdot "$OUT/f" sh -c 'echo x > sub/../../outside/f'
[ ! -e "$OUT/f" ] || fail "dotdot: $OUT/f was created"

ln -s ../outside/target link
outside_denied symlink "$OUT/target" sh -c 'echo overwritten > link'
[ "$(cat "$OUT/target")" = original ] || fail "symlink: the file outside the workspace was written through a link"

outside_denied abs "$OUT/target" rm -f "$OUT/target"
[ -e "$OUT/target" ] || fail "abs: a file outside the workspace was deleted"

outside_denied proc "$OUT/p" sh -c 'echo x > /proc/self/cwd/../outside/p'
[ ! -e "$OUT/p" ] || fail "proc: $OUT/p was created"
cat > dirfd.py <<'PY'
import os
fd = os.open("..", os.O_RDONLY | os.O_DIRECTORY)
os.open("outside/d", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
PY
outside_denied dirfd "$OUT/d" "$CW_PY" dirfd.py
[ ! -e "$OUT/d" ] || fail "dirfd: $OUT/d was created"

# A write inside the workspace through a symlinked directory that stays inside is fine.
ln -s sub insub
cw --profile verify --report "$O/in.json" -- sh -c 'echo y > insub/file'
expect_rc 0 "verify: write through a symlink that stays inside"
[ "$(cat sub/file)" = y ] || fail "the write through insub/ did not land in sub/"
report_assert "$O/in.json" "not denials()" "len(used('workspace_write', '$W/sub/file')) == 1"

# Scratch TMPDIR and /dev/null.
cw --profile verify --report "$O/scr.json" --trace "$O/scr.jsonl" -- sh -c '
	[ -n "$TMPDIR" ] && [ -d "$TMPDIR" ] || exit 10
	echo scratch > "$TMPDIR/s" && cat "$TMPDIR/s" && echo "$TMPDIR" && echo x > /dev/null' >"$O/scr.out"
expect_rc 0 "verify: write into the scratch TMPDIR and /dev/null"
[ "$(head -n1 "$O/scr.out")" = scratch ] || fail "scratch write/read failed"
SCR=$(sed -n 2p "$O/scr.out")
case $SCR in "$W"|"$W"/*) fail "the scratch TMPDIR $SCR is inside the workspace" ;; esac
report_assert "$O/scr.json" "not denials()" "outcome['kind'] == 'success'" \
	"not used(scope=R('$SCR/.*'))" "not used(scope='/dev/null')"
trace_assert "$O/scr.jsonl" "header.get('scratch') == '$SCR'"

# --workspace: only the named root is writable; the cwd is not a root then.
mkdir "$T/other"
cw --profile verify --workspace "$T/other" --report "$O/ws.json" -- sh -c "echo a > '$T/other/ok'; echo b > here" 2>/dev/null
[ "$rc" != 0 ] || fail "--workspace: writing into the cwd (not a root) succeeded"
[ "$(cat "$T/other/ok")" = a ] || fail "--workspace: writing into the named root failed"
[ ! -e here ] || fail "--workspace: the cwd was written although it is not a root"
report_assert "$O/ws.json" "d['workspaceRoots'] == ['$T/other']" \
	"kind(denial['capability']) == 'unrestricted'" "denial['capability']['scope'] == '$W/here'" \
	"len(used('workspace_write', '$T/other/ok')) == 1"

# Two roots: both writable, the cwd (not named) is not.
mkdir "$T/second"
cw --profile verify --workspace "$T/other" --workspace "$T/second" --report "$O/ws2.json" \
	-- sh -c "echo a > '$T/other/two' && echo b > '$T/second/two'"
expect_rc 0 "two --workspace roots"
[ -f "$T/other/two" ] && [ -f "$T/second/two" ] || fail "two roots: a write did not land"
report_assert "$O/ws2.json" "d['workspaceRoots'] == ['$T/other', '$T/second']" "not denials()"
exit 0
