#!/bin/sh
# E57 (race): a FIFO swapped with a regular file under one name, between
# capwatch's look at the name and its own open. capwatch opens an allowed
# read itself; if that open blocks on a FIFO with no writer, its event
# loop blocks with it, and every other thread of the tree (and --timeout)
# stalls. The swapper (src/e57c_fifo_swap, renameat2 RENAME_EXCHANGE in a
# loop) runs outside capwatch: inside, its renames would be serialized
# with the opens by the supervisor itself. Under capwatch one thread opens
# the name for reading in a loop (it may block on the FIFO: its own
# business) and another opens an unrelated file and counts. Pass: the
# counter keeps moving while the swapper runs.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e57c_fifo_swap
cat >"$T/open.py" <<'EOF2'
import os, sys, threading, time
name, secs = sys.argv[1], float(sys.argv[2])
stop = time.time() + secs
count = [0]
opens = [0]
def opener():
    while time.time() < stop:
        try:
            os.close(os.open(name, os.O_RDONLY))
            opens[0] += 1
        except OSError:
            pass
def counter():
    while True:
        os.close(os.open("/etc/hostname", os.O_RDONLY))
        count[0] += 1
# Each opener ends up blocked on the FIFO sooner or later (capwatch opens
# those on worker threads, at most 64): many of them give the race many
# tries before they are all stuck.
for _ in range(48):
    threading.Thread(target=opener, daemon=True).start()
threading.Thread(target=counter, daemon=True).start()
time.sleep(1)
before = count[0]
time.sleep(max(secs - 1, 1))
print("COUNT before=%d after=%d opens=%d" % (before, count[0], opens[0]), flush=True)
os._exit(0)
EOF2
secs=$RACE
[ "$secs" -ge 3 ] || secs=3
# Bare control: with the swapper running, the opener really lands on the
# FIFO (it blocks there, so its opens stop early), which is what would
# stall a supervisor that opened the name on its event loop.
# swapper_up: until the swapper has made both names (it swaps them
# atomically from then on).
swapper_up() {
	_i=0
	until [ -e "$W/f" ] && [ -e "$W/f.fifo" ]; do
		_i=$((_i + 1))
		[ $_i -gt 200 ] && fail "the swapper did not start: $(cat "$1")"
		sleep 0.02
	done
}
"$ESC_BIN/e57c_fifo_swap" "$W/f" 4 >"$O/swap0.out" 2>&1 &
SW=$!
esc_bg_started $SW
swapper_up "$O/swap0.out"
cat >"$T/probe.py" <<'EOF2'
import os, sys, threading, time
def opener():
    while True:
        os.close(os.open(sys.argv[1], os.O_RDONLY))
t = threading.Thread(target=opener, daemon=True)
t.start(); t.join(2)
print("blocked" if t.is_alive() else "returned")
os._exit(0)
EOF2
bare "$CW_PY" "$T/probe.py" "$W/f"
grep -q blocked "$O/bare.out" || esc_control_failed "the swapped-in FIFO never blocked a bare open: $(cat "$O/bare.out")"
# (the control's swapper is done with: not waited for to its 4 s end)
esc_kill $SW
rm -f "$W/f" "$W/f.fifo"
"$ESC_BIN/e57c_fifo_swap" "$W/f" $((secs + 3)) >"$O/swap.out" 2>&1 &
esc_bg_started $!
swapper_up "$O/swap.out"
ESC_TIMEOUT=$((secs + 60)) under verify --timeout $((secs + 30)) -- "$CW_PY" "$T/open.py" "$W/f" "$secs"
line=$(grep '^COUNT' "$OUT")
esc_log "under capwatch, ${secs}s: $line; $(cat "$O/swap.out" 2>/dev/null)"
[ -n "$line" ] || esc_bypass "no count printed: the tree stalled (capwatch blocked in a FIFO open?): $(tail -3 "$OUT")"
before=$(echo "$line" | sed 's/.*before=\([0-9]*\).*/\1/')
after=$(echo "$line" | sed 's/.*after=\([0-9]*\).*/\1/')
[ "$after" -gt $((before + 100)) ] || esc_bypass "the counter thread stalled while a FIFO was swapped in ($line)"
report_has 'outcome["kind"] != "timed_out"'
exit 0
