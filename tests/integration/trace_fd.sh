#!/bin/sh
# --trace-fd N streams the trace while the run goes (README "Fleets"): a
# reader on a pipe sees the command's exec line while the command is still
# running. The command waits on a FIFO that the reader opens only once it
# has seen that line, so the command cannot finish first: the lines came
# from a live run, not from the end of it. Then: the stream is the whole
# trace (header first, seq without gaps, the summary last); the command
# does not inherit the descriptor and cannot write the file behind it; an
# appending descriptor (3>>FILE) collects several runs in one file; usage
# errors exit 125 before anything runs.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir
mkfifo "$T/go"
echo probe >probe

"$PYTHON3" - "$CAPWATCH" "$T/go" "$W" <<'PY' || fail "streaming the trace from a live run"
import json, os, select, subprocess, sys, time
capwatch, fifo, ws = sys.argv[1:4]
r, w = os.pipe()
# the command waits for a line on the FIFO, then reads probe and says so
cmd = ["sh", "-c", 'read x <"$1" && cat probe && echo "$x" >got', "sh", fifo]
p = subprocess.Popen(["timeout", "-k", "5", "120", capwatch, "--profile", "verify", "--trace-fd", str(w),
                      "--"] + cmd, pass_fds=(w,), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(w)
buf, lines, released, deadline = b"", [], None, time.monotonic() + 90
while True:
    left = deadline - time.monotonic()
    if left <= 0:
        p.kill()
        sys.exit("no end of the trace in 90 s (%d lines, released: %s)" % (len(lines), released is not None))
    if not select.select([r], [], [], left)[0]:
        continue
    chunk = os.read(r, 65536)
    if not chunk:
        break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        e = json.loads(line)
        lines.append(e)
        if released is None and e.get("type") == "exec" and e.get("argv") == cmd:
            # the exec line is here: the command must still be waiting
            if p.poll() is not None:
                sys.exit("capwatch had exited when the exec line arrived")
            released = len(lines)
            with open(fifo, "w") as f:
                f.write("go\n")
os.close(r)
out, err = p.communicate(timeout=60)
assert p.returncode == 0, (p.returncode, err)
assert out == b"probe\n", out
assert open(os.path.join(ws, "got")).read() == "go\n"
assert released is not None, "no exec line of the command in the stream"
assert buf == b"", "a cut line at the end: %r" % buf[:200]
assert lines[0]["type"] == "header" and lines[0]["schema"] == "capwatch.trace/v1", lines[0]
assert lines[-1]["type"] == "summary" and lines[-1]["outcome"]["kind"] == "success", lines[-1]
assert [e["seq"] for e in lines[1:]] == list(range(1, len(lines))), "seq has gaps"
# what the command did after the release came after the exec line
probe = [i for i, e in enumerate(lines) if e.get("type") == "op" and e.get("scope") == os.path.join(ws, "probe")]
assert probe and min(probe) >= released, (probe, released)
print("# exec line seen while the command ran: line %d of %d" % (released, len(lines)), file=sys.stderr)
PY

# the command does not inherit the descriptor, and the file behind it is
# protected; an appending descriptor keeps both runs
set +e
cw --profile verify --trace-fd 3 -- sh -c 'echo forged >&3; echo forged >>trace.jsonl; echo ran' \
	3>>trace.jsonl >"$O/out1" 2>"$O/err1"
set -e
expect_rc 0 "a command writing to the trace's descriptor"
[ "$(cat "$O/out1")" = ran ] || fail "the command printed: $(cat "$O/out1")"
cw --profile verify --trace-fd 3 -- true 3>>trace.jsonl
expect_rc 0 "a second run appending to the same file"
if grep -qx forged trace.jsonl; then fail "the command wrote into the trace"; fi
"$PYTHON3" - "$W/trace.jsonl" <<'PY' || fail "two runs appended to one file"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
heads = [i for i, e in enumerate(ev) if e["type"] == "header"]
sums = [i for i, e in enumerate(ev) if e["type"] == "summary"]
assert len(heads) == 2 and len(sums) == 2 and heads[0] == 0 and sums[1] == len(ev) - 1, (heads, sums)
assert sums[0] == heads[1] - 1, (heads, sums)
first = ev[:heads[1]]
assert any(e["type"] == "op" and e["capability"] == "protected_metadata" and e["decision"] == "deny"
           and e["scope"].endswith("/trace.jsonl") for e in first), "the write of trace.jsonl was not denied"
# the shell went on ("echo ran") and exited 0: it tolerated the denial,
# and the run is not enforcement_denied (issue 17 item 11)
assert first[-1]["outcome"]["kind"] == "success", first[-1]
PY

# usage errors: nothing runs
for args in "--trace-fd 1" "--trace-fd x" "--trace-fd 3 --trace $O/t.jsonl" "--trace-fd 3 --report-fd 3" \
	"--trace-fd 3 --keep-fd 3" "--trace-fd 9"; do
	set +e
	# shellcheck disable=SC2086
	cw $args -- sh -c 'echo ran >marker' 3>/dev/null 2>"$O/err"
	set -e
	expect_rc 125 "capwatch $args"
	[ ! -e marker ] || fail "capwatch $args ran the command"
	grep -q "^capwatch: .*--trace" "$O/err" || { cat "$O/err" >&2; fail "capwatch $args: no message naming --trace-fd"; }
done
exit 0
