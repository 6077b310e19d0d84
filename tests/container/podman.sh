#!/bin/sh
# capwatch in a container (issue 18 item 2). Run by make check-container,
# not by make check: it debootstraps Debian 12 and builds an image, a few
# minutes.
#
# The top-level Containerfile is built with podman (rootful, runc, vfs
# storage, a configuration of its own under the test's temp dir: the
# host's podman configuration and storage are not used) on a Debian 12 base
# made by debootstrap and `podman import`, which already holds capwatch's
# build dependencies, so that `podman build` runs with --network=none.
# zlib's build (Debian's zlib source package) then runs under the image's
# entrypoint with --network=none, and the report is read from outside
# through the /out volume.
#
# Downloads (package installs, as tools/install-deps does): the base system
# by debootstrap and zlib's source by apt-get source, from CW_DEBIAN_MIRROR
# (default http://deb.debian.org/debian). Nothing runs with a network
# afterwards: the image build and every container have --network=none.
#
# SKIP (77) with the reason: not root, podman/runc/debootstrap missing,
# less than 8 GiB free for vfs storage, no Debian mirror reachable, or
# podman cannot start a container on this machine. Anything after that
# which does not work is a failure.
. "$top_srcdir/tests/lib.sh"
cw_require_binary

MIRROR=${CW_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm

[ "$(id -u)" = 0 ] || skip "needs root (rootful podman, debootstrap)"
for t in podman runc debootstrap; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed (tools/install-deps installs it)"
done
"$CW_PY" -c 'import jsonschema' 2>/dev/null ||
	fail "python3-jsonschema is missing (tools/install-deps installs it)"

T=$(mktemp -d "${TMPDIR:-/tmp}/cwcontainer.XXXXXX") || fail "mktemp"
T=$(cd "$T" && pwd -P)
free_kb=$(df -Pk "$T" | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((8 * 1024 * 1024)) ]; then
	rm -rf "$T"
	skip "less than 8 GiB free under ${TMPDIR:-/tmp} (vfs storage copies the image for every container)"
fi

# Names of everything this test creates in its private storage, removed by
# name at the end (then the storage itself).
tag=cwtest$$
BASE=localhost/capwatch-test-base:$tag
IMAGE=localhost/capwatch-test:$tag
NAMES=""

# A podman of our own: configuration, storage, locks and run state under $T.
export CONTAINERS_CONF="$T/containers.conf" CONTAINERS_STORAGE_CONF="$T/storage.conf"
mkdir -p "$T/storage" "$T/run" "$T/podman-tmp" "$T/cni" "$T/volumes" || fail "mkdir in $T"
cat >"$CONTAINERS_CONF" <<EOF || fail "writing $CONTAINERS_CONF"
# The test's own podman configuration (it replaces /usr/share/containers/
# containers.conf). runc, the runtime tools/install-deps installs (crun
# refuses a hybrid cgroup v1/v2 host such as CI's, and default ulimits);
# cgroupfs: no systemd here; no events log and file locks under the temp
# dir instead of journald and /dev/shm/libpod_lock: nothing of the host's.
[containers]
default_ulimits = []
# Debian's packaged default (podman's built-in one adds AUDIT_WRITE, MKNOD
# and NET_RAW): what a Debian user's container gets.
default_capabilities = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",
  "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]
[network]
network_config_dir = "$T/cni"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
lock_type = "file"
tmp_dir = "$T/podman-tmp"
volume_path = "$T/volumes"
EOF
cat >"$CONTAINERS_STORAGE_CONF" <<EOF || fail "writing $CONTAINERS_STORAGE_CONF"
[storage]
driver = "vfs"
graphroot = "$T/storage"
runroot = "$T/run"
EOF

cleanup() {
	for n in $NAMES; do
		podman rm -f "$n" >/dev/null 2>&1
	done
	podman rmi -f "$IMAGE" "$BASE" >/dev/null 2>&1
	# Whatever podman left mounted under $T (a container's shm), then $T.
	awk -v t="$T/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

t_step=$(date +%s)
step() {
	_now=$(date +%s)
	echo "# $1: $((_now - t_step)) s"
	t_step=$_now
}

# ---- 1. zlib's source, from Debian (deb-src through a private apt state) ----
A="$T/apt"
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$T/dl" || fail "mkdir $A"
echo "deb-src $MIRROR $SUITE main" >"$A/sources.list"
: >"$A/status"
apt_priv() {
	apt-get -q -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$A/lists" -o Dir::State::status="$A/status" \
		-o Dir::Cache="$A/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o Acquire::http::Timeout=60 -o Acquire::Retries=2 "$@"
}
apt_priv update >"$T/apt-update.log" 2>&1 || {
	cat "$T/apt-update.log" >&2
	skip "no Debian mirror reachable at $MIRROR (set CW_DEBIAN_MIRROR): cannot fetch zlib's source"
}
(cd "$T/dl" && apt_priv source --download-only zlib) >"$T/apt-source.log" 2>&1 || {
	cat "$T/apt-source.log" >&2
	fail "apt-get source --download-only zlib"
}
orig=$(ls "$T"/dl/zlib_*.orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || fail "no zlib orig tarball in $T/dl: $(ls "$T/dl")"
Z=$T/zlib
mkdir -p "$Z" "$T/out" || fail "mkdir"
tar -C "$Z" --strip-components=1 -xf "$orig" || fail "unpacking $orig"
[ -x "$Z/configure" ] && [ -f "$Z/zlib.h" ] || fail "$orig holds no zlib source tree"
step "zlib source ($(basename "$orig"))"

# ---- 2. the base image: debootstrap with the build dependencies, imported ----
# The dependency list is the Containerfile's own (one list, not two).
deps=$(sed -n 's/^ARG CAPWATCH_BUILD_DEPS="\(.*\)"$/\1/p' "$top_srcdir/Containerfile")
[ -n "$deps" ] || fail "no ARG CAPWATCH_BUILD_DEPS=\"...\" line in $top_srcdir/Containerfile"
# shellcheck disable=SC2086 # split on purpose: one comma between names
timeout -k 10 1200 debootstrap --variant=minbase --include="$(echo $deps | tr ' ' ',')" \
	"$SUITE" "$T/rootfs" "$MIRROR" >"$T/debootstrap.log" 2>&1 || {
	tail -30 "$T/debootstrap.log" >&2
	fail "debootstrap $SUITE (with $deps) from $MIRROR"
}
step "debootstrap"
tar -C "$T/rootfs" -c . | timeout -k 10 600 podman import - "$BASE" >"$T/import.log" 2>&1 || {
	cat "$T/import.log" >&2
	fail "podman import of the debootstrapped root"
}
rm -rf --one-file-system "$T/rootfs"
step "podman import"

# Can podman run a container here at all? If not, say why and skip.
NAMES="$NAMES capwatch-test-$tag-probe"
if ! timeout -k 10 300 podman run --rm --network=none --name "capwatch-test-$tag-probe" "$BASE" true >"$T/probe.log" 2>&1; then
	cat "$T/probe.log" >&2
	skip "podman cannot start a container on this machine (runtime runc, vfs storage): $(tail -n 1 "$T/probe.log")"
fi
step "podman probe"

# ---- 3. the image, built from the source tree with no network ----
timeout -k 10 1800 podman build --network=none --pull=never --force-rm \
	--build-arg BASE="$BASE" -t "$IMAGE" -f "$top_srcdir/Containerfile" "$top_srcdir" \
	>"$T/build.log" 2>&1 || {
	tail -40 "$T/build.log" >&2
	fail "podman build of $top_srcdir/Containerfile"
}
step "podman build"
podman image inspect --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}} {{.Config.WorkingDir}}' "$IMAGE" >"$T/config.txt" ||
	fail "podman image inspect"
[ "$(cat "$T/config.txt")" = '["capwatch","--report","/out/report.json"] ["--","make"] /src' ] ||
	fail "image entrypoint/cmd/workdir: $(cat "$T/config.txt")"

# ctr_run N [podman run options] -- [image arguments]: one supervised run in
# a container named after the test, the project at /src and $T/out at /out,
# without a network. The exit status is in $rc; stdout and stderr are in
# $T/N.out and $T/N.err.
ctr_run() {
	_n=$1; shift
	NAMES="$NAMES capwatch-test-$tag-$_n"
	_opts=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do _opts="$_opts $1"; shift; done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # _opts are words without spaces
	timeout -k 10 600 podman run --rm --network=none --name "capwatch-test-$tag-$_n" $_opts \
		-v "$Z:/src" -v "$T/out:/out" "$IMAGE" "$@" </dev/null >"$T/$_n.out" 2>"$T/$_n.err"
	rc=$?
	return 0
}
show() { echo "--- $1 stdout:"; tail -20 "$T/$1.out"; echo "--- $1 stderr:"; tail -20 "$T/$1.err"; } >&2

# ---- 4. zlib's plain build under the recommended configuration ----
# Podman's defaults (its seccomp profile, its capabilities), no network:
# nothing added. configure, then the image's default command (make, whose
# report goes where the entrypoint says), then make test with a trace.
ctr_run configure -- --report /out/configure.json -- ./configure
[ "$rc" = 0 ] || { show configure; fail "./configure under capwatch in the container: exit $rc"; }
[ -f "$T/out/configure.json" ] && [ ! -e "$T/out/report.json" ] ||
	fail "a later --report did not replace the entrypoint's: $(ls "$T/out")"
ctr_run make
[ "$rc" = 0 ] || { show make; fail "make (the image's default command) under capwatch: exit $rc"; }
ctr_run test -- --report /out/test.json --trace /out/trace.jsonl -- make test
[ "$rc" = 0 ] || { show test; fail "make test under capwatch: exit $rc"; }
step "zlib configure, make, make test under capwatch"

# The real effects, seen from the host.
[ -f "$Z/libz.a" ] && [ -x "$Z/example" ] && [ -x "$Z/minigzip" ] ||
	fail "the build left no libz.a/example/minigzip in $Z"
grep -q '\*\*\* zlib test OK \*\*\*' "$T/test.out" || { show test; fail "make test did not print zlib's OK"; }
[ -s "$T/make.out" ] || fail "make printed nothing on stdout (stdout should pass through)"

SC=$top_srcdir/tests/unit/schema_check.py
for r in configure report test; do
	"$CW_PY" "$SC" --report "$T/out/$r.json" || fail "$r.json is not a valid capwatch.report/v1 document"
done
"$CW_PY" "$SC" --trace "$T/out/trace.jsonl" || fail "trace.jsonl is not a valid capwatch.trace/v1 trace"

# The plain build: success, not degraded, nothing denied, the whole tree.
# Without CAP_SYS_ADMIN (podman does not grant it) the command gets no IPC
# and UTS namespace of its own: a note, not a degradation (the container
# has its own).
report_assert "$T/out/report.json" \
	"d['schema'] == 'capwatch.report/v1'" \
	"d['profile'] == 'verify'" \
	"d['command'] == {'name': 'make', 'args': []}" \
	"d['workingDirectory'] == '/src' and d['workspaceRoots'] == ['/src']" \
	"outcome['state'] == 'completed' and outcome['kind'] == 'success'" \
	"outcome['exit'] == {'code': 0, 'signal': None}" \
	"'denial' not in outcome" \
	"outcome['enforcement']['degraded'] is False" \
	"outcome['enforcement']['downgradeReason'] == ''" \
	"{'seccomp-bpf', 'seccomp-unotify', 'ptrace'} <= set(outcome['enforcement']['layers'])" \
	"'namespaces:ipc+uts' not in outcome['enforcement']['layers']" \
	"'ptrace-task-count' in outcome['enforcement']['layers']" \
	"d['denials'] == []" \
	"len(procs('make')) >= 1 and len(procs('cc1')) >= 10 and len(procs(R(r'(.*-)?ar'))) >= 1" \
	"all('exit' in p for p in d['processes'])" \
	"len(changes('created', '/src/libz.a')) == 1" \
	"len(changes('created', '/src/example')) == 1" \
	"used('workspace_write')" \
	"not used('external_network') and not used('unrestricted')"
report_assert "$T/out/configure.json" \
	"outcome['kind'] == 'success' and outcome['enforcement']['degraded'] is False" \
	"d['denials'] == []" \
	"d['command'] == {'name': './configure', 'args': []}" \
	"len(changes(path='/src/zconf.h')) >= 1"
report_assert "$T/out/test.json" \
	"outcome['kind'] == 'success' and outcome['enforcement']['degraded'] is False" \
	"d['denials'] == []" \
	"len(procs('example')) >= 1 and len(procs('minigzip')) >= 1"
trace_assert "$T/out/trace.jsonl" \
	"header['schema'] == 'capwatch.trace/v1'" \
	"len(execs(R(r'.*/example'))) >= 1 and len(execs(R(r'.*/minigzip'))) >= 1" \
	"not ops(decision='deny')"

# ---- 5. the report on a descriptor instead: podman passes fd 3 on with
# --preserve-fds 1 (--report and --report-fd are exclusive, so the
# entrypoint is capwatch alone).
ctr_run fd3 --preserve-fds 1 --entrypoint capwatch -- --report-fd 3 -- sh -c 'echo on stdout' 3>"$T/fd3.json"
[ "$rc" = 0 ] || { show fd3; fail "--report-fd 3 through --preserve-fds 1: exit $rc"; }
[ "$(cat "$T/fd3.out")" = "on stdout" ] || fail "--report-fd 3: stdout was not the command's alone"
"$CW_PY" "$SC" --report "$T/fd3.json" || fail "the report on fd 3 is not a valid report"
report_assert "$T/fd3.json" "outcome['kind'] == 'success'" "d['command']['name'] == 'sh'"

# ---- 6. it enforces: readonly denies a write into the project ----
ctr_run readonly -- --profile readonly --report /out/readonly.json -- sh -c 'echo x > stamp'
[ "$rc" = 2 ] || { show readonly; fail "readonly write: exit $rc, expected the shell's 2"; }
[ ! -e "$Z/stamp" ] || fail "readonly: the write happened ($Z/stamp exists)"
report_assert "$T/out/readonly.json" \
	"outcome['kind'] == 'enforcement_denied'" \
	"outcome['enforcement']['degraded'] is False" \
	"denial['capability'] == {'kind': 'workspace_write', 'scope': '/src/stamp'}" \
	"len(denials('workspace_write', '/src/stamp')) >= 1"
step "readonly denial"

# ---- 7. what degrades: runtime seccomp profiles that refuse one call ----
# podman's own profile with one syscall taken out (it then fails with the
# profile's default errno).
PROFILE=$(podman info --format '{{.Host.Security.SECCOMPProfilePath}}')
[ -f "$PROFILE" ] || fail "podman's default seccomp profile not found (podman info says \"$PROFILE\")"
without() {
	"$CW_PY" - "$PROFILE" "$1" "$T/seccomp-no-$1.json" <<'EOF' || fail "making a seccomp profile without $1"
import json, sys
src, name, dst = sys.argv[1:]
d = json.load(open(src))
n = 0
for rule in d["syscalls"]:
    if rule.get("action") == "SCMP_ACT_ALLOW" and name in rule.get("names", []):
        rule["names"].remove(name)
        n += 1
if n == 0:
    sys.exit("%s: %s is not allowed by this profile" % (src, name))
json.dump(d, open(dst, "w"))
EOF
}

# Without ptrace: capwatch runs the command with seccomp alone, says
# enforcement_degraded and why, and still denies what the filter decides.
without ptrace
ctr_run noptrace --security-opt "seccomp=$T/seccomp-no-ptrace.json" -- \
	--profile readonly --report /out/noptrace.json -- sh -c 'echo x > stamp2; sh -c "exit 3"'
[ "$rc" = 3 ] || { show noptrace; fail "without ptrace: exit $rc, expected the command's 3"; }
[ ! -e "$Z/stamp2" ] || fail "without ptrace: the readonly write happened"
sed 's/^/# without ptrace: /' "$T/noptrace.err"
grep -q '^capwatch: .*PTRACE_SEIZE' "$T/noptrace.err" || { show noptrace; fail "without ptrace: no capwatch: line about PTRACE_SEIZE"; }
report_assert "$T/out/noptrace.json" \
	"outcome['enforcement']['degraded'] is True" \
	"'PTRACE_SEIZE' in outcome['enforcement']['downgradeReason']" \
	"'ptrace' not in outcome['enforcement']['layers']" \
	"'seccomp-unotify' in outcome['enforcement']['layers']" \
	"outcome['kind'] in ('enforcement_degraded', 'enforcement_denied')" \
	"len(denials('workspace_write', '/src/stamp2')) >= 1" \
	"outcome['exit']['code'] == 3"

# Without seccomp(): nobody could supervise, so the command never starts
# (125, sandbox_setup_failure) and capwatch says why.
without seccomp
ctr_run noseccomp --security-opt "seccomp=$T/seccomp-no-seccomp.json" -- \
	--report /out/noseccomp.json -- sh -c 'echo x > stamp3'
[ "$rc" = 125 ] || { show noseccomp; fail "without seccomp(): exit $rc, expected 125"; }
[ ! -e "$Z/stamp3" ] || fail "without seccomp(): the command ran"
sed 's/^/# without seccomp(): /' "$T/noseccomp.err"
grep -q '^capwatch: .*seccomp' "$T/noseccomp.err" || { show noseccomp; fail "without seccomp(): no capwatch: line saying why"; }
report_assert "$T/out/noseccomp.json" \
	"outcome['state'] == 'failed' and outcome['kind'] == 'sandbox_setup_failure'" \
	"'exit' not in outcome" \
	"d['processes'] == []"

# Without pidfd_getfd: capwatch cannot take the listener from its child,
# so the same (the child is killed before its exec).
without pidfd_getfd
ctr_run nogetfd --security-opt "seccomp=$T/seccomp-no-pidfd_getfd.json" -- \
	--report /out/nogetfd.json -- sh -c 'echo x > stamp4'
[ "$rc" = 125 ] || { show nogetfd; fail "without pidfd_getfd: exit $rc, expected 125"; }
[ ! -e "$Z/stamp4" ] || fail "without pidfd_getfd: the command ran"
sed 's/^/# without pidfd_getfd: /' "$T/nogetfd.err"
grep -q '^capwatch: .*pidfd_getfd' "$T/nogetfd.err" || { show nogetfd; fail "without pidfd_getfd: no capwatch: line saying why"; }
report_assert "$T/out/nogetfd.json" \
	"outcome['kind'] == 'sandbox_setup_failure' and 'exit' not in outcome" \
	"not used('process_spawn')"
step "restricted runtime profiles"
exit 0
