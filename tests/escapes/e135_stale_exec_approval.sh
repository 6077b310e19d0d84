#!/bin/sh
# Kernel back end red team: an exec approval outlives its exec, and an
# inode number outlives its file.
#
# The exec notification approves the device and inode its allowed path
# names (exec.c prepare_exec -> cw_tracker_approve_image), and fanotify's
# decide_exec() lets any file opened for exec by that process through when
# its device and inode are in the list, before (and instead of) deciding
# its name. The portable back end empties the list at every exec stop
# (ptrace.c on_exec: p->napproved = 0) and trusts it only for an image no
# name names; the kernel back end never empties it.
#
# The attack (one python process, nothing but python approved to run
# besides the two allowed names). Since 2026-12-07 the approval holds
# the file open (O_PATH) while it stands, so step 2 finds no reuse under
# the kernel back end; the denied name is then denied as any other:
#  1. write an empty, non-executable $W/bin/prog (an allowed name) and
#     execve it: the notification allows it and approves its inode; the
#     kernel then fails the exec with EACCES (no x bit), before any
#     fanotify event;
#  2. unlink it and write copies of the payload until one gets the freed
#     inode number (ext4 hands it out again at once), rename that copy to
#     $W/evil (a denied name);
#  3. execve the allowed script $W/s, whose #! names $W/evil: the kernel
#     opens $W/evil for exec, decide_exec() finds its (dev, ino) among the
#     approvals and allows it (and ignore-marks it for the rest of the run).
# The payload's content was never at an allowed name. The portable back
# end kills it at the exec stop (the name $W/evil is decided: denied).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog payload
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
py=/usr/bin/python3
[ -x "$py" ] || skip "no /usr/bin/python3"
mkdir "$W/bin"
cp "$ESC_BIN/payload" "$T/payload.src"
printf '#!%s %s\n' "$W/evil" "$W/PAYLOAD_RAN" >"$W/s"
chmod +x "$W/s"
cat >"$T/attack.py" <<'PY'
import os, sys
W, src, approve = sys.argv[1], sys.argv[2], sys.argv[3] == "approve"
prog = W + "/bin/prog"
open(prog, "w").close()
os.chmod(prog, 0o644)
if approve:
    try:
        os.execv(prog, [prog])
    except OSError as e:
        print("step 1: exec of the non-executable allowed name:", e.strerror, flush=True)
ino = os.stat(prog).st_ino
os.unlink(prog)
data = open(src, "rb").read()
if not approve:
    # The control needs no inode reuse: the payload at the denied name.
    with open(W + "/evil", "wb") as f:
        f.write(data)
    os.chmod(W + "/evil", 0o755)
    os.execv(W + "/s", [W + "/s"])
got, made = None, []
for j in range(500):
    p = "%s/c%d" % (W, j)
    with open(p, "wb") as f:
        f.write(data)
    made.append(p)
    if os.stat(p).st_ino == ino:
        got = p
        break
reused = got is not None
if not reused:
    # Not handed out again (under the kernel back end the approval
    # holds the file open): the last copy is the payload, and the
    # denied name must be denied all the same.
    got = made[-1]
for p in made:
    if p != got:
        os.unlink(p)
print("step 2: inode %d reused: %s" % (ino, reused), flush=True)
os.rename(got, W + "/evil")
os.chmod(W + "/evil", 0o755)
os.execv(W + "/s", [W + "/s"])
PY
prof=$(esc_profile spawnlimit '{"process_spawn": {"default": "deny", "allow": ["/usr/bin/*", "/bin/*", "'"$W"'/bin/prog", "'"$W"'/s"]}}' verify)

bare "$py" "$T/attack.py" "$W" "$T/payload.src" approve
# The attack needs the freed inode number back. ext4 gives it to a later
# file of the directory only sometimes (it holds back an inode deleted
# moments ago while its inode table block is cached; another process may
# take it): when the bare run did not get it, nothing can be tested here.
grep -q 'reused: False' "$O/bare.out" &&
	skip "the file system did not hand the freed inode number out again: $(cat "$O/bare.out")"
[ -e "$W/PAYLOAD_RAN" ] || esc_control_failed "the payload did not run bare: $(cat "$O/bare.out")"
grep -q 'reused: True' "$O/bare.out" || esc_control_failed "no inode reuse on this file system: $(cat "$O/bare.out")"
rm -f "$W/PAYLOAD_RAN" "$W/evil"

# Control under capwatch: without step 1 the interpreter is denied.
under "$prof" --backend kernel -- "$py" "$T/attack.py" "$W" "$T/payload.src" noapprove
[ -e "$W/PAYLOAD_RAN" ] && fail "the profile does not deny the #! interpreter $W/evil: the test setup is wrong"
report_has "denials('process_spawn', '$W/evil')"
rm -f "$W/PAYLOAD_RAN" "$W/evil"

# For the log: the portable back end.
under "$prof" --backend portable -- "$py" "$T/attack.py" "$W" "$T/payload.src" approve
esc_log "portable back end: exit $rc, payload $( [ -e "$W/PAYLOAD_RAN" ] && echo RAN || echo 'did not run')"
rm -f "$W/PAYLOAD_RAN" "$W/evil"

# The kernel back end holds the approved file open until the thread's
# next exec or its end (kernel.c, cw_kernel_exec_allowed): its inode
# number cannot be handed out again meanwhile, so the attack's step 2
# should find no reuse. Either way the exec of the denied name must be
# denied: with a reused number, by not taking the stale approval.
rm -f "$W/PAYLOAD_RAN" "$W/evil" "$W"/c[0-9]*
under "$prof" --backend kernel -- "$py" "$T/attack.py" "$W" "$T/payload.src" approve
grep -q 'step 2:' "$OUT" || fail "the attack did not get to step 2 under capwatch: $(cat "$OUT")"
esc_log "kernel back end: $(grep 'step 2:' "$OUT")"
[ -e "$W/PAYLOAD_RAN" ] && esc_bypass "the denied #! interpreter $W/evil ran on a stale approval of a deleted file's inode (kernel back end, exit $rc, outcome $(json_get "$R" 'd["outcome"]["kind"]'), exe $(json_get "$R" '[p.get("exe") for p in d["processes"]]'))"
report_has 'outcome["kind"] in ("enforcement_denied", "policy_denied")' "denials('process_spawn', '$W/evil')"
