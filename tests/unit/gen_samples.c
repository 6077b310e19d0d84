/* Writes sample output of the JSON layer into the directory argv[1], for
 * schemas.sh to validate against schemas/:
 *   report.json   a report with every optional part (exit, denial, changes,
 *                 processes in each state, non-UTF-8 strings)
 *   trace.jsonl   a header and every event type, with non-UTF-8 and
 *                 control-character paths, IPv4/IPv6/unix addresses
 *   names.json    the vocabulary as the library names it (capabilities,
 *                 operations, verdicts, sources, next actions), so that the
 *                 schemas' enumerations are checked against the C tables
 * Exits 0, or 1 with a message. File I/O lives here, not in policy/. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "jbuf.h"
#include "trace.h"
#include "report.h"

static const char *dir;

static FILE *open_out(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gen_samples: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

static void close_out(FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "gen_samples: writing %s failed\n", name);
		exit(1);
	}
}

static void emit(FILE *f, struct cw_jbuf *j)
{
	if (j->oom) {
		fprintf(stderr, "gen_samples: out of memory\n");
		exit(1);
	}
	fwrite(j->buf, 1, j->len, f);
	fputc('\n', f);
	cw_jbuf_reset(j);
}

static void decision(struct cw_decision *d, cw_cap_kind cap, cw_verdict v, cw_verdict pv,
		     const char *scope, const char *rule, cw_next_action na, cw_source src)
{
	memset(d, 0, sizeof(*d));
	d->verdict = v;
	d->profile_verdict = pv;
	d->cap = cap;
	d->source = src;
	d->next_action = na;
	d->err = v == CW_ALLOW ? 0 : EACCES;
	snprintf(d->scope, sizeof(d->scope), "%s", scope);
	snprintf(d->rule, sizeof(d->rule), "%s", rule);
	snprintf(d->reason, sizeof(d->reason), "%s of %s under the sample profile",
		 cw_verdict_name(v), cap == CW_CAP_NONE ? "no capability" : cw_cap_name(cap));
}

static void write_trace(void)
{
	const char *roots[] = { "/ws", "/ws2/\xff" };
	const char *prot[] = { "/ws/.capwatch/report.json", "/ws/trace\n\xff.jsonl" };
	const char *args[] = { "-c", "make && curl https://example.com \xc0\xaf", NULL };
	const char *argv_cc[] = { "cc", "-o", "out\xfe", "main.c", NULL };
	struct cw_trace_header h = {
		.profile = "verify", .roots = roots, .nroots = 2, .command = "/bin/sh", .args = args,
		.kernel = "6.18.44", .start = "2026-11-30T00:31:35Z", .scratch = "/tmp/capwatch.X1",
		.home = "/home/user", .protected_files = prot, .nprotected = 2,
		.backend = "seccomp-unotify+ptrace", .level = "enforce", .cwd = "/ws/sub\xfe",
	};
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr_un sun;
	struct cw_jbuf j;
	struct cw_decision d;
	struct cw_op op;
	struct cw_trace_op e;
	uint64_t seq = 0;
	FILE *f = open_out("trace.jsonl");

	cw_jbuf_init(&j);
	cw_trace_header_write(&j, &h);
	emit(f, &j);
	cw_trace_spawn_write(&j, ++seq, 0.001, 100, 99, 100, "fork");
	emit(f, &j);
	cw_trace_exec_write(&j, ++seq, 0.002, 100, 99, "/usr/bin/cc", argv_cc, false, "present");
	emit(f, &j);
	{
		/* an argv over the 128 KiB the trace keeps: cut, and flagged */
		static char big[3][60 * 1024 + 1];
		const char *argv_big[] = { "ld", big[0], big[1], big[2], NULL };
		int k;

		for (k = 0; k < 3; k++)
			memset(big[k], 'a' + k, sizeof(big[k]) - 1);
		big[2][100] = (char)0xff;
		cw_trace_exec_write(&j, ++seq, 0.0025, 100, 99, "/usr/bin/ld", argv_big, false, "unknown");
		emit(f, &j);
	}

	/* open for writing a non-UTF-8, newline-carrying name in the workspace */
	memset(&op, 0, sizeof(op));
	op.kind = CW_OP_OPEN_WRITE;
	op.syscall = "openat";
	op.path = "/ws/out\xfe\nALLOW pid=1";
	decision(&d, CW_CAP_WORKSPACE_WRITE, CW_ALLOW, CW_ALLOW, op.path, "verify:workspace_write:default",
		 CW_NEXT_NONE, CW_SOURCE_CONFIGURED_POLICY);
	memset(&e, 0, sizeof(e));
	e.seq = ++seq;
	e.time = 0.003;
	e.pid = e.tid = 100;
	e.ppid = 99;
	e.source = "seccomp";
	e.op = &op;
	e.raw_path = "out\xfe\nALLOW pid=1";
	e.raw_path_len = strlen(e.raw_path);
	e.dirfd = -100;
	e.has_dirfd = true;
	e.flags = 01101;
	e.has_flags = true;
	e.d = &d;
	e.enforced = true;
	e.verified = true;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* rename with an invalid target name */
	op.kind = CW_OP_RENAME;
	op.syscall = "renameat2";
	op.path = "/ws/a.tmp";
	op.path2 = "/ws/\xed\xa0\x80.o";
	e.raw_path = "a.tmp";
	e.raw_path_len = 5;
	e.raw_path2 = "\xed\xa0\x80.o";
	e.raw_path2_len = 5;
	e.has_flags = false;
	snprintf(d.scope, sizeof(d.scope), "%s", op.path);
	e.seq = ++seq;
	e.time = 0.004;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* exec */
	memset(&op, 0, sizeof(op));
	op.kind = CW_OP_EXEC;
	op.syscall = "execve";
	op.path = "/usr/bin/ld";
	decision(&d, CW_CAP_PROCESS_SPAWN, CW_ALLOW, CW_ALLOW, op.path, "verify:process_spawn:default",
		 CW_NEXT_NONE, CW_SOURCE_CONFIGURED_POLICY);
	memset(&e, 0, sizeof(e));
	e.seq = ++seq;
	e.time = 0.005;
	e.pid = e.tid = 100;
	e.ppid = 99;
	e.source = "ptrace";
	e.op = &op;
	e.raw_path = "/usr/bin/ld";
	e.raw_path_len = strlen(e.raw_path);
	e.argv = argv_cc;
	e.d = &d;
	e.enforced = true;
	e.verified = true;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* external network, IPv4, asked and denied (no terminal) */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(443);
	inet_pton(AF_INET, "203.0.113.7", &sin.sin_addr);
	memset(&op, 0, sizeof(op));
	op.kind = CW_OP_CONNECT;
	op.syscall = "connect";
	op.addr = (struct sockaddr *)&sin;
	op.addrlen = sizeof(sin);
	op.host = "example.com";
	decision(&d, CW_CAP_EXTERNAL_NETWORK, CW_DENY, CW_ASK, "203.0.113.7:443",
		 "verify:external_network:default", CW_NEXT_REQUEST_APPROVAL, CW_SOURCE_CONFIGURED_POLICY);
	d.err = EPERM;
	memset(&e, 0, sizeof(e));
	e.seq = ++seq;
	e.time = 0.006;
	e.pid = 101;
	e.tid = 102;
	e.ppid = 100;
	e.source = "seccomp";
	e.op = &op;
	e.d = &d;
	e.enforced = true;
	e.err = EPERM;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* IPv6 loopback, approved */
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(8080);
	inet_pton(AF_INET6, "::1", &sin6.sin6_addr);
	op.kind = CW_OP_SEND;
	op.syscall = "sendto";
	op.addr = (struct sockaddr *)&sin6;
	op.addrlen = sizeof(sin6);
	op.host = NULL;
	decision(&d, CW_CAP_ISOLATED_LOOPBACK, CW_ALLOW, CW_ASK, "[::1]:8080",
		 "approval:--approve isolated_loopback", CW_NEXT_NONE, CW_SOURCE_APPROVAL);
	e.seq = ++seq;
	e.time = 0.007;
	e.err = 0;
	e.enforced = true;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* unix socket with a non-UTF-8 path, observed only */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, "/run/\xff.sock");
	op.kind = CW_OP_CONNECT;
	op.syscall = "connect";
	op.addr = (struct sockaddr *)&sun;
	op.addrlen = offsetof(struct sockaddr_un, sun_path) + strlen(sun.sun_path) + 1;
	decision(&d, CW_CAP_PROCESS_CONTROL, CW_DENY, CW_DENY, "unix:/run/\xff.sock",
		 "verify:process_control:default", CW_NEXT_CHANGE_COMMAND, CW_SOURCE_CONFIGURED_POLICY);
	e.seq = ++seq;
	e.time = 0.008;
	e.enforced = false;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	/* signal outside the tree; an escape syscall; a pseudo-device write */
	memset(&op, 0, sizeof(op));
	op.kind = CW_OP_SIGNAL;
	op.syscall = "kill";
	op.target_pid = 1;
	decision(&d, CW_CAP_PROCESS_CONTROL, CW_DENY, CW_DENY, "1", "verify:process_control:default",
		 CW_NEXT_CHANGE_COMMAND, CW_SOURCE_CONFIGURED_POLICY);
	d.err = EPERM;
	e.seq = ++seq;
	e.time = 0.009;
	e.op = &op;
	e.enforced = true;
	e.err = EPERM;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	op.kind = CW_OP_ESCAPE_SYSCALL;
	op.syscall = "io_uring_setup";
	op.target_pid = 0;
	decision(&d, CW_CAP_UNRESTRICTED, CW_DENY, CW_DENY, "io_uring_setup", "verify:unrestricted:default",
		 CW_NEXT_ENABLE_SANDBOX, CW_SOURCE_PLATFORM_SANDBOX);
	e.seq = ++seq;
	e.time = 0.010;
	e.err = 12345; /* an errno without a name is written as a number */
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	memset(&op, 0, sizeof(op));
	op.kind = CW_OP_OPEN_WRITE;
	op.syscall = "openat";
	op.path = "/dev/null";
	decision(&d, CW_CAP_NONE, CW_ALLOW, CW_ALLOW, "/dev/null", "builtin:pseudo-device",
		 CW_NEXT_NONE, CW_SOURCE_CONFIGURED_POLICY);
	e.seq = ++seq;
	e.time = 0.011;
	e.err = 0;
	e.raw_path = "/dev/null";
	e.raw_path_len = 9;
	e.verified = false;
	cw_trace_op_write(&j, &e);
	emit(f, &j);

	cw_trace_note_write(&j, ++seq, 0.012, 101, "warning", "preload data dropped for pid 101: \x1b[2J\xff");
	emit(f, &j);
	cw_trace_exit_write(&j, ++seq, 0.013, 101, 0, SIGKILL);
	emit(f, &j);
	cw_trace_exit_write(&j, ++seq, 0.014, 100, 2, 0);
	emit(f, &j);
	seq++;
	cw_trace_summary_write(&j, seq, 0.015, seq - 1, 3, "denied", "enforcement_denied", 0.015);
	emit(f, &j);
	cw_jbuf_free(&j);
	close_out(f, "trace.jsonl");
}

static void write_report(void)
{
	const char *args[] = { "-c", "make \xff", NULL };
	const char *roots[] = { "/ws", "/ws2/\xc3" };
	const char *layers[] = { "seccomp-bpf", "seccomp-unotify", "ptrace", NULL };
	const char *argv_sh[] = { "sh", "-c", "make \xff", NULL };
	const char *argv_curl[] = { "curl", "https://example.com", NULL };
	struct cw_enforcement enf = { "seccomp-unotify+ptrace", "enforce", false, "", layers };
	struct cw_proc_record p1 = { 100, 99, "/bin/sh", argv_sh, 0.0, 0.5, true, 2, 0, "present" };
	struct cw_proc_record p2 = { 101, 100, "/usr/bin/curl\n", argv_curl, 0.1, 0.2, false, 0, SIGKILL, "absent" };
	struct cw_proc_record p3 = { 102, 100, NULL, NULL, 0.3, -1, false, 0, 0, "unknown" };
	struct cw_decision d;
	struct cw_denial_record dr;
	cw_report *r = cw_report_new();
	char *text;
	FILE *f;

	if (!r || cw_report_set_run(r, "verify", "/bin/sh", args, "/ws/\xe2\x80\xa8sub\xff", roots, 2) ||
	    cw_report_set_enforcement(r, &enf) || cw_report_add_process(r, &p1) ||
	    cw_report_add_process(r, &p2) || cw_report_add_process(r, &p3))
		goto oom;
	decision(&d, CW_CAP_EXTERNAL_NETWORK, CW_DENY, CW_ASK, "203.0.113.7:443",
		 "verify:external_network:default", CW_NEXT_REQUEST_APPROVAL, CW_SOURCE_CONFIGURED_POLICY);
	memset(&dr, 0, sizeof(dr));
	dr.pid = 101;
	dr.program = "/usr/bin/curl\n";
	dr.syscall = "connect";
	dr.d = &d;
	dr.time = 0.15;
	dr.enforced = true;
	dr.host = "example.com";
	if (cw_report_add_denial(r, &dr) ||
	    cw_report_set_outcome(r, "denied", "enforcement_denied", true, 2, 0, &d))
		goto oom;
	decision(&d, CW_CAP_PROTECTED_METADATA, CW_DENY, CW_DENY, "/ws/.git/hooks/\xff",
		 "verify:protected_metadata:default", CW_NEXT_CHANGE_COMMAND, CW_SOURCE_CONFIGURED_POLICY);
	dr.pid = 100;
	dr.program = "/bin/sh";
	dr.syscall = "openat";
	dr.host = NULL;
	dr.time = 0.4;
	if (cw_report_add_denial(r, &dr) ||
	    cw_report_count_capability(r, CW_CAP_EXTERNAL_NETWORK, "203.0.113.7:443", CW_DENY) ||
	    cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/\xfe.c", CW_ALLOW) ||
	    cw_report_count_capability(r, CW_CAP_FILESYSTEM_READ, "/ws/\xfe.c", CW_ALLOW) ||
	    cw_report_count_capability(r, CW_CAP_PROCESS_SPAWN, "/usr/bin/curl", CW_ALLOW) ||
	    cw_report_add_change(r, "created", "/ws/out\xfe", NULL) ||
	    cw_report_add_change(r, "modified", "/ws/Makefile", NULL) ||
	    cw_report_add_change(r, "deleted", "/ws/a.tmp", NULL) ||
	    cw_report_add_change(r, "renamed", "/ws/b.tmp", "/ws/b\xc0"))
		goto oom;
	cw_report_set_stats(r, 15, 9, 0.5);
	struct cw_report_annotations ann = { .received = 7, .accepted = 6, .malformed = 1, .attached = 3 };
	cw_report_set_annotations(r, &ann);
	struct cw_report_colocation col = { .addfds = 5, .rejoins = 1, .rescues = 0, .backoffs = 1 };
	cw_report_set_colocation(r, &col);
	text = cw_report_render(r);
	if (!text)
		goto oom;
	f = open_out("report.json");
	fputs(text, f);
	close_out(f, "report.json");
	free(text);
	/* The minimal reports (issue 14): the run's own outcome, and one
	 * given by a watchdog while the run is stuck. */
	struct cw_report_minimal m1 = { .reason = "the full report could not be written (File too large)",
					.events = 15, .notifications = 9, .elapsed = 0.5 };
	struct cw_report_minimal m2 = { .state = "cancelled", .kind = "timed_out",
					.reason = "timeout: the event loop did not return \xfe",
					.elapsed = 3.0 };
	text = cw_report_render_minimal(r, &m1);
	if (!text)
		goto oom;
	f = open_out("report-minimal.json");
	fputs(text, f);
	close_out(f, "report-minimal.json");
	free(text);
	text = cw_report_render_minimal(r, &m2);
	if (!text)
		goto oom;
	f = open_out("report-watchdog.json");
	fputs(text, f);
	close_out(f, "report-watchdog.json");
	free(text);
	cw_report_free(r);
	return;
oom:
	fprintf(stderr, "gen_samples: out of memory building the report\n");
	exit(1);
}

static void names_list(struct cw_jbuf *j, const char *key, const char *(*name)(int), int n)
{
	int i;

	cw_jbuf_key(j, key);
	cw_jbuf_arr_begin(j);
	for (i = 0; i < n; i++)
		cw_jbuf_str(j, name(i));
	cw_jbuf_arr_end(j);
}

static const char *cap_name(int i) { return cw_cap_name((cw_cap_kind)i); }
static const char *op_name(int i) { return cw_op_name((cw_op_kind)i); }
static const char *verdict_name(int i) { return cw_verdict_name((cw_verdict)i); }
static const char *source_name(int i) { return cw_source_name((cw_source)i); }
static const char *next_name(int i) { return cw_next_action_name((cw_next_action)i); }

static void write_names(void)
{
	struct cw_jbuf j;
	FILE *f = open_out("names.json");

	cw_jbuf_init(&j);
	cw_jbuf_obj_begin(&j);
	names_list(&j, "capabilities", cap_name, CW_CAP__COUNT);
	names_list(&j, "operations", op_name, CW_OP__COUNT);
	names_list(&j, "verdicts", verdict_name, CW_ASK + 1);
	names_list(&j, "sources", source_name, CW_SOURCE_APPROVAL + 1);
	names_list(&j, "nextActions", next_name, CW_NEXT_ENABLE_SANDBOX + 1);
	cw_jbuf_obj_end(&j);
	emit(f, &j);
	cw_jbuf_free(&j);
	close_out(f, "names.json");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_samples DIR\n");
		return 2;
	}
	dir = argv[1];
	write_trace();
	write_report();
	write_names();
	return 0;
}
