/* Write small synthetic traces for the tools' tests with the policy library's
 * own trace writers and decision function, so that the fixtures follow the
 * schema and their recorded decisions are the ones the supervisor would take.
 *
 *   gen_trace SCENARIO PROFILE [observe] > trace.jsonl
 *
 * Scenarios (workspace root /ws, home /home/u, scratch /tmp/cw-scratch):
 *   build    sh -> make -> gcc (reads headers, writes objects), a curl that
 *            connects to 203.0.113.7:80, a test server on 127.0.0.1:8080,
 *            a write to /etc/hosts, a read of ~/.ssh/id_rsa
 *   build2   build plus wget to 198.51.100.9:443 (host example.org) and a
 *            write under /ws/dist
 *   script   a file whose name holds "<script>alert(1)</script>" and a
 *            denied connect, for HTML escaping
 *   bytes    a path with bytes that are not UTF-8 and a rename
 *   misc     the full environment, a signal outside the tree, the docker
 *            socket, a bind on 0.0.0.0:8080 and a mount
 *   big N    N operations spread over 50 processes
 * With "observe", decisions are taken under PROFILE but not enforced (the
 * trace of a --observe run). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "policy/trace.h"

static struct cw_jbuf J;
static uint64_t seq;
static double now;
static cw_profile *prof;
static struct cw_context ctx;
static bool observe;
static unsigned long ndenials;

static const char *roots[] = { "/ws" };
static const char *prot[] = { "/ws/.capwatch/trace.jsonl" };

static void line(void)
{
	if (J.oom) {
		fprintf(stderr, "gen_trace: out of memory\n");
		exit(99);
	}
	fwrite(J.buf, 1, J.len, stdout);
	fputc('\n', stdout);
	cw_jbuf_reset(&J);
}

static void header(const char *cmd, const char *const *args)
{
	struct cw_trace_header h = {
		.profile = cw_profile_name(prof), .roots = roots, .nroots = 1,
		.command = cmd, .args = args, .kernel = "6.1.0-test", .start = "2026-11-30T00:00:00Z",
		.scratch = "/tmp/cw-scratch", .home = "/home/u",
		.protected_files = prot, .nprotected = 1,
		.backend = "seccomp-unotify+ptrace", .level = observe ? "observe" : "enforce",
	};

	cw_trace_header_write(&J, &h);
	line();
}

static void spawn(int pid, int ppid)
{
	now += 0.001;
	cw_trace_spawn_write(&J, ++seq, now, pid, ppid, pid, "fork");
	line();
}

static void op(int pid, int ppid, cw_op_kind kind, const char *sc, const char *path, const char *path2,
	       const struct sockaddr *sa, size_t salen, const char *host, const char *const *argv)
{
	struct cw_op o = {
		.kind = kind, .syscall = sc, .path = path, .path2 = path2,
		.addr = sa, .addrlen = salen, .host = host,
	};
	struct cw_decision d;
	struct cw_trace_op e = {
		.pid = pid, .tid = pid, .ppid = ppid, .source = "seccomp", .op = &o,
		.raw_path = path, .raw_path_len = path ? strlen(path) : 0,
		.raw_path2 = path2, .raw_path2_len = path2 ? strlen(path2) : 0,
		.dirfd = -100, .has_dirfd = path != NULL, .argv = argv, .d = &d, .verified = true,
	};

	memset(&d, 0, sizeof(d));
	cw_policy_decide(prof, &ctx, &o, &d);
	/* as the supervisor does without a terminal: an unanswered ask is a
	 * denial; profile_decision keeps "ask" */
	if (d.verdict == CW_ASK) {
		d.verdict = CW_DENY;
		d.next_action = CW_NEXT_REQUEST_APPROVAL;
	}
	e.seq = ++seq;
	now += 0.001;
	e.time = now;
	e.enforced = !observe;
	e.err = d.verdict != CW_ALLOW && !observe ? d.err : 0;
	if (d.verdict != CW_ALLOW)
		ndenials++;
	cw_trace_op_write(&J, &e);
	line();
}

static void fsop(int pid, int ppid, cw_op_kind kind, const char *sc, const char *path)
{
	op(pid, ppid, kind, sc, path, NULL, NULL, 0, NULL, NULL);
}

static void exec_(int pid, int ppid, const char *exe, const char *const *argv)
{
	op(pid, ppid, CW_OP_EXEC, "execve", exe, NULL, NULL, 0, NULL, argv);
	now += 0.001;
	cw_trace_exec_write(&J, ++seq, now, pid, ppid, exe, argv, false, "present");
	line();
}

static void connect4(int pid, int ppid, const char *ip, int port, const char *host)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	inet_pton(AF_INET, ip, &sin.sin_addr);
	op(pid, ppid, CW_OP_CONNECT, "connect", NULL, NULL, (struct sockaddr *)&sin, sizeof(sin), host, NULL);
}

static void exit_(int pid, int code)
{
	now += 0.001;
	cw_trace_exit_write(&J, ++seq, now, pid, code, 0);
	line();
}

static void summary(void)
{
	now += 0.001;
	seq++;
	cw_trace_summary_write(&J, seq, now, seq - 1, ndenials, ndenials && !observe ? "denied" : "completed",
			       ndenials && !observe ? "enforcement_denied" : "success", now);
	line();
}

static void build(bool extra)
{
	static const char *const sh_argv[] = { "sh", "-c", "make && ./test.sh", NULL };
	static const char *const make_argv[] = { "make", NULL };
	static const char *const gcc_argv[] = { "gcc", "-c", "a.c", "-o", "out/a.o", NULL };
	static const char *const curl_argv[] = { "curl", "http://203.0.113.7/", NULL };
	static const char *const wget_argv[] = { "wget", "https://example.org/", NULL };
	static const char *const hdr_args[] = { "-c", "make && ./test.sh", NULL };
	static const char *const headers[] = {
		"/usr/include/stdio.h", "/usr/include/stdlib.h", "/usr/include/x86_64-linux-gnu/bits/types.h",
		"/usr/include/x86_64-linux-gnu/sys/cdefs.h", "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h",
		"/usr/include/linux/limits.h",
	};
	size_t i;

	header("sh", hdr_args);
	exec_(100, 1, "/usr/bin/sh", sh_argv);
	fsop(100, 1, CW_OP_OPEN_READ, "openat", "/etc/ld.so.cache");
	fsop(100, 1, CW_OP_OPEN_READ, "openat", "/usr/lib/x86_64-linux-gnu/libc.so.6");
	spawn(101, 100);
	exec_(101, 100, "/usr/bin/make", make_argv);
	fsop(101, 100, CW_OP_OPEN_READ, "openat", "/ws/Makefile");
	spawn(102, 101);
	exec_(102, 101, "/usr/bin/gcc", gcc_argv);
	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		fsop(102, 101, CW_OP_OPEN_READ, "openat", headers[i]);
	fsop(102, 101, CW_OP_OPEN_READ, "openat", "/ws/a.c");
	fsop(102, 101, CW_OP_OPEN_READ, "openat", "/ws/src/b.c");
	fsop(102, 101, CW_OP_OPEN_WRITE, "openat", "/ws/out/a.o");
	fsop(102, 101, CW_OP_OPEN_WRITE, "openat", "/ws/out/b.o");
	fsop(102, 101, CW_OP_OPEN_WRITE, "openat", "/tmp/cw-scratch/cc1.s");
	fsop(102, 101, CW_OP_OPEN_WRITE, "openat", "/dev/null");
	fsop(102, 101, CW_OP_OPEN_READ, "openat", "/proc/102/status");
	exit_(102, 0);
	exit_(101, 0);
	spawn(103, 100);
	exec_(103, 100, "/usr/bin/curl", curl_argv);
	connect4(103, 100, "203.0.113.7", 80, NULL);
	exit_(103, 7);
	spawn(104, 100);
	exec_(104, 100, "/ws/test.sh", NULL);
	connect4(104, 100, "127.0.0.1", 8080, NULL);
	fsop(104, 100, CW_OP_OPEN_WRITE, "openat", "/etc/hosts");
	fsop(104, 100, CW_OP_OPEN_READ, "openat", "/home/u/.ssh/id_rsa");
	exit_(104, 1);
	if (extra) {
		spawn(105, 100);
		exec_(105, 100, "/usr/bin/wget", wget_argv);
		connect4(105, 100, "198.51.100.9", 443, "example.org");
		fsop(105, 100, CW_OP_OPEN_WRITE, "openat", "/ws/dist/index.html");
		exit_(105, 0);
	}
	exit_(100, 1);
	summary();
}

static void script(void)
{
	static const char *const argv[] = { "touch", "<script>alert(1)</script>", NULL };
	static const char *const args[] = { "<script>alert(1)</script>", NULL };

	header("touch", args);
	exec_(200, 1, "/usr/bin/touch", argv);
	fsop(200, 1, CW_OP_OPEN_WRITE, "openat", "/ws/<script>alert(1)</script>");
	fsop(200, 1, CW_OP_OPEN_WRITE, "openat", "/etc/<img src=x onerror=alert(2)>");
	connect4(200, 1, "203.0.113.7", 443, "\"><script>alert(3)</script>");
	exit_(200, 0);
	summary();
}

static void bytes(void)
{
	static const char *const argv[] = { "mv", "a", "b", NULL };
	static const char *const args[] = { "a", "b", NULL };

	header("mv", args);
	exec_(300, 1, "/usr/bin/mv", argv);
	fsop(300, 1, CW_OP_OPEN_READ, "openat", "/opt/caf\xe9/\xff\xfe.txt");
	fsop(300, 1, CW_OP_OPEN_READ, "openat", "/srv/star*dir/q?.txt");
	op(300, 1, CW_OP_RENAME, "renameat2", "/ws/old/name.txt", "/ws/new/name.txt", NULL, 0, NULL, NULL);
	exit_(300, 0);
	summary();
}

static void misc(void)
{
	static const char *const argv[] = { "agent", NULL };
	static const char *const args[] = { "--all", NULL };
	struct sockaddr_un sun = { .sun_family = AF_UNIX, .sun_path = "/var/run/docker.sock" };
	struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(8080) };
	struct cw_op env = { .kind = CW_OP_ENV, .syscall = "execve", .env_names = "CI,GITHUB_TOKEN" };
	struct cw_op sig = { .kind = CW_OP_SIGNAL, .syscall = "kill", .target_pid = 1 };
	struct cw_op esc = { .kind = CW_OP_ESCAPE_SYSCALL, .syscall = "mount" };
	const struct cw_op *ops[] = { &env, &sig, &esc };
	size_t i;

	header("agent", args);
	exec_(400, 1, "/usr/local/bin/agent", argv);
	for (i = 0; i < 3; i++) {
		struct cw_decision d;
		struct cw_trace_op e = { .pid = 400, .tid = 400, .ppid = 1, .source = "seccomp", .op = ops[i],
					 .dirfd = -1, .d = &d, .verified = true };

		memset(&d, 0, sizeof(d));
		cw_policy_decide(prof, &ctx, ops[i], &d);
		if (d.verdict == CW_ASK)
			d.verdict = CW_DENY;
		e.seq = ++seq;
		now += 0.001;
		e.time = now;
		e.enforced = !observe;
		if (d.verdict != CW_ALLOW)
			ndenials++;
		cw_trace_op_write(&J, &e);
		line();
	}
	op(400, 1, CW_OP_CONNECT, "connect", NULL, NULL, (struct sockaddr *)&sun, sizeof(sun), NULL, NULL);
	op(400, 1, CW_OP_BIND, "bind", NULL, NULL, (struct sockaddr *)&any, sizeof(any), NULL, NULL);
	exit_(400, 0);
	summary();
}

static void big(long n)
{
	static const char *const argv[] = { "worker", NULL };
	static const char *const args[] = { "-j50", NULL };
	char path[128];
	long i;
	int p;

	header("make", args);
	exec_(1000, 1, "/usr/bin/make", argv);
	for (p = 1; p < 50; p++) {
		spawn(1000 + p, 1000);
		exec_(1000 + p, 1000, p % 2 ? "/usr/bin/cc" : "/usr/bin/ld", argv);
	}
	for (i = 0; i < n; i++) {
		p = (int)(i % 50);
		snprintf(path, sizeof(path), "/ws/src/dir%ld/file%ld.c", i % 97, i);
		fsop(1000 + p, p ? 1000 : 1, i % 3 ? CW_OP_OPEN_READ : CW_OP_OPEN_WRITE, "openat", path);
		if (i % 1000 == 999)
			connect4(1000 + p, 1000, "203.0.113.7", 443, "example.net");
	}
	for (p = 49; p >= 0; p--)
		exit_(1000 + p, 0);
	summary();
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: gen_trace build|build2|script|bytes|misc|big N PROFILE [observe]\n");
		return 2;
	}
	ctx.roots = roots;
	ctx.nroots = 1;
	ctx.scratch = "/tmp/cw-scratch";
	ctx.home = "/home/u";
	ctx.protected_files = prot;
	ctx.nprotected = 1;
	cw_jbuf_init(&J);
	if (!strcmp(argv[1], "big")) {
		if (argc < 4 || cw_profile_builtin(argv[3], &prof) < 0)
			return 2;
		observe = argc > 4 && !strcmp(argv[4], "observe");
		big(atol(argv[2]));
	} else {
		if (cw_profile_builtin(argv[2], &prof) < 0) {
			fprintf(stderr, "gen_trace: unknown profile %s\n", argv[2]);
			return 2;
		}
		observe = argc > 3 && !strcmp(argv[3], "observe");
		if (!strcmp(argv[1], "build"))
			build(false);
		else if (!strcmp(argv[1], "build2"))
			build(true);
		else if (!strcmp(argv[1], "script"))
			script();
		else if (!strcmp(argv[1], "bytes"))
			bytes();
		else if (!strcmp(argv[1], "misc"))
			misc();
		else
			return 2;
	}
	cw_profile_free(prof);
	cw_jbuf_free(&J);
	return fflush(stdout) ? 1 : 0;
}
