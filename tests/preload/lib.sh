# Helpers of the preload tests. Source after tests/lib.sh.
PL_BIN=$top_builddir/tests/preload
PL_LIB=$top_builddir/preload/.libs/libcapwatch-preload.so
[ -r "$PL_LIB" ] || skip "the preload library was not built ($PL_LIB)"

# pl_ns SCRIPT: run the shell SCRIPT in a private network and mount
# namespace where /etc/hosts maps files.example.test to 203.0.113.7
# (a TEST-NET-3 address: nothing answers, and nothing leaves the namespace).
pl_ns() {
	unshare -n true 2>/dev/null || skip "cannot create a network namespace (unshare -n)"
	unshare -nm true 2>/dev/null || skip "cannot create a mount namespace (unshare -m)"
	printf '127.0.0.1 localhost\n203.0.113.7 files.example.test\n' >"$T/hosts"
	unshare -nm sh -c 'mount --bind "$1" /etc/hosts' sh "$T/hosts" 2>/dev/null ||
		skip "cannot bind-mount a test hosts file over /etc/hosts in a mount namespace"
	unshare -nm sh -c 'mount --bind "$1" /etc/hosts || exit 99; shift; ip link set lo up 2>/dev/null; exec sh -c "$@"' \
		sh "$T/hosts" "$1"
}
