#!/bin/sh
# The test-suite-like workload: N small "tests", each in its own temp dir
# under $TMPDIR (mktemp -d), each writing a few files, running shell tools
# over them, making loopback connections (cwb_work net) and cleaning up.
# Run it in a private network namespace (cwb_run --netns): the only
# network use is 127.0.0.1.
#   mix.sh CWB_WORK N
set -eu
work=$1
n=$2
i=0
while [ "$i" -lt "$n" ]; do
	d=$(mktemp -d)
	j=0
	while [ "$j" -lt 20 ]; do
		echo "case $i line $j value $((i * 31 + j * 7))" >>"$d/input.txt"
		j=$((j + 1))
	done
	sort -r "$d/input.txt" >"$d/sorted.txt"
	grep -c value "$d/sorted.txt" >"$d/count.txt"
	[ "$(cat "$d/count.txt")" = 20 ]
	sed 's/value/v/' "$d/input.txt" | sort >"$d/a.txt"
	sed 's/value/v/' "$d/sorted.txt" | sort >"$d/b.txt"
	cmp -s "$d/a.txt" "$d/b.txt"
	mkdir "$d/sub"
	mv "$d/a.txt" "$d/sub/a.txt"
	chmod 600 "$d/sub/a.txt"
	"$work" net 10
	rm -rf "$d"
	i=$((i + 1))
done
echo "mix: $n tests"
