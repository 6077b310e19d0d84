#!/bin/sh
# E31 (reads): the command reads capwatch's own full environment (and a
# process outside the tree) through /proc/PID/environ, or its memory
# through /proc/PID/mem, defeating the environment sanitizer: a secret
# variable set for capwatch, not passed with --env-pass, must not reach the
# command. The other outside process is a sleep started by this test.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
secret="cw-secret-$$-$(od -An -N6 -tx1 /dev/urandom | tr -d ' ')"
cat >"$T/leak.py" <<'PYEOF'
import os, re, sys
pid = os.getppid() if sys.argv[1] == "parent" else int(sys.argv[1])
want = sys.argv[2].encode()
found = []
try:
    if want in open("/proc/%d/environ" % pid, "rb").read():
        found.append("environ")
except OSError as e:
    print("environ:", e)
try:
    maps = open("/proc/%d/maps" % pid).read().splitlines()
    with open("/proc/%d/mem" % pid, "rb", 0) as m:
        for l in maps:
            a, perm = l.split()[0], l.split()[1]
            if "r" not in perm or "[stack]" not in l:
                continue
            lo, hi = (int(x, 16) for x in a.split("-"))
            m.seek(lo)
            if want in m.read(hi - lo):
                found.append("mem")
except (OSError, ValueError) as e:
    print("mem:", e)
print("LEAKED" if found else "not found", found)
PYEOF
# Bare control: the parent's environment is readable.
bare env CW_TEST_SECRET="$secret" "$PY" -c "import subprocess, sys; subprocess.run(sys.argv[1:])" "$PY" "$T/leak.py" parent "$secret"
grep -q "LEAKED.*environ" "$O/bare.out" || esc_control_failed "bare read of the parent's environ found nothing: $(cat "$O/bare.out")"
# capwatch's sanitizer drops CW_TEST_SECRET; the command must not find it.
N=$((N + 1)); R=$O/report$N.json TR=$O/trace$N.jsonl OUT=$O/cw$N.out
CW_TEST_SECRET="$secret" timeout -k 5 60 "$CAPWATCH" --profile readonly --report "$R" --trace "$TR" -- "$PY" "$T/leak.py" parent "$secret" >"$OUT" 2>&1
grep -q LEAKED "$OUT" && esc_bypass "the command read capwatch's environment variable CW_TEST_SECRET (dropped by the sanitizer) via /proc/<capwatch>/$(sed -n 's/.*LEAKED \(.*\)/\1/p' "$OUT") under --profile readonly"
# A process outside the tree with the secret in its environment.
CW_TEST_SECRET="$secret" sleep 60 &
other=$!; esc_bg_started $other
under readonly -- "$PY" "$T/leak.py" "$other" "$secret"
grep -q LEAKED "$OUT" && esc_bypass "the command read the environment of a process outside the tree via /proc/$other/$(sed -n 's/.*LEAKED \(.*\)/\1/p' "$OUT")"
exit 0
