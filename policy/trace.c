/* Trace line writers (trace.h) and errno/signal names.
 *
 * Each writer produces exactly one JSON object without a trailing newline
 * into a caller-owned cw_jbuf; the supervisor resets and reuses that buffer,
 * so no writer allocates. Every string that came from the target (paths,
 * argv, addresses, scopes) goes through cw_jbuf_kv_bytes/cw_jbuf_arr_bytes
 * so that non-UTF-8 bytes survive byte-exact in a "<key>_hex" sibling. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* ---- errno names ----
 * One row per Linux errno value (asm-generic/errno-base.h, errno.h), in
 * numeric order. Aliases (EWOULDBLOCK, EDEADLOCK, ENOTSUP) are left out so
 * that each number has one name; test_json checks that every number from 1
 * to EHWPOISON that Linux defines has a row. */
#define CW_ERRNO_TABLE(X) \
	X(EPERM) X(ENOENT) X(ESRCH) X(EINTR) X(EIO) X(ENXIO) X(E2BIG) \
	X(ENOEXEC) X(EBADF) X(ECHILD) X(EAGAIN) X(ENOMEM) X(EACCES) X(EFAULT) \
	X(ENOTBLK) X(EBUSY) X(EEXIST) X(EXDEV) X(ENODEV) X(ENOTDIR) X(EISDIR) \
	X(EINVAL) X(ENFILE) X(EMFILE) X(ENOTTY) X(ETXTBSY) X(EFBIG) X(ENOSPC) \
	X(ESPIPE) X(EROFS) X(EMLINK) X(EPIPE) X(EDOM) X(ERANGE) \
	X(EDEADLK) X(ENAMETOOLONG) X(ENOLCK) X(ENOSYS) X(ENOTEMPTY) X(ELOOP) \
	X(ENOMSG) X(EIDRM) X(ECHRNG) X(EL2NSYNC) X(EL3HLT) X(EL3RST) X(ELNRNG) \
	X(EUNATCH) X(ENOCSI) X(EL2HLT) X(EBADE) X(EBADR) X(EXFULL) X(ENOANO) \
	X(EBADRQC) X(EBADSLT) X(EBFONT) X(ENOSTR) X(ENODATA) X(ETIME) X(ENOSR) \
	X(ENONET) X(ENOPKG) X(EREMOTE) X(ENOLINK) X(EADV) X(ESRMNT) X(ECOMM) \
	X(EPROTO) X(EMULTIHOP) X(EDOTDOT) X(EBADMSG) X(EOVERFLOW) X(ENOTUNIQ) \
	X(EBADFD) X(EREMCHG) X(ELIBACC) X(ELIBBAD) X(ELIBSCN) X(ELIBMAX) \
	X(ELIBEXEC) X(EILSEQ) X(ERESTART) X(ESTRPIPE) X(EUSERS) X(ENOTSOCK) \
	X(EDESTADDRREQ) X(EMSGSIZE) X(EPROTOTYPE) X(ENOPROTOOPT) \
	X(EPROTONOSUPPORT) X(ESOCKTNOSUPPORT) X(EOPNOTSUPP) X(EPFNOSUPPORT) \
	X(EAFNOSUPPORT) X(EADDRINUSE) X(EADDRNOTAVAIL) X(ENETDOWN) \
	X(ENETUNREACH) X(ENETRESET) X(ECONNABORTED) X(ECONNRESET) X(ENOBUFS) \
	X(EISCONN) X(ENOTCONN) X(ESHUTDOWN) X(ETOOMANYREFS) X(ETIMEDOUT) \
	X(ECONNREFUSED) X(EHOSTDOWN) X(EHOSTUNREACH) X(EALREADY) X(EINPROGRESS) \
	X(ESTALE) X(EUCLEAN) X(ENOTNAM) X(ENAVAIL) X(EISNAM) X(EREMOTEIO) \
	X(EDQUOT) X(ENOMEDIUM) X(EMEDIUMTYPE) X(ECANCELED) X(ENOKEY) \
	X(EKEYEXPIRED) X(EKEYREVOKED) X(EKEYREJECTED) X(EOWNERDEAD) \
	X(ENOTRECOVERABLE) X(ERFKILL) X(EHWPOISON)

#define CW_ERRNO_ROW(e) [e] = #e,
static const char *const errno_names[] = { CW_ERRNO_TABLE(CW_ERRNO_ROW) };
#undef CW_ERRNO_ROW

const char *cw_errno_name(int err)
{
	if (err < 0)
		err = -err; /* accept -errno as the library's functions return it */
	if (err <= 0 || (size_t)err >= sizeof(errno_names) / sizeof(errno_names[0]))
		return NULL;
	return errno_names[err];
}

/* ---- signal names ----
 * The classic signals by number, then the real-time range. glibc reserves
 * the first two kernel real-time signals (32, 33) for itself; they are named
 * SIG32/SIG33 as strace and the shell do. */
#define CW_SIGNAL_TABLE(X) \
	X(SIGHUP) X(SIGINT) X(SIGQUIT) X(SIGILL) X(SIGTRAP) X(SIGABRT) X(SIGBUS) \
	X(SIGFPE) X(SIGKILL) X(SIGUSR1) X(SIGSEGV) X(SIGUSR2) X(SIGPIPE) \
	X(SIGALRM) X(SIGTERM) X(SIGSTKFLT) X(SIGCHLD) X(SIGCONT) X(SIGSTOP) \
	X(SIGTSTP) X(SIGTTIN) X(SIGTTOU) X(SIGURG) X(SIGXCPU) X(SIGXFSZ) \
	X(SIGVTALRM) X(SIGPROF) X(SIGWINCH) X(SIGIO) X(SIGPWR) X(SIGSYS)

#define CW_SIGNAL_ROW(s) [s] = #s,
static const char *const signal_names[] = { CW_SIGNAL_TABLE(CW_SIGNAL_ROW) };
#undef CW_SIGNAL_ROW

#define CW_KERNEL_SIGRTMIN 32
#define CW_KERNEL_SIGRTMAX 64
#define RT(n) "SIGRTMIN+" #n
static const char *const rt_names[] = {
	"SIGRTMIN", RT(1), RT(2), RT(3), RT(4), RT(5), RT(6), RT(7), RT(8), RT(9),
	RT(10), RT(11), RT(12), RT(13), RT(14), RT(15), RT(16), RT(17), RT(18),
	RT(19), RT(20), RT(21), RT(22), RT(23), RT(24), RT(25), RT(26), RT(27),
	RT(28), RT(29), RT(30), RT(31), RT(32),
};
#undef RT
static const char *const low_rt_names[] = { "SIG32", "SIG33", "SIG34", "SIG35" };

const char *cw_signal_name(int sig)
{
	int rtmin = SIGRTMIN; /* glibc: a library call, not a syscall */

	if (sig <= 0 || sig > CW_KERNEL_SIGRTMAX)
		return NULL;
	if ((size_t)sig < sizeof(signal_names) / sizeof(signal_names[0]) && signal_names[sig])
		return signal_names[sig];
	if (sig < CW_KERNEL_SIGRTMIN)
		return NULL;
	if (sig < rtmin) {
		if (sig - CW_KERNEL_SIGRTMIN < (int)(sizeof(low_rt_names) / sizeof(low_rt_names[0])))
			return low_rt_names[sig - CW_KERNEL_SIGRTMIN];
		return NULL;
	}
	if (sig - rtmin < (int)(sizeof(rt_names) / sizeof(rt_names[0])))
		return rt_names[sig - rtmin];
	return NULL;
}

/* ---- helpers ---- */

static void kv_cbytes(struct cw_jbuf *j, const char *key, const char *s)
{
	cw_jbuf_kv_bytes(j, key, s, s ? strlen(s) : 0);
}

static size_t vlen(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* The reader refuses lines over 1 MiB (trace_read.c), so the writer keeps
 * every line well below that: argv is the one unbounded input (up to
 * ARG_MAX), and at most CW_TRACE_ARGV_MAX of its bytes are written (each
 * byte costs at most 6 bytes of JSON, escaped or as U+FFFD plus hex).
 * Whole elements are kept while they fit; the one that crosses the limit
 * is cut, the rest dropped, and "<key>_truncated": true says so. */
#define CW_TRACE_ARGV_MAX (128 * 1024)

static void kv_argv(struct cw_jbuf *j, const char *key, const char *const *v, size_t n, bool cut_before)
{
	size_t i, keep = 0, used = 0, lastlen = 0, l;
	bool cut = false, lossy = false;
	char hk[64];

	for (i = 0; i < n; i++) {
		l = v[i] ? strlen(v[i]) : 0;
		if (used + l > CW_TRACE_ARGV_MAX) {
			lastlen = CW_TRACE_ARGV_MAX - used;
			keep = i + 1;
			cut = true;
			break;
		}
		used += l;
		keep = i + 1;
		lastlen = l;
	}
	if (!cut) {
		cw_jbuf_arr_bytes(j, key, v, n);
		if (cut_before) {
			/* the caller kept less than the process passed */
			snprintf(hk, sizeof(hk), "%s_truncated", key);
			cw_jbuf_kv_bool(j, hk, true);
		}
		return;
	}
	cw_jbuf_key(j, key);
	cw_jbuf_arr_begin(j);
	for (i = 0; i < keep; i++) {
		l = i + 1 == keep ? lastlen : (v[i] ? strlen(v[i]) : 0);
		cw_jbuf_strn(j, v[i] ? v[i] : "", l);
		if (!cw_utf8_valid(v[i] ? v[i] : "", l))
			lossy = true;
	}
	cw_jbuf_arr_end(j);
	if (lossy) {
		snprintf(hk, sizeof(hk), "%s_hex", key);
		cw_jbuf_key(j, hk);
		cw_jbuf_arr_begin(j);
		for (i = 0; i < keep; i++) {
			l = i + 1 == keep ? lastlen : (v[i] ? strlen(v[i]) : 0);
			if (!cw_utf8_valid(v[i] ? v[i] : "", l))
				cw_jbuf_hex(j, v[i], l);
			else
				cw_jbuf_null(j);
		}
		cw_jbuf_arr_end(j);
	}
	snprintf(hk, sizeof(hk), "%s_truncated", key);
	cw_jbuf_kv_bool(j, hk, true);
}

static void common(struct cw_jbuf *j, const char *type, uint64_t seq, double t)
{
	cw_jbuf_obj_begin(j);
	cw_jbuf_kv_str(j, "type", type);
	cw_jbuf_key(j, "seq");
	cw_jbuf_uint(j, seq);
	cw_jbuf_key(j, "time");
	cw_jbuf_double(j, t);
}

/* errno/signal as a name, or the bare number when it has none */
static void kv_errno(struct cw_jbuf *j, const char *key, int err)
{
	const char *n = cw_errno_name(err);

	cw_jbuf_key(j, key);
	if (!err)
		cw_jbuf_null(j);
	else if (n)
		cw_jbuf_str(j, n);
	else
		cw_jbuf_int(j, err);
}

static void kv_signal(struct cw_jbuf *j, const char *key, int sig)
{
	const char *n = cw_signal_name(sig);

	cw_jbuf_key(j, key);
	if (!sig)
		cw_jbuf_null(j);
	else if (n)
		cw_jbuf_str(j, n);
	else
		cw_jbuf_int(j, sig);
}

static bool is_net_op(cw_op_kind k)
{
	return k == CW_OP_CONNECT || k == CW_OP_SEND || k == CW_OP_BIND || k == CW_OP_LISTEN;
}

/* ---- writers ---- */

void cw_trace_header_write(struct cw_jbuf *j, const struct cw_trace_header *h)
{
	cw_jbuf_obj_begin(j);
	cw_jbuf_kv_str(j, "type", "header");
	cw_jbuf_kv_str(j, "schema", CW_TRACE_SCHEMA);
	cw_jbuf_kv_int(j, "version", 1);
	kv_cbytes(j, "profile", h->profile);
	cw_jbuf_arr_bytes(j, "roots", h->roots, h->roots ? h->nroots : 0);
	cw_jbuf_key(j, "command");
	cw_jbuf_obj_begin(j);
	kv_cbytes(j, "name", h->command);
	kv_argv(j, "args", h->args, vlen(h->args), false);
	cw_jbuf_obj_end(j);
	cw_jbuf_kv_str(j, "kernel", h->kernel);
	cw_jbuf_kv_str(j, "start", h->start);
	kv_cbytes(j, "scratch", h->scratch);
	kv_cbytes(j, "home", h->home);
	cw_jbuf_arr_bytes(j, "protected", h->protected_files,
			  h->protected_files ? h->nprotected : 0);
	cw_jbuf_key(j, "enforcement");
	cw_jbuf_obj_begin(j);
	cw_jbuf_kv_str(j, "backend", h->backend);
	cw_jbuf_kv_str(j, "level", h->level);
	cw_jbuf_obj_end(j);
	if (h->cwd)
		kv_cbytes(j, "cwd", h->cwd);
	cw_jbuf_obj_end(j);
}

/* Large enough for any cw_addr_format output: "unix:@" plus a 107-byte
 * abstract name at four bytes per escaped byte. */
#define ADDR_TEXT_MAX 512

void cw_trace_op_write(struct cw_jbuf *j, const struct cw_trace_op *e)
{
	const struct cw_op *op = e->op;
	const struct cw_decision *d = e->d;
	char addr[ADDR_TEXT_MAX];
	bool have_addr = false;

	if (op && op->addr && op->addrlen &&
	    cw_addr_format(op->addr, op->addrlen, addr, sizeof(addr)) == 0)
		have_addr = true;

	common(j, "op", e->seq, e->time);
	cw_jbuf_kv_int(j, "pid", e->pid);
	cw_jbuf_kv_int(j, "tid", e->tid);
	cw_jbuf_kv_int(j, "ppid", e->ppid);
	cw_jbuf_kv_str(j, "source", e->source);
	if (e->via)
		cw_jbuf_kv_str(j, "via", e->via);
	cw_jbuf_kv_str(j, "syscall", op ? op->syscall : NULL);
	cw_jbuf_kv_str(j, "op", op ? cw_op_name(op->kind) : NULL);

	cw_jbuf_key(j, "args");
	cw_jbuf_obj_begin(j);
	if (e->raw_path)
		cw_jbuf_kv_bytes(j, "path", e->raw_path, e->raw_path_len);
	if (e->raw_path2)
		cw_jbuf_kv_bytes(j, "path2", e->raw_path2, e->raw_path2_len);
	if (e->has_dirfd)
		cw_jbuf_kv_int(j, "dirfd", e->dirfd);
	if (e->has_flags)
		cw_jbuf_kv_int(j, "flags", e->flags);
	if (have_addr)
		kv_cbytes(j, "addr", addr);
	if (e->argv)
		kv_argv(j, "argv", e->argv, vlen(e->argv), false);
	cw_jbuf_obj_end(j);

	if (op) {
		/* "resolved" is what the decision was taken on: the address for
		 * network operations, the normalized path otherwise. */
		if (is_net_op(op->kind) && have_addr)
			kv_cbytes(j, "resolved", addr);
		else if (op->path)
			kv_cbytes(j, "resolved", op->path);
		if (op->path2)
			kv_cbytes(j, "resolved2", op->path2);
		if (op->host)
			kv_cbytes(j, "host", op->host);
		if (op->kind == CW_OP_SIGNAL || op->kind == CW_OP_PROC_ACCESS) {
			cw_jbuf_kv_int(j, "target_pid", op->target_pid);
			cw_jbuf_kv_bool(j, "target_in_tree", op->target_in_tree);
		}
		if (op->env_names)
			kv_cbytes(j, "env_names", op->env_names);
		if (op->alias)
			kv_cbytes(j, "alias", op->alias);
		if (op->secret_src)
			kv_cbytes(j, "secretSrc", op->secret_src);
		if (op->secret_dst)
			kv_cbytes(j, "secretDst", op->secret_dst);
		if (op->exchange)
			cw_jbuf_kv_bool(j, "exchange", true);
		if (op->key_free)
			cw_jbuf_kv_bool(j, "keyFree", true);
		if (op->netlink_route_unprivileged)
			cw_jbuf_kv_bool(j, "netlinkRouteRead", true);
	}

	if (d) {
		cw_jbuf_key(j, "capability");
		if (d->cap == CW_CAP_NONE)
			cw_jbuf_null(j);
		else
			cw_jbuf_str(j, cw_cap_name(d->cap));
		cw_jbuf_kv_bool(j, "secret", d->secret);
		cw_jbuf_kv_bool(j, "flagged", d->flagged);
		cw_jbuf_kv_bytes(j, "scope", d->scope, strnlen(d->scope, sizeof(d->scope)));
		cw_jbuf_kv_str(j, "decision", cw_verdict_name(d->verdict));
		cw_jbuf_kv_str(j, "profile_decision", cw_verdict_name(d->profile_verdict));
		cw_jbuf_kv_bytes(j, "rule", d->rule, strnlen(d->rule, sizeof(d->rule)));
		cw_jbuf_kv_bytes(j, "reason", d->reason, strnlen(d->reason, sizeof(d->reason)));
		cw_jbuf_kv_str(j, "source_of_decision", cw_source_name(d->source));
		cw_jbuf_kv_str(j, "next_action", cw_next_action_name(d->next_action));
	}
	cw_jbuf_kv_bool(j, "enforced", e->enforced);
	kv_errno(j, "errno", e->err);
	cw_jbuf_kv_bool(j, "verified", e->verified);
	if (e->site)
		kv_cbytes(j, "site", e->site);
	if (e->backtrace)
		cw_jbuf_arr_bytes(j, "backtrace", e->backtrace, vlen(e->backtrace));
	if (e->annotation_source && (e->site || e->backtrace || (op && op->host)))
		cw_jbuf_kv_str(j, "annotation_source", e->annotation_source);
	cw_jbuf_obj_end(j);
}

void cw_trace_spawn_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int ppid, int tid, const char *via)
{
	common(j, "spawn", seq, t);
	cw_jbuf_kv_int(j, "pid", pid);
	cw_jbuf_kv_int(j, "ppid", ppid);
	cw_jbuf_kv_int(j, "tid", tid);
	cw_jbuf_kv_str(j, "via", via);
	cw_jbuf_obj_end(j);
}

void cw_trace_exec_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int ppid,
			 const char *exe, const char *const *argv, bool argv_cut, const char *preload)
{
	common(j, "exec", seq, t);
	cw_jbuf_kv_int(j, "pid", pid);
	cw_jbuf_kv_int(j, "ppid", ppid);
	kv_cbytes(j, "exe", exe);
	kv_argv(j, "argv", argv, vlen(argv), argv_cut);
	cw_jbuf_kv_str(j, "preload", preload ? preload : "unknown");
	cw_jbuf_obj_end(j);
}

void cw_trace_exit_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int code, int signal)
{
	common(j, "exit", seq, t);
	cw_jbuf_kv_int(j, "pid", pid);
	cw_jbuf_key(j, "code");
	if (signal)
		cw_jbuf_null(j);
	else
		cw_jbuf_int(j, code);
	kv_signal(j, "signal", signal);
	cw_jbuf_obj_end(j);
}

void cw_trace_note_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, const char *level, const char *message)
{
	common(j, "note", seq, t);
	cw_jbuf_kv_int(j, "pid", pid);
	cw_jbuf_kv_str(j, "level", level ? level : "warning");
	kv_cbytes(j, "message", message);
	cw_jbuf_obj_end(j);
}

void cw_trace_summary_write(struct cw_jbuf *j, uint64_t seq, double t, uint64_t events, uint64_t denials,
			    const char *state, const char *kind, double elapsed)
{
	common(j, "summary", seq, t);
	cw_jbuf_key(j, "events");
	cw_jbuf_uint(j, events);
	cw_jbuf_key(j, "denials");
	cw_jbuf_uint(j, denials);
	cw_jbuf_key(j, "outcome");
	cw_jbuf_obj_begin(j);
	cw_jbuf_kv_str(j, "state", state);
	cw_jbuf_kv_str(j, "kind", kind);
	cw_jbuf_obj_end(j);
	cw_jbuf_key(j, "elapsed");
	cw_jbuf_double(j, elapsed);
	cw_jbuf_obj_end(j);
}
