#!/bin/sh
# E91: perf_event_open(software task-clock, pid 0, cpu -1): the perf
# subsystem (a large kernel attack surface; with pid of another process or
# a tracepoint, an observation channel on the rest of the machine).
# Capability sought: unrestricted (perf).
# Expected: refused, recorded as an unrestricted denial naming
# perf_event_open.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
cmd='import ctypes
libc = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint8 * 128)()
ctypes.c_uint32.from_buffer(attr, 0).value = 1    # type PERF_TYPE_SOFTWARE
ctypes.c_uint32.from_buffer(attr, 4).value = 128  # size
ctypes.c_uint64.from_buffer(attr, 8).value = 1    # config PERF_COUNT_SW_TASK_CLOCK
ctypes.c_uint64.from_buffer(attr, 40).value = 1 | (1 << 5) | (1 << 6)  # disabled, exclude_kernel, exclude_hv
r = libc.syscall(298, attr, 0, -1, -1, 0)
print("perf ok %d" % r if r >= 0 else "perf failed %d" % ctypes.get_errno())'
bare "$PY" -c "$cmd"
grep -q 'perf ok' "$O/bare.out" || { grep -q 'perf failed 2$\|perf failed 38' "$O/bare.out" && skip "no perf events in this kernel"; esc_control_failed "bare perf_event_open failed: $(cat "$O/bare.out")"; }
under readonly -- "$PY" -c "$cmd"
grep -q 'perf ok' "$OUT" && esc_bypass "perf_event_open succeeded under --profile readonly"
expect_denied unrestricted "'perf_event_open'"
exit 0
