#!/bin/sh
# Red team 8 (2026-12-02), under every back end: e158 made `ln` and `mv` of
# a file where a home's secret place leads through a link (~/.aws ->
# $D/aws, the dotfiles repository in the workspace) a secret read. The
# same link made from a descriptor is not: linkat(fd, "", AT_FDCWD,
# "notes.txt", AT_EMPTY_PATH) on an O_WRONLY open of aws/credentials (a
# workspace write, allowed under verify; an O_PATH open works under the
# portable back end too) is decided as a plain workspace write, because
# handlers/fs_path.c answered_early() computes the linked secret's name
# (op.secret_src, cw_secret_ids_linked_moved) only when the call is not on
# a descriptor (!fd_op), and the descriptor's resolved name is no secret
# by itself. notes.txt then reads as the secret whenever the start-up
# scan did not reach $D/aws by inode: here a vendored tree of 10,001
# files in the workspace spends the scan's 10,000 entries first (the
# scan's note is a note, not a denial). With a complete scan the link is
# still made with no denial, and only the later read is refused by inode.
# A plain `.env` linked the same way is refused (decide.c sees its name).
# Capability sought: filesystem_read of a secret under verify.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
D=$W/dotfiles
tok="AWS-$esc_name-$$"
mkdir -p "$D/aws" "$W/vendor" || fail "mkdir"
ln -s "$D/aws" "$H/.aws" || skip "no symbolic links in $T"
(cd "$W/vendor" && seq 1 10001 | xargs touch) || fail "vendor files"
reset() {
	rm -rf "$D/aws" "$W/notes_path.txt" "$W/notes_w.txt"
	mkdir -p "$D/aws"
	printf 'aws_secret_access_key=%s\n' "$tok" >"$D/aws/credentials"
	echo "a public file" >"$D/README"
}
# flink MODE SRC DST: link the file open on a descriptor (MODE path|w)
# to DST, then print DST.
cat >"$T/flink.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
mode, src, dst = sys.argv[1:4]
try:
    fd = os.open(src, (os.O_PATH if mode == "path" else os.O_WRONLY) | os.O_CLOEXEC)
except OSError as e:
    print("open %s: %s" % (mode, e)); sys.exit(2)
if libc.linkat(fd, b"", -100, dst.encode(), 0x1000) != 0:  # AT_FDCWD, AT_EMPTY_PATH
    print("linkat %s: %s" % (mode, os.strerror(ctypes.get_errno()))); sys.exit(3)
sys.stdout.write(open(dst).read())
EOF
ATTACK='python3 "'$T'/flink.py" path "'$D'/aws/credentials" "'$W'/notes_path.txt";
python3 "'$T'/flink.py" w "'$D'/aws/credentials" "'$W'/notes_w.txt"; cat "'$D'/README"'
# Positive control: bare, both links read as the secret.
reset
HOME=$H bare sh -c "$ATTACK"
[ "$(grep -c "$tok" "$O/bare.out")" = 2 ] || esc_control_failed "bare: $(cat "$O/bare.out")"

check() { # WHAT [OPTS...]
	_w=$1
	shift
	reset
	HOME=$H under verify "$@" -- sh -c "$ATTACK"
	grep -q "$tok" "$OUT" &&
		esc_bypass "$_w: ~/.aws's credentials linked from a descriptor and read under another name: $(grep -B1 "$tok" "$OUT" | head -4)"
	grep -q "a public file" "$OUT" || fail "$_w: the README (no secret) was not read: $(cat "$OUT")"
	expect_denied filesystem_read
	report_has 'all(e["rule"] == "verify:filesystem_read_secret:default" for e in denials("filesystem_read"))' \
		'any(e["syscall"] == "linkat" for e in denials("filesystem_read"))'
	esc_log "$_w: $(json_get "$R" 'd["outcome"]["enforcement"]["backend"]'): denied"
}

esc_each_backend check
exit 0
