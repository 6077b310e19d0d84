#!/bin/sh
# E49: descriptors inherited from the launcher: fd 3 opened for append on a
# file outside the workspace before capwatch starts. capwatch must not pass
# it on (close_range at start).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
canary_make "$H/.bashrc"
bare sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" && esc_control_failed "bare write to the inherited fd 3 failed"
canary_make "$H/.bashrc"
under readonly -- sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "the command wrote $H/.bashrc through an inherited fd 3"
# Closed, and said so: the report names what fd 3 was (issue 14 item 9).
report_has 'any(f["fd"] == 3 and f["kind"] == "file" and f["mode"] == "w" and f["action"] == "closed" and f["path"].endswith("/home/.bashrc") for f in d["inheritedFds"])'
# Asked for with --keep-fd, it is decided like an open for writing of
# $H/.bashrc: outside every workspace, unrestricted, refused and closed.
canary_make "$H/.bashrc"
under verify --keep-fd 3 -- sh -c 'echo pwn >&3' 3>>"$H/.bashrc"
canary_intact "$H/.bashrc" || esc_bypass "--keep-fd 3 passed a descriptor the profile denies"
report_has 'any(x["syscall"] == "keep-fd" and x["capability"]["kind"] == "unrestricted" for x in d["denials"])'
report_has 'd["outcome"]["kind"] == "enforcement_denied"'
report_has 'any(f["fd"] == 3 and f["action"] == "closed" for f in d["inheritedFds"])'
# The same for a file in the workspace under verify: allowed and passed.
: >"$W/log.txt"
under verify --keep-fd 3 -- sh -c 'echo kept >&3' 3>>"$W/log.txt"
grep -q kept "$W/log.txt" || fail "--keep-fd 3 on a workspace file allowed by verify did not reach the command (rc $rc)"
report_has 'any(f["fd"] == 3 and f["action"] == "passed" for f in d["inheritedFds"])'
# capwatch's own report descriptor (--report-fd) must not reach the command.
N=$((N + 1)); R=$O/report$N.json OUT=$O/cw$N.out
timeout -k 5 60 "$CAPWATCH" --profile readonly --report-fd 5 -- sh -c 'echo "{\"forged\": 1}" >&5' 5>"$R" >"$OUT" 2>&1
head -c 20 "$R" | grep -q forged && esc_bypass "the command wrote into capwatch's report descriptor"
report_has 'd["schema"] == "capwatch.report/v1"'
