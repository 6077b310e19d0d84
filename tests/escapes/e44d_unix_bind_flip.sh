#!/bin/sh
# E44 (race): a unix bind() whose directory changes after capwatch's
# check. A second process of the tree flips a workspace symlink, "d", between a
# workspace directory and a directory outside the workspace (where verify
# denies creating files) while the first binds "d/sN.sock", by a relative
# name and by an absolute one. capwatch decides on the resolved directory,
# holds it (O_PATH, no symlinks) and binds in a helper whose private view
# maps the caller's name onto that directory (net_unix_bind.c): the name
# is never looked up again. A hit is a socket file in the outside
# directory; under verify every bind that succeeds must also say its own
# name in getsockname() (the name the caller gave).
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
mkdir "$W/in" "$T/outside" || fail "mkdir"
cat >"$T/flip.py" <<'PYEOF'
import os, socket, sys, time
secs, mode, ws, inside, outside = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
os.chdir(ws)
def flip():
    i = 0
    while True:
        t = "d.tmp%d" % (i % 2)
        try:
            if os.path.lexists(t):
                os.unlink(t)
            os.symlink(outside if i % 2 else inside, t)
            os.replace(t, "d")
        except OSError:
            pass
        i += 1
os.symlink(inside, "d")
flipper = os.fork()
if flipper == 0:
    flip()
attempts = ok = hits = badname = 0
errs = {}
end = time.time() + secs
first = os.environ.get("ESC_RACE_FIRST_HIT")
while time.time() < end:
    attempts += 1
    name = "d/s%d.sock" % attempts
    if mode == "abs":
        name = os.path.join(ws, name)
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(name)
        ok += 1
        if s.getsockname() != name:
            badname += 1
    except OSError as e:
        errs[e.errno] = errs.get(e.errno, 0) + 1
    s.close()
    n = len(os.listdir(outside))
    if n:
        hits = n
        if first:
            break
    for f in os.listdir(inside):
        os.unlink(os.path.join(inside, f))
os.kill(flipper, 9)
os.waitpid(flipper, 0)
print("errors", errs)
print("RACE attempts=%d ok=%d hits=%d badname=%d" % (attempts, ok, hits, badname), flush=True)
PYEOF
for m in rel abs; do
	rm -f "$T/outside/"* "$W/in/"* "$W/d" "$W/d.tmp"*
	bare "$PY" "$T/flip.py" "$(race_bare_secs)" $m "$W" "$W/in" "$T/outside"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "$m: bare flipper never bound in the outside directory: $(race_line "$O/bare.out")"
	esc_log "$m bare: $(race_line "$O/bare.out")"
	rm -f "$T/outside/"* "$W/in/"* "$W/d" "$W/d.tmp"*
	under verify -- "$PY" "$T/flip.py" "$RACE" $m "$W" "$W/in" "$T/outside"
	h=$(race_hits "$OUT")
	[ -n "$h" ] || { cat "$OUT" >&2; fail "$m: the race program printed no result under capwatch"; }
	esc_log "$m under capwatch, ${RACE}s: $(race_line "$OUT")"
	[ "$h" = 0 ] && [ -z "$(ls -A "$T/outside")" ] ||
		esc_bypass "$m: bind(\"d/sN.sock\") with d flipped $W/in <-> $T/outside created a socket outside under --profile verify: $(race_line "$OUT"); $(ls -A "$T/outside" | head -3)"
	race_need_ok
	grep -q 'badname=0$' "$OUT" || fail "$m: a bind under verify did not record the caller's name: $(race_line "$OUT")"
done
