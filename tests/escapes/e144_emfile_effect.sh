#!/bin/sh
# E144 (FD answers that fail): the command's descriptor table is full
# (RLIMIT_NOFILE reached) when it opens a file for writing, which the
# profile allows. The kernel takes the descriptor first (EMFILE, nothing
# done); capwatch performs the open itself and learns of the full table
# only when the descriptor cannot be installed (ADDFD: EMFILE). The call
# then fails with the kernel's errno, but the open has already acted:
#   new.txt   O_WRONLY|O_CREAT|O_TRUNC  created      (bare: absent)
#   keep.txt  O_WRONLY|O_TRUNC          truncated    (bare: intact)
#   lock      O_CREAT|O_EXCL, retried after one descriptor is closed:
#             EEXIST on the retry (a lock file nobody holds; bare: OK)
# and the trace records each as allowed with errno EMFILE. The errno is
# the kernel's (held); the effect of a call that failed is the finding.
# Seen at 2766b13 and at 2766b13^ (not new with the answer rework).
# Fixed: capwatch creates with O_EXCL (it knows what it made), installs the
# descriptor without answering, and only then cuts (O_TRUNC); when the
# install fails the file it made is removed (notify.c send_fd_acting).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cat >"$T/emfile.py" <<'PY'
import errno, os, sys
fds = []
try:
    while True:
        fds.append(os.dup(0))
except OSError as e:
    if e.errno != errno.EMFILE:
        raise
def tryopen(name, fl):
    try:
        fd = os.open(name, fl, 0o644)
        os.close(fd)
        return "OK"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
print("new", tryopen("new.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
print("keep", tryopen("keep.txt", os.O_WRONLY | os.O_TRUNC))
print("lock", tryopen("lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
os.close(fds.pop())
print("relock", tryopen("lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL))
for f in fds:
    os.close(f)
PY
prep() {
	rm -f "$W/new.txt" "$W/lock"
	canary_make "$W/keep.txt" "keep $$"
}
# result WHAT: the program's line for WHAT in FILE $2
res() { sed -n "s/^$1 //p" "$2"; }

# ---- positive control: bare, every open fails EMFILE and does nothing ----
prep
bare sh -c 'ulimit -n 64 && exec "$0" "$1"' "$CW_PY" "$T/emfile.py"
cat "$O/bare.out" >&2
[ "$(res new "$O/bare.out")" = EMFILE ] && [ "$(res keep "$O/bare.out")" = EMFILE ] &&
	[ "$(res lock "$O/bare.out")" = EMFILE ] && [ "$(res relock "$O/bare.out")" = OK ] ||
	esc_control_failed "bare: $(tr '\n' ' ' <"$O/bare.out")"
[ ! -e "$W/new.txt" ] && canary_intact "$W/keep.txt" ||
	esc_control_failed "bare: a failed open acted (new.txt $( [ -e "$W/new.txt" ] && echo exists), keep.txt $(canary_diff "$W/keep.txt"))"

# ---- under capwatch ----
prep
under verify -- sh -c 'ulimit -n 64 && exec "$0" "$1"' "$CW_PY" "$T/emfile.py"
cat "$OUT" >&2
[ "$(res new "$OUT")" = EMFILE ] && [ "$(res keep "$OUT")" = EMFILE ] && [ "$(res lock "$OUT")" = EMFILE ] ||
	fail "under capwatch the errno is not the kernel's EMFILE: $(tr '\n' ' ' <"$OUT")"
trace_has "[e['errno'] for e in ops('workspace_write', 'allow', '$W/new.txt')] == ['EMFILE']"
found=
[ -e "$W/new.txt" ] && found="$found new.txt was created;"
canary_intact "$W/keep.txt" || found="$found keep.txt was truncated ($(canary_diff "$W/keep.txt"));"
[ "$(res relock "$OUT")" = OK ] || found="$found the retried O_EXCL create saw $(res relock "$OUT");"
[ -z "$found" ] || esc_bypass "opens that failed with EMFILE acted:$found the trace says errno EMFILE"
exit 0
