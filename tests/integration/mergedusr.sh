#!/bin/sh
# Merged /usr: "/bin", "/lib", ... are symlinks into /usr, and capwatch
# follows them without walking the path (supervisor/resolve.c), after one
# lstat() of the link proves it is the link it read at the start.
#  1. On this machine's own root (read only): names through the links
#     resolve as the kernel resolves them (".." after the link included),
#     and openat2(RESOLVE_NO_SYMLINKS) through one still fails ELOOP.
#  2. In a private mount namespace, in a root made in the temp dir: a
#     top-level link replaced during the run is followed to its new target
#     (the command reads the new file, and the trace says so).
. "$top_srcdir/tests/lib.sh"
cw_require_binary
cw_workdir

links=0
for l in bin lib; do
	[ -L "/$l" ] && links=$((links + 1))
done

if [ "$links" -gt 0 ]; then
	# -- 1. the host's links --
	cw -vv --profile verify --report "$O/host.json" --trace "$O/host.jsonl" -- sh -c '
		cat /lib/../etc/hostname 2>/dev/null && exit 11
		/bin/cat /lib/x86_64-linux-gnu/../../../etc/hostname >/dev/null || exit 12
		/bin/true || exit 13
		exit 0' 2>"$O/host.err"
	expect_rc 0 "reads through the merged-/usr links (stderr: $(tail -3 "$O/host.err"))"
	grep -q "merged /usr: .*/bin -> " "$O/host.err" || [ ! -L /bin ] ||
		fail "-vv does not name the merged-/usr links: $(grep merged "$O/host.err")"
	# What the kernel resolves these names to, computed here without capwatch.
	real_lib=$(readlink -f /lib)
	real_true=$(readlink -f /bin/true)
	trace_assert "$O/host.jsonl" \
		"any(e.get('syscall') == 'execve' and e['args'].get('path') == '/bin/true' and e['resolved'] == '$real_true' for e in ev if e.get('type') == 'op')"
	names_trace=$O/host.jsonl
	if cw_kernel_reads_run "$O/host.json"; then
		# Reads decided in the kernel (CAPWATCH_KERNEL_READS=1): cat's
		# opens are not notified. The kernel resolved the name: the read
		# is recorded once, at its fanotify event, under the file's own
		# name, and the failed probe is not recorded at all.
		trace_assert "$O/host.jsonl" \
			"any(e.get('via') == 'fanotify' and e.get('resolved') == '/etc/hostname' and not e['args'] for e in ops())" \
			"not ops(resolved='$(dirname "$real_lib")/etc/hostname')"
		# capwatch's resolver, on the same names, through a read that is
		# still notified there (openat2) and performed by capwatch.
		cat >"$T/o2.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
how = struct.pack("QQQ", os.O_RDONLY, 0, 0)
for p in sys.argv[1:]:
    fd = libc.syscall(437, -100, p.encode(), how, 24)
    print(fd >= 0, ctypes.get_errno() if fd < 0 else 0)
PY
		cw --profile verify --report "$O/o2.json" --trace "$O/o2.jsonl" -- "$CW_PY" "$T/o2.py" \
			/lib/../etc/hostname /lib/x86_64-linux-gnu/../../../etc/hostname >"$O/o2.out" 2>&1
		expect_rc 0 "openat2 through the merged-/usr links: $(cat "$O/o2.out")"
		[ "$(tr '\n' ' ' <"$O/o2.out")" = "False 2 True 0 " ] || fail "openat2 through the links: $(cat "$O/o2.out")"
		names_trace=$O/o2.jsonl
	fi
	trace_assert "$names_trace" \
		"any(e['args'].get('path') == '/lib/../etc/hostname' and e['resolved'] == '$(dirname "$real_lib")/etc/hostname' and e['errno'] == 'ENOENT' for e in ev if e.get('type') == 'op')" \
		"any(e['args'].get('path') == '/lib/x86_64-linux-gnu/../../../etc/hostname' and e['resolved'] == '/etc/hostname' for e in ev if e.get('type') == 'op')"

	# openat2 with RESOLVE_NO_SYMLINKS refuses the link itself, as bare.
	cat >"$T/nosym.py" <<'PY'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
how = struct.pack("QQQ", os.O_RDONLY, 0, 0x04)  # RESOLVE_NO_SYMLINKS
fd = libc.syscall(437, -100, sys.argv[1].encode(), how, 24)
print(fd, ctypes.get_errno())
PY
	target=$(ls /lib/*/libc.so.6 2>/dev/null | head -1)
	if [ -L /lib ] && [ -n "$target" ]; then
		bare=$("$CW_PY" "$T/nosym.py" "$target")
		[ "$bare" = "-1 40" ] || fail "control: bare openat2(RESOLVE_NO_SYMLINKS) of $target gave '$bare', not ELOOP"
		cw --profile verify --report "$O/nosym.json" -- "$CW_PY" "$T/nosym.py" "$target" >"$O/nosym.out"
		expect_rc 0 "openat2 NO_SYMLINKS under capwatch"
		[ "$(cat "$O/nosym.out")" = "-1 40" ] ||
			fail "openat2(RESOLVE_NO_SYMLINKS) of $target under capwatch gave '$(cat "$O/nosym.out")', not ELOOP"
	fi
fi

# -- 2. a link replaced during the run, in a root of our own --
unshare -m true 2>/dev/null || skip "no mount namespaces (unshare -m): the replaced-link case needs one"
command -v chroot >/dev/null || skip "no chroot"
R=$T/root
mkdir -p "$R/usr" "$R/etc" "$R/proc" "$R/dev" "$R/sys" "$R/tmp" "$R/d1" "$R/d2" ||
	fail "mkdir in $R"
for l in bin sbin lib lib32 lib64; do
	[ -e "/usr/$l" ] && ln -s "usr/$l" "$R/$l"
done
echo one >"$R/d1/f"
echo two >"$R/d2/f"
# "libx32" is one of the names capwatch looks at; this root has it.
ln -s d1 "$R/libx32"
cat >"$T/inner.sh" <<EOF
set -e
mount --make-rprivate / 2>/dev/null || true
for d in usr etc dev sys; do mount --rbind "/\$d" "$R/\$d"; done
mount -t proc proc "$R/proc"
mount -t tmpfs tmpfs "$R/tmp"
mkdir -p "$R$T"
mount --bind "$T" "$R$T"
abs_builddir=\$(cd "$top_builddir" && pwd -P)
mkdir -p "$R\$abs_builddir"
mount --bind "\$abs_builddir" "$R\$abs_builddir"
cd /
exec chroot "$R" timeout -k 5 60 "\$abs_builddir/capwatch" -vv --profile observe \
	--workspace "$W" --report "$O/swap.json" --trace "$O/swap.jsonl" -- /bin/sh -c '
	cat /libx32/f
	ln -s d2 /libx32.new && mv -T /libx32.new /libx32
	cat /libx32/f'
EOF
unshare -m sh "$T/inner.sh" >"$O/swap.out" 2>"$O/swap.err"
rc=$?
[ "$rc" = 0 ] || fail "the run in $R failed ($rc): $(tail -5 "$O/swap.err")"
grep -q "libx32 -> /d1" "$O/swap.err" || fail "capwatch did not take /libx32 for a merged-/usr link: $(grep merged "$O/swap.err")"
[ "$(tr '\n' ' ' <"$O/swap.out")" = "one two " ] ||
	fail "after /libx32 was replaced, the command read '$(tr '\n' ' ' <"$O/swap.out")', not 'one two'"
trace_assert "$O/swap.jsonl" \
	"[e['resolved'] for e in ev if e.get('type') == 'op' and e['args'].get('path') == '/libx32/f'] == ['/d1/f', '/d2/f']"
exit 0
