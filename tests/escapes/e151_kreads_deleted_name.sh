#!/bin/sh
# Kernel reads red team (CAPWATCH_KERNEL_READS=1): a secret read under
# the name " (deleted)". decide_read (supervisor/kernel.c) decides a
# read-only open at its FAN_OPEN_PERM event on readlink(/proc/self/fd/N)
# of the file the kernel opened, taken when the decider gets to it, not
# when the tree named it. A thread opens .env while another unlinks it
# (a workspace write: allowed under verify): once the unlink is done, the
# event's name is "$W/dI/.env (deleted)", whose last component is not
# ".env" (cw_path_is_secret), the unlink dropped the inode from the
# secret ids (cw_secret_ids_unlinking), and .env holds no key: allowed,
# the opener reads the secret. The decider's single thread is kept busy
# first by a 4 MiB key-free *.pem (scanned for a key in decide_read) so
# the unlink's notification runs between the two decisions. The portable
# back end decides the open on the name the tree gave: denied.
# Capability sought: filesystem_read of a secret (.env) under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
"$CAPWATCH" --backend kernel --report "$O/probe.json" -- /bin/true >"$O/probe.out" 2>&1 ||
	skip "no kernel back end here: $(cat "$O/probe.out")"
SECRET="E151_TOKEN=$$-hunter2"
TRIES=20
cat >"$T/race.py" <<'PYEOF'
import os, sys, threading, time
secret_hits, tries = 0, int(sys.argv[1])
for i in range(tries):
    got = []
    def decoy():
        try:
            os.close(os.open("decoy%d.pem" % i, os.O_RDONLY))
        except OSError:
            pass
    def reader():
        try:
            fd = os.open("d%d/.env" % i, os.O_RDONLY)
            got.append(os.read(fd, 4096).decode(errors="replace").strip())
            os.close(fd)
        except OSError as e:
            got.append("refused %d" % e.errno)
    a = threading.Thread(target=decoy); a.start()
    time.sleep(0.0003)
    b = threading.Thread(target=reader); b.start()
    time.sleep(0.0003)
    try:
        os.unlink("d%d/.env" % i)
    except OSError as e:
        pass
    a.join(); b.join()
    print("try", i, got[0] if got else "?")
PYEOF
setup() {
	_i=0
	while [ $_i -lt $TRIES ]; do
		rm -rf "$W/d$_i" && mkdir "$W/d$_i" && printf '%s\n' "$SECRET" >"$W/d$_i/.env" || fail "setup"
		[ -e "$W/decoy$_i.pem" ] || head -c 4194304 /dev/zero | tr '\0' A >"$W/decoy$_i.pem"
		_i=$((_i + 1))
	done
}
setup
bare "$PY" "$T/race.py" $TRIES
grep -q "$SECRET" "$O/bare.out" || esc_control_failed "the reader did not print the secret bare: $(head -3 "$O/bare.out")"

# The mode under attack (auto: the kernel back end as root; under
# CW_BACKEND=portable the same run shows the portable back end's answer).
setup
CAPWATCH_KERNEL_READS=1
export CAPWATCH_KERNEL_READS
under verify -- "$PY" "$T/race.py" $TRIES
esc_log "backend $(json_get "$R" 'd["outcome"]["enforcement"].get("backend")'): $(grep -c "$SECRET" "$OUT") of $TRIES reads got the secret, $(grep -c 'refused' "$OUT") refused"
esc_log "trace: $(grep -c '.env (deleted)' "$TR") events named '.env (deleted)'"
grep -q "$SECRET" "$OUT" && esc_bypass "the .env was read while it was unlinked: decided on the name \"... .env (deleted)\" under CAPWATCH_KERNEL_READS=1 ($(grep -c "$SECRET" "$OUT")/$TRIES tries)"
expect_denied filesystem_read
exit 0
