#!/bin/sh
# outcome.changes lists what the run did to the workspace: created,
# modified, deleted, renamed, each with its path, matching what is on disk
# after the run; files the command only read are not listed.
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

echo old > existing
echo gone > gone
echo aaa > a
echo untouched > readonly-input
cw --profile verify --report "$O/r.json" -- sh -c '
	cat readonly-input > /dev/null
	echo new > created
	echo more >> existing
	rm gone
	mv a b
	mkdir dir && echo f > dir/inner'
expect_rc 0 "verify: a run that changes the workspace"
[ "$(cat created)" = new ] && [ ! -e gone ] && [ ! -e a ] && [ "$(cat b)" = aaa ] && [ -f dir/inner ] \
	|| fail "the changes did not happen on disk"
p() { printf "R('(%s/)?%s')" "$W" "$1"; }
report_assert "$O/r.json" \
	"outcome['kind'] == 'success'" \
	"len(changes('created', $(p created))) == 1" \
	"len(changes('modified', $(p existing))) == 1" \
	"len(changes('deleted', $(p gone))) == 1" \
	"len(changes('renamed', $(p a))) == 1 and _m($(p b), changes('renamed', $(p a))[0].get('to'))" \
	"changes('created', $(p dir/inner))" \
	"not changes(path=$(p readonly-input))" \
	"not changes(path=$(p existing)) or all(c['kind'] == 'modified' for c in changes(path=$(p existing)))" \
	"not changes(path=$(p b)) or all(c['kind'] in ('renamed', 'created') for c in changes(path=$(p b)))"

# Nothing changed: an empty list.
cw --profile verify --report "$O/r2.json" -- cat existing >/dev/null
expect_rc 0 "verify: read only"
report_assert "$O/r2.json" "outcome['changes'] == []"
exit 0
