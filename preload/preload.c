/* libcapwatch-preload.so: context for the supervisor's kernel-level events.
 *
 * The kernel tells capwatch "connect(203.0.113.7:443)"; this library, loaded
 * into every dynamically linked process of the tree through LD_PRELOAD, adds
 * what only the process knows: the host name it resolved, and where in the
 * program the call came from. It sends that as untrusted annotations over
 * the channel described in proto.h. It decides nothing and enforces nothing:
 * a process that removes it, bypasses it or lies through it changes only the
 * annotations of its own events (SECURITY.md, "The preload channel").
 *
 * Rules for every wrapper (the preload must never crash, deadlock or change
 * the behaviour of its host):
 *   - errno is saved before our own work and restored before the real call;
 *     the real call's result and errno are returned untouched;
 *   - no malloc, no locks that can block, no stdio: messages are built on
 *     the stack and sent with one writev() on the non-blocking datagram
 *     socket (not notified by the filter; never blocks; a datagram socket
 *     raises no SIGPIPE); every failure is silent;
 *   - memory the program passed us (paths, commands, socket addresses) is
 *     never read by our code: it goes into the message as an iovec, so the
 *     kernel copies it and a bad pointer costs the annotation (EFAULT),
 *     not a SIGSEGV the program would not have had. A path is copied up to
 *     the end of its page at most (the string may end before; the
 *     supervisor cuts at the first NUL);
 *   - a thread-local flag stops recursion (libunwind, libc internals calling
 *     a wrapped function) and makes nested calls go straight through;
 *   - the file wrappers (open, openat, fopen, unlink, rename: frequent,
 *     and the first four async-signal-safe) and execve/execv (used in
 *     vfork children) send the caller's return address only, taken with
 *     __builtin_return_address: no unwinder, no loader lock. Full
 *     backtraces (libunwind, local, bounded depth) are taken in calls that
 *     are not async-signal-safe anyway (getaddrinfo, gethostbyname*,
 *     posix_spawn, system, popen), and in execvp and connect/sendto, where
 *     the call site is the point of the annotation;
 *   - libunwind is not linked: it is dlopen()ed on the first full
 *     backtrace, so that a process that never takes one (most of them: a
 *     /bin/true, a compiler) pays nothing for it - no loading, no
 *     relocation, no supervised opens of libunwind and liblzma. dlopen
 *     takes the loader lock and may malloc, so it is only done from the
 *     wrappers that are not async-signal-safe; execvp (vfork children) and
 *     connect/sendto (async-signal-safe) use the unwinder once some other
 *     call loaded it, and send the call site until then;
 *   - no threads of its own; after fork the child shares the channel, which
 *     is fine: the kernel attributes each datagram to its real sender.
 * The symbols are resolved with dlsym(RTLD_NEXT) once, in the constructor,
 * and lazily if a wrapper runs before it (another library's constructor). */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <libunwind.h> /* types only: the functions are looked up at run time */
#include <netdb.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "preload/proto.h"

#define EXPORT __attribute__((visibility("default")))

extern char **environ;

/* ---- state ---- */

static int chan_fd = -1;          /* the channel, -1: annotations off */
static unsigned long chan_ino;    /* its inode: the socket capwatch made */
static atomic_int init_state;     /* 0 not yet, 1 running, 2 done */
static char preload_env[4200];    /* "LD_PRELOAD=<our value>" for re-injection */
static char fd_env[64];           /* "CAPWATCH_ANNOT_FD=1000:INODE[:k]" */
/* ":k": capwatch decides read-only opens in the kernel (its fanotify
 * event, CAPWATCH_KERNEL_READS): they are never notified, so nothing
 * would drain their annotations before the queue fills, and a read
 * decided there has no raw path to match one to. Not sent. */
static bool reads_in_kernel;
static const char *our_path;      /* points into preload_env */
static size_t our_path_len;

static __thread int in_hook __attribute__((tls_model("initial-exec")));

#define REAL(name) real_##name
#define DECL_REAL(ret, name, ...) static ret (*real_##name)(__VA_ARGS__)

DECL_REAL(int, getaddrinfo, const char *, const char *, const struct addrinfo *, struct addrinfo **);
DECL_REAL(struct hostent *, gethostbyname, const char *);
DECL_REAL(struct hostent *, gethostbyname2, const char *, int);
DECL_REAL(int, gethostbyname_r, const char *, struct hostent *, char *, size_t, struct hostent **, int *);
DECL_REAL(int, gethostbyname2_r, const char *, int, struct hostent *, char *, size_t, struct hostent **, int *);
DECL_REAL(int, connect, int, const struct sockaddr *, socklen_t);
DECL_REAL(ssize_t, sendto, int, const void *, size_t, int, const struct sockaddr *, socklen_t);
DECL_REAL(int, execve, const char *, char *const[], char *const[]);
DECL_REAL(int, execv, const char *, char *const[]);
DECL_REAL(int, execvp, const char *, char *const[]);
DECL_REAL(int, execvpe, const char *, char *const[], char *const[]);
DECL_REAL(int, posix_spawn, pid_t *, const char *, const posix_spawn_file_actions_t *,
	  const posix_spawnattr_t *, char *const[], char *const[]);
DECL_REAL(int, posix_spawnp, pid_t *, const char *, const posix_spawn_file_actions_t *,
	  const posix_spawnattr_t *, char *const[], char *const[]);
DECL_REAL(int, system, const char *);
DECL_REAL(FILE *, popen, const char *, const char *);
DECL_REAL(int, open, const char *, int, ...);
DECL_REAL(int, open64, const char *, int, ...);
DECL_REAL(int, openat, int, const char *, int, ...);
DECL_REAL(int, openat64, int, const char *, int, ...);
DECL_REAL(FILE *, fopen, const char *, const char *);
DECL_REAL(FILE *, fopen64, const char *, const char *);
DECL_REAL(int, unlink, const char *);
DECL_REAL(int, unlinkat, int, const char *, int);
DECL_REAL(int, rename, const char *, const char *);
DECL_REAL(int, renameat, int, const char *, int, const char *);

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define RESOLVE(name) do { if (!real_##name) *(void **)&real_##name = next_sym(#name); } while (0)

static void resolve_all(void)
{
	RESOLVE(getaddrinfo); RESOLVE(gethostbyname); RESOLVE(gethostbyname2);
	RESOLVE(gethostbyname_r); RESOLVE(gethostbyname2_r);
	RESOLVE(connect); RESOLVE(sendto);
	RESOLVE(execve); RESOLVE(execv); RESOLVE(execvp); RESOLVE(execvpe);
	RESOLVE(posix_spawn); RESOLVE(posix_spawnp); RESOLVE(system); RESOLVE(popen);
	RESOLVE(open); RESOLVE(open64); RESOLVE(openat); RESOLVE(openat64);
	RESOLVE(fopen); RESOLVE(fopen64);
	RESOLVE(unlink); RESOLVE(unlinkat); RESOLVE(rename); RESOLVE(renameat);
}

/* The environment names the channel as FD:INODE. It is used only while
 * that fd is that very socket: a program that closed fd 1000 and put a
 * file or a connection of its own there must never get our bytes. */
static bool channel_ok(void)
{
	struct stat st;
	return chan_fd >= 0 && fstat(chan_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       (unsigned long)st.st_ino == chan_ino;
}

/* Decimal digits at *S, at most MAX: advances *S. */
static bool parse_dec(const char **s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	const char *p = *s;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (unsigned long)(*p - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	*s = p;
	*out = v;
	return true;
}

/* Runs in every process of the tree, so it calls as little of libc as it
 * can: no stdio and no strto*, whose code pages /bin/true never touches
 * and which would each cost a page fault per process (measured: the
 * preload's constructor is the part of its per-process cost that is not
 * the loader's). */
static void channel_setup(void)
{
	const char *s = getenv(CW_ANNOT_ENV_FD);
	const char *p = getenv("LD_PRELOAD");
	unsigned long fd, ino;

	if (p) {
		size_t n = 0, len = strlen(p);
		if (len + sizeof("LD_PRELOAD=") <= sizeof(preload_env)) {
			/* Our own entry is the first of LD_PRELOAD's list (the
			 * supervisor puts it there). */
			while (p[n] && p[n] != ':' && p[n] != ' ')
				n++;
			memcpy(preload_env, "LD_PRELOAD=", 11);
			memcpy(preload_env + 11, p, len + 1);
			our_path = preload_env + 11;
			our_path_len = n;
		}
	}
	if (!s || !*s)
		return;
	const char *q = s;
	if (!parse_dec(&q, 65535, &fd) || fd < 3 || *q++ != ':' || !parse_dec(&q, ~0ul, &ino))
		return;
	bool kr = q[0] == ':' && q[1] == 'k' && !q[2];
	if (kr)
		q += 2;
	if (*q)
		return;
	size_t sl = (size_t)(q - s), nl = sizeof(CW_ANNOT_ENV_FD) - 1;
	if (nl + 1 + sl + 1 > sizeof(fd_env))
		return;
	memcpy(fd_env, CW_ANNOT_ENV_FD, nl);
	fd_env[nl] = '=';
	memcpy(fd_env + nl + 1, s, sl + 1);
	chan_fd = (int)fd;
	chan_ino = ino;
	reads_in_kernel = kr;
	if (!channel_ok())
		chan_fd = -1;
}

static void send_msg(const void *buf, size_t len);

static void init_once(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&init_state, &expect, 1))
		return; /* done, or running in this or another thread: go on without */
	int saved = errno;
	in_hook++;
	resolve_all();
	channel_setup();
	struct cw_annot_hdr h = { .magic = CW_ANNOT_MAGIC, .type = CW_ANNOT_HELLO,
				  .tid = (int32_t)syscall(SYS_gettid) };
	send_msg(&h, sizeof(h));
	in_hook--;
	atomic_store(&init_state, 2);
	errno = saved;
}

__attribute__((constructor)) static void preload_init(void)
{
	init_once();
}

/* ---- messages ---- */

struct msg {
	union {
		struct cw_annot_hdr h;
		unsigned char buf[CW_ANNOT_MAX_MSG];
	} u;
	uint64_t frames[CW_ANNOT_MAX_FRAMES];
	struct cw_annot_addr addrs[CW_ANNOT_MAX_ADDRS];
	const char *name;            /* ours, already read by libc */
	const void *text, *raw;      /* the program's memory: never read here */
	size_t namelen, textlen, rawlen;
};

/* How much of the program's memory at P we may hand to the kernel: up to
 * MAX bytes, not past the end of P's page. */
static size_t user_span(const void *p, size_t max)
{
	size_t to_end;
	if (!p)
		return 0;
	to_end = 4096 - ((uintptr_t)p & 4095);
	return to_end < max ? to_end : max;
}

static void send_iov(struct iovec *iov, int n)
{
	if (!channel_ok())
		return;
	/* writev on the non-blocking datagram socket: one datagram, not
	 * notified by the filter, never blocks (a full queue drops it), no
	 * SIGPIPE; EFAULT on a bad pointer of the program drops it too. */
	ssize_t r = writev(chan_fd, iov, n);
	(void)r;
}

static void send_msg(const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };
	send_iov(&iov, 1);
}

static void msg_init(struct msg *m, enum cw_annot_type type, enum cw_annot_func func)
{
	memset(&m->u.h, 0, sizeof(m->u.h));
	m->u.h.magic = CW_ANNOT_MAGIC;
	m->u.h.type = (uint16_t)type;
	m->u.h.func = (uint16_t)func;
	m->u.h.tid = (int32_t)syscall(SYS_gettid);
	m->name = NULL;
	m->text = m->raw = NULL;
	m->namelen = m->textlen = m->rawlen = 0;
}

static void msg_send(struct msg *m)
{
	struct cw_annot_hdr *h = &m->u.h;
	size_t off = sizeof(*h);
	size_t nf = h->nframes, na = h->naddrs;

	if (chan_fd < 0)
		return;
	if (m->namelen > CW_ANNOT_MAX_NAME)
		m->namelen = 0; /* not a DNS name: leave it out */
	if (m->textlen > CW_ANNOT_MAX_TEXT)
		m->textlen = CW_ANNOT_MAX_TEXT;
	if (m->rawlen > CW_ANNOT_MAX_RAW)
		m->rawlen = CW_ANNOT_MAX_RAW;
	h->namelen = (uint16_t)m->namelen;
	h->textlen = (uint16_t)m->textlen;
	h->rawlen = (uint16_t)m->rawlen;
	memcpy(m->u.buf + off, m->frames, nf * sizeof(uint64_t));
	off += nf * sizeof(uint64_t);
	memcpy(m->u.buf + off, m->addrs, na * sizeof(struct cw_annot_addr));
	off += na * sizeof(struct cw_annot_addr);
	struct iovec iov[4] = {
		{ m->u.buf, off },
		{ (void *)m->raw, m->rawlen },
		{ (void *)m->name, m->namelen },
		{ (void *)m->text, m->textlen },
	};
	send_iov(iov, 4);
}

/* ---- the unwinder, loaded on first need ---- */

#define CW_STR_(x) #x
#define CW_STR(x) CW_STR_(x)

static struct {
	int (*getcontext)(unw_context_t *);
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
} unw;
static atomic_int unw_state; /* 0 not tried, 1 loading, 2 ready, 3 unavailable */

/* Load libunwind (the local-only API) unless it was tried already.
 * Another thread loading it at the same moment makes this call go
 * without: a wrapper never waits. */
static bool unwinder(bool may_load)
{
	int st = atomic_load_explicit(&unw_state, memory_order_acquire);
	if (st == 2)
		return true;
	if (st != 0 || !may_load || !atomic_compare_exchange_strong(&unw_state, &st, 1))
		return false;
	static const char *const names[] = { "libunwind.so.8", "libunwind.so" };
	void *h = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (h) {
		/* The names are those the header's macros give, so that the
		 * local-only variants (_UL...) are the ones called. */
		*(void **)&unw.getcontext = dlsym(h, CW_STR(unw_tdep_getcontext));
		*(void **)&unw.init_local = dlsym(h, CW_STR(unw_init_local));
		*(void **)&unw.step = dlsym(h, CW_STR(unw_step));
		*(void **)&unw.get_reg = dlsym(h, CW_STR(unw_get_reg));
	}
	bool ok = h && unw.getcontext && unw.init_local && unw.step && unw.get_reg;
	atomic_store_explicit(&unw_state, ok ? 2 : 3, memory_order_release);
	return ok;
}

static void callsite_only(struct msg *m, void *ra)
{
	m->frames[0] = (uint64_t)(uintptr_t)ra;
	m->u.h.nframes = ra ? 1 : 0;
	m->u.h.flags |= CW_ANNOT_F_CALLSITE_ONLY;
}

/* The call chain, innermost first: libunwind, local address space,
 * bounded depth, SKIP - 1 frames dropped. Our own frames (inlining decides
 * how many) are dropped by the supervisor, which knows where this library
 * is mapped. Only IPs: symbol names are looked up by the supervisor, so
 * that the target opens no file on our behalf. Without the unwinder (not
 * loaded yet where loading is not safe, or not installed): the wrapper's
 * call site RA. */
static __attribute__((noinline)) void backtrace_ips(struct msg *m, int skip, void *ra, bool may_load)
{
	unw_context_t uc;
	unw_cursor_t c;
	int n = 0;

	m->u.h.nframes = 0;
	if (!unwinder(may_load)) {
		callsite_only(m, ra);
		return;
	}
	if (unw.getcontext(&uc) < 0 || unw.init_local(&c, &uc) < 0)
		return;
	while (n < CW_ANNOT_MAX_FRAMES && unw.step(&c) > 0) {
		unw_word_t ip;
		if (unw.get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (skip > 1) {
			skip--;
			continue;
		}
		m->frames[n++] = (uint64_t)ip;
	}
	m->u.h.nframes = (uint16_t)n;
}

/* The text is the program's string S: hand over exactly its bytes, never
 * past its NUL (valgrind and ASan check writev's buffers: a span to the
 * end of the page read past the string's allocation). The kernel says
 * first whether S can be read at all (a path lookup that copies it: EFAULT
 * for a bad pointer, which the program's own call will get too); then
 * strnlen stays within that readable page. */
static void set_text(struct msg *m, const char *s)
{
	m->text = s;
	m->textlen = 0;
	if (!s)
		return;
	int saved = errno;
	long r = syscall(SYS_faccessat, AT_FDCWD, s, F_OK);
	bool readable = r == 0 || errno != EFAULT;
	errno = saved;
	if (readable) {
		/* With its NUL when it is within reach: the supervisor then
		 * knows it has the whole string. */
		size_t span = user_span(s, CW_ANNOT_MAX_TEXT);
		size_t len = strnlen(s, span);
		m->textlen = len < span ? len + 1 : len;
	}
}

/* Enter a wrapper: false means "just call the real function" (recursion,
 * no channel). */
static bool enter(void)
{
	if (in_hook)
		return false;
	if (atomic_load_explicit(&init_state, memory_order_acquire) == 0)
		init_once();
	return chan_fd >= 0;
}

/* ---- names and addresses ---- */

static bool to_annot_addr(const struct sockaddr *sa, socklen_t len, struct cw_annot_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		return false;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		out->family = AF_INET;
		out->port = s4->sin_port;
		memcpy(out->addr, &s4->sin_addr, 4);
		return true;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		out->family = AF_INET6;
		out->port = s6->sin6_port;
		memcpy(out->addr, &s6->sin6_addr, 16);
		return true;
	}
	return false;
}

static bool same_addr(const struct cw_annot_addr *a, const struct cw_annot_addr *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16) == 0;
}

static void send_resolved(const char *name, struct cw_annot_addr *a, size_t n, enum cw_annot_func f,
			  void *ra)
{
	struct msg m;
	unsigned char tmp[sizeof(struct in6_addr)];
	if (!name || n == 0)
		return;
	/* A numeric address "resolves" to itself: not a host name. */
	if (inet_pton(AF_INET, name, tmp) == 1 || inet_pton(AF_INET6, name, tmp) == 1)
		return;
	msg_init(&m, CW_ANNOT_RESOLVED, f);
	backtrace_ips(&m, 1, ra, true); /* not async-signal-safe: may load */
	memcpy(m.addrs, a, n * sizeof(*a));
	m.u.h.naddrs = (uint16_t)n;
	m.name = name;
	m.namelen = strnlen(name, CW_ANNOT_MAX_NAME + 1);
	msg_send(&m);
}

static void resolved_hostent(const char *name, const struct hostent *he, enum cw_annot_func f, void *ra)
{
	struct cw_annot_addr a[CW_ANNOT_MAX_ADDRS];
	size_t n = 0;
	if (!he || !he->h_addr_list)
		return;
	for (char **p = he->h_addr_list; *p && n < CW_ANNOT_MAX_ADDRS; p++) {
		memset(&a[n], 0, sizeof(a[n]));
		if (he->h_addrtype == AF_INET && he->h_length == 4) {
			a[n].family = AF_INET;
			memcpy(a[n].addr, *p, 4);
			n++;
		} else if (he->h_addrtype == AF_INET6 && he->h_length == 16) {
			a[n].family = AF_INET6;
			memcpy(a[n].addr, *p, 16);
			n++;
		}
	}
	send_resolved(name, a, n, f, ra);
}

/* ---- name resolution ---- */

EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		       struct addrinfo **res)
{
	bool on = enter();
	RESOLVE(getaddrinfo);
	if (!real_getaddrinfo)
		return EAI_SYSTEM;
	in_hook++;
	int r = real_getaddrinfo(node, service, hints, res);
	in_hook--;
	if (on && r == 0 && node && res && *res) {
		int saved = errno;
		struct cw_annot_addr a[CW_ANNOT_MAX_ADDRS];
		size_t n = 0;
		in_hook++;
		for (const struct addrinfo *ai = *res; ai && n < CW_ANNOT_MAX_ADDRS; ai = ai->ai_next) {
			struct cw_annot_addr x;
			bool dup = false;
			if (!to_annot_addr(ai->ai_addr, ai->ai_addrlen, &x))
				continue;
			x.port = 0;
			for (size_t i = 0; i < n && !dup; i++)
				dup = same_addr(&a[i], &x);
			if (!dup)
				a[n++] = x;
		}
		send_resolved(node, a, n, CW_AF_GETADDRINFO, __builtin_return_address(0));
		in_hook--;
		errno = saved;
	}
	return r;
}

#define HOSTENT_WRAPPER_TAIL(name, he, func) \
	do { \
		if (on && (he)) { \
			int saved_ = errno; \
			in_hook++; \
			resolved_hostent(name, he, func, __builtin_return_address(0)); \
			in_hook--; \
			errno = saved_; \
		} \
	} while (0)

EXPORT struct hostent *gethostbyname(const char *name)
{
	bool on = enter();
	RESOLVE(gethostbyname);
	if (!real_gethostbyname)
		return NULL;
	in_hook++;
	struct hostent *he = real_gethostbyname(name);
	in_hook--;
	HOSTENT_WRAPPER_TAIL(name, he, CW_AF_GETHOSTBYNAME);
	return he;
}

EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	bool on = enter();
	RESOLVE(gethostbyname2);
	if (!real_gethostbyname2)
		return NULL;
	in_hook++;
	struct hostent *he = real_gethostbyname2(name, af);
	in_hook--;
	HOSTENT_WRAPPER_TAIL(name, he, CW_AF_GETHOSTBYNAME2);
	return he;
}

EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t buflen,
			   struct hostent **result, int *h_errnop)
{
	bool on = enter();
	RESOLVE(gethostbyname_r);
	if (!real_gethostbyname_r)
		return ENOSYS;
	in_hook++;
	int r = real_gethostbyname_r(name, ret, buf, buflen, result, h_errnop);
	in_hook--;
	HOSTENT_WRAPPER_TAIL(name, (r == 0 && result ? *result : NULL), CW_AF_GETHOSTBYNAME_R);
	return r;
}

EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf, size_t buflen,
			    struct hostent **result, int *h_errnop)
{
	bool on = enter();
	RESOLVE(gethostbyname2_r);
	if (!real_gethostbyname2_r)
		return ENOSYS;
	in_hook++;
	int r = real_gethostbyname2_r(name, af, ret, buf, buflen, result, h_errnop);
	in_hook--;
	HOSTENT_WRAPPER_TAIL(name, (r == 0 && result ? *result : NULL), CW_AF_GETHOSTBYNAME2_R);
	return r;
}

/* ---- network: sent before the call, so that the annotation is queued
 * before the kernel notifies the supervisor of the call itself ---- */

/* The destination goes as the raw sockaddr (the program's memory, copied
 * by the kernel); the supervisor parses it and ties it to a name it was
 * told about by this process. */
static void annotate_net(const struct sockaddr *sa, socklen_t len, enum cw_annot_func f, void *ra)
{
	struct msg m;
	if (!sa || len == 0)
		return;
	msg_init(&m, CW_ANNOT_NET, f);
	m.raw = sa;
	m.rawlen = len < CW_ANNOT_MAX_RAW ? (size_t)len : CW_ANNOT_MAX_RAW;
	/* connect and sendto are async-signal-safe: the unwinder is used
	 * when a resolver or spawn call loaded it, never loaded here. */
	backtrace_ips(&m, 1, ra, false);
	msg_send(&m);
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	RESOLVE(connect);
	if (!real_connect) {
		errno = ENOSYS;
		return -1;
	}
	if (enter()) {
		int saved = errno;
		in_hook++;
		annotate_net(addr, len, CW_AF_CONNECT, __builtin_return_address(0));
		in_hook--;
		errno = saved;
	}
	return real_connect(fd, addr, len);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr,
		      socklen_t len)
{
	RESOLVE(sendto);
	if (!real_sendto) {
		errno = ENOSYS;
		return -1;
	}
	if (addr && len && fd != chan_fd && enter()) {
		int saved = errno;
		in_hook++;
		annotate_net(addr, len, CW_AF_SENDTO, __builtin_return_address(0));
		in_hook--;
		errno = saved;
	}
	return real_sendto(fd, buf, n, flags, addr, len);
}

/* ---- exec and spawn ---- */

/* Does ENVP carry both our LD_PRELOAD entry and the channel fd? */
static bool env_has_us(char *const envp[], size_t *count)
{
	bool pre = false, fd = false;
	size_t n = 0;
	if (!envp) {
		*count = 0;
		return false;
	}
	for (; envp[n]; n++) {
		const char *e = envp[n];
		if (strncmp(e, "LD_PRELOAD=", 11) == 0 && our_path &&
		    strncmp(e + 11, our_path, our_path_len) == 0 &&
		    (e[11 + our_path_len] == '\0' || e[11 + our_path_len] == ':' ||
		     e[11 + our_path_len] == ' '))
			pre = true;
		else if (fd_env[0] && strcmp(e, fd_env) == 0)
			fd = true;
	}
	*count = n;
	return pre && (fd || !fd_env[0]);
}

#define MAX_REINJECT_ENV 4096

static void pipe_drain(int fd)
{
	char sink[2048];
	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

/* Hand IOV to the kernel through the probe pipe: false when it faults.
 * Every batch is under PIPE_BUF, so a write is whole or EAGAIN (pipe
 * full): the pipe is drained only then, not after every batch (that was
 * two reads per batch, on every exec of a shell). */
static bool probe(int p[2], const struct iovec *iov, int n)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		if (writev(p[1], iov, n) >= 0)
			return true;
		if (errno != EAGAIN)
			return false;
		pipe_drain(p[0]);
	}
	return false;
}

/* May our code read ENVP (the pointer array and the first bytes of each
 * string)? An environment array the program built itself can point
 * anywhere, and execve must then fail with EFAULT, not fault in here. The
 * kernel answers for us: it copies the bytes into a private pipe, and a bad
 * pointer is an EFAULT. pipe2, write and read are not notified by the
 * filter; the pipe exists only during the call. */
static bool env_readable(char *const envp[])
{
	int p[2];
	bool ok = true;
	struct iovec iov[64];
	int k = 0;
	uintptr_t lastpage = 0;

	if (!envp || envp == environ)
		return true;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return false;
	for (size_t i = 0;; i++) {
		const char *slot = (const char *)&envp[i];
		uintptr_t a = (uintptr_t)slot >> 12, b = ((uintptr_t)slot + sizeof(char *) - 1) >> 12;
		if (i > MAX_REINJECT_ENV) {
			ok = false;
			break;
		}
		if (i == 0 || a != lastpage || b != lastpage) {
			struct iovec s = { (void *)slot, sizeof(char *) };
			if (!probe(p, &s, 1)) {
				ok = false;
				break;
			}
			lastpage = b;
		}
		if (!envp[i])
			break;
		iov[k].iov_base = envp[i];
		iov[k].iov_len = user_span(envp[i], 24);
		if (++k == 64) {
			ok = probe(p, iov, k);
			k = 0;
			if (!ok)
				break;
		}
	}
	if (ok && k)
		ok = probe(p, iov, k);
	close(p[0]);
	close(p[1]);
	return ok;
}

/* A program that clears LD_PRELOAD (env -u, a custom envp) for its child
 * gets it back at exec: the environment passed to the real call is ENVP
 * plus our two entries. Built in OUT (on the caller's stack: no malloc, this
 * runs in vfork children). The program's own LD_PRELOAD entry, if any, is
 * kept after ours in BUF. Returns ENVP when nothing needs adding or the
 * environment is too large to copy. */
static char *const *reinject(char *const envp[], char **out, size_t outn, char *buf, size_t bufn)
{
	size_t n, k = 0;
	const char *theirs = NULL;
	if (!our_path || env_has_us(envp, &n) || n + 3 > outn)
		return envp;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0) {
			theirs = envp[i] + 11;
			continue;
		}
		if (fd_env[0] && strncmp(envp[i], CW_ANNOT_ENV_FD "=", sizeof(CW_ANNOT_ENV_FD)) == 0)
			continue;
		out[k++] = envp[i];
	}
	if (theirs && strncmp(theirs, our_path, our_path_len) == 0 &&
	    (theirs[our_path_len] == '\0' || theirs[our_path_len] == ':' || theirs[our_path_len] == ' ')) {
		int w = snprintf(buf, bufn, "LD_PRELOAD=%s", theirs);
		if (w < 0 || (size_t)w >= bufn)
			return envp;
		out[k++] = buf;
	} else if (theirs && *theirs) {
		int w = snprintf(buf, bufn, "LD_PRELOAD=%.*s:%s", (int)our_path_len, our_path, theirs);
		if (w < 0 || (size_t)w >= bufn)
			return envp;
		out[k++] = buf;
	} else {
		int w = snprintf(buf, bufn, "LD_PRELOAD=%.*s", (int)our_path_len, our_path);
		if (w < 0 || (size_t)w >= bufn)
			return envp;
		out[k++] = buf;
	}
	if (fd_env[0])
		out[k++] = fd_env;
	out[k] = NULL;
	return out;
}

/* How much of the call chain an annotation carries. */
enum chain { CALLSITE, FULL_IF_LOADED, FULL };

static void annotate_exec(const char *what, enum cw_annot_func f, void *ra, enum chain chain)
{
	struct msg m;
	msg_init(&m, CW_ANNOT_EXEC, f);
	set_text(&m, what);
	if (chain == CALLSITE)
		callsite_only(&m, ra);
	else
		backtrace_ips(&m, 1, ra, chain == FULL);
	msg_send(&m);
}

/* Call EXPR with E_ bound to ENVP, or to a copy of it with our entries
 * added back (on this stack frame: no malloc). */
#define WITH_OUR_ENV(envp, expr) \
	do { \
		size_t n_; \
		if (!our_path || !env_readable(envp) || env_has_us((envp), &n_) || \
		    n_ > MAX_REINJECT_ENV) { \
			char *const *E_ = (envp); \
			in_hook--; \
			errno = saved; \
			return expr; \
		} \
		char *outv_[n_ + 4]; \
		char buf_[sizeof(preload_env) + 64]; \
		char *const *E_ = reinject((envp), outv_, n_ + 4, buf_, sizeof(buf_)); \
		in_hook--; \
		errno = saved; \
		return expr; \
	} while (0)

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE(execve);
	if (!real_execve) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter())
		return real_execve(path, argv, envp);
	/* Async-signal-safe and used in vfork children: call site only. */
	int saved = errno;
	in_hook++;
	annotate_exec(path, CW_AF_EXECVE, __builtin_return_address(0), CALLSITE);
	WITH_OUR_ENV(envp, real_execve(path, argv, E_));
}

EXPORT int execv(const char *path, char *const argv[])
{
	/* glibc's execv calls execve internally (not through the PLT): the
	 * environment is environ, which the process may have cleared. */
	RESOLVE(execve);
	if (!real_execve) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter())
		return real_execve(path, argv, environ);
	int saved = errno;
	in_hook++;
	annotate_exec(path, CW_AF_EXECV, __builtin_return_address(0), CALLSITE);
	WITH_OUR_ENV(environ, real_execve(path, argv, E_));
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE(execvpe);
	if (!real_execvpe) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter())
		return real_execvpe(file, argv, envp);
	int saved = errno;
	in_hook++;
	annotate_exec(file, CW_AF_EXECVPE, __builtin_return_address(0), FULL_IF_LOADED);
	WITH_OUR_ENV(envp, real_execvpe(file, argv, E_));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	RESOLVE(execvpe);
	if (!real_execvpe) {
		errno = ENOSYS;
		return -1;
	}
	if (!enter())
		return real_execvpe(file, argv, environ);
	int saved = errno;
	in_hook++;
	annotate_exec(file, CW_AF_EXECVP, __builtin_return_address(0), FULL_IF_LOADED);
	WITH_OUR_ENV(environ, real_execvpe(file, argv, E_));
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	RESOLVE(posix_spawn);
	if (!real_posix_spawn)
		return ENOSYS;
	if (!enter())
		return real_posix_spawn(pid, path, fa, attr, argv, envp);
	int saved = errno;
	in_hook++;
	annotate_exec(path, CW_AF_POSIX_SPAWN, __builtin_return_address(0), FULL);
	WITH_OUR_ENV(envp, real_posix_spawn(pid, path, fa, attr, argv, E_));
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	RESOLVE(posix_spawnp);
	if (!real_posix_spawnp)
		return ENOSYS;
	if (!enter())
		return real_posix_spawnp(pid, file, fa, attr, argv, envp);
	int saved = errno;
	in_hook++;
	annotate_exec(file, CW_AF_POSIX_SPAWNP, __builtin_return_address(0), FULL);
	WITH_OUR_ENV(envp, real_posix_spawnp(pid, file, fa, attr, argv, E_));
}

/* system() and popen() run /bin/sh with environ: a process that cleared
 * LD_PRELOAD there loses the preload in the shell (recorded as absent). */
EXPORT int system(const char *cmd)
{
	RESOLVE(system);
	if (!real_system) {
		errno = ENOSYS;
		return -1;
	}
	if (cmd && enter()) {
		int saved = errno;
		in_hook++;
		annotate_exec(cmd, CW_AF_SYSTEM, __builtin_return_address(0), FULL);
		in_hook--;
		errno = saved;
	}
	return real_system(cmd);
}

EXPORT FILE *popen(const char *cmd, const char *type)
{
	RESOLVE(popen);
	if (!real_popen) {
		errno = ENOSYS;
		return NULL;
	}
	if (cmd && enter()) {
		int saved = errno;
		in_hook++;
		annotate_exec(cmd, CW_AF_POPEN, __builtin_return_address(0), FULL);
		in_hook--;
		errno = saved;
	}
	return real_popen(cmd, type);
}

/* ---- files: the call site ---- */

/* capwatch drops a process's messages past CW_ANNOT_BURST at once and
 * CW_ANNOT_RATE a second (annot.c): a loop over files would pay a gettid
 * and a writev per open for datagrams thrown away (4 us of a 24 us
 * supervised open here). The same bucket, for file annotations, per
 * thread: no lock; the threads of one process together may still send
 * more than capwatch keeps, and it drops that. A forked child starts
 * with its parent's bucket where capwatch gives it a full one: it sends
 * less for a moment, never more. */
static __thread double file_tokens __attribute__((tls_model("initial-exec"))) = -1;
static __thread double file_last __attribute__((tls_model("initial-exec")));

static bool file_budget(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0)
		return true;
	double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (file_tokens < 0) {
		file_tokens = CW_ANNOT_BURST;
		file_last = now;
	}
	if (now > file_last) {
		file_tokens += (now - file_last) * CW_ANNOT_RATE;
		if (file_tokens > CW_ANNOT_BURST)
			file_tokens = CW_ANNOT_BURST;
		file_last = now;
	}
	if (file_tokens < 1)
		return false;
	file_tokens -= 1;
	return true;
}

static void annotate_file(const char *path, enum cw_annot_func f, void *ra)
{
	struct msg m;
	int saved = errno;
	if (!file_budget())
		return;
	in_hook++;
	msg_init(&m, CW_ANNOT_FILE, f);
	set_text(&m, path);
	callsite_only(&m, ra);
	msg_send(&m);
	in_hook--;
	errno = saved;
}

static bool takes_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* An open capwatch does not notify when it decides reads in the kernel
 * (supervisor/filter.c, CW_OPEN_NOTIFY_BITS: the same bits). */
static bool kernel_read(int flags)
{
	return reads_in_kernel &&
	       !(flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_PATH | (O_TMPFILE & ~O_DIRECTORY)));
}

/* The same for fopen's MODE: "r" without "+" opens O_RDONLY. */
static bool kernel_read_mode(const char *mode)
{
	return reads_in_kernel && mode && mode[0] == 'r' && !strchr(mode, '+');
}

#define OPEN_WRAPPER(name, func) \
	EXPORT int name(const char *path, int flags, ...) \
	{ \
		mode_t mode = 0; \
		if (takes_mode(flags)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap); \
		} \
		RESOLVE(name); \
		if (!real_##name) { \
			errno = ENOSYS; \
			return -1; \
		} \
		if (enter() && !kernel_read(flags)) \
			annotate_file(path, func, __builtin_return_address(0)); \
		return real_##name(path, flags, mode); \
	}

#define OPENAT_WRAPPER(name, func) \
	EXPORT int name(int dirfd, const char *path, int flags, ...) \
	{ \
		mode_t mode = 0; \
		if (takes_mode(flags)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap); \
		} \
		RESOLVE(name); \
		if (!real_##name) { \
			errno = ENOSYS; \
			return -1; \
		} \
		if (enter() && !kernel_read(flags)) \
			annotate_file(path, func, __builtin_return_address(0)); \
		return real_##name(dirfd, path, flags, mode); \
	}

OPEN_WRAPPER(open, CW_AF_OPEN)
OPEN_WRAPPER(open64, CW_AF_OPEN)
OPENAT_WRAPPER(openat, CW_AF_OPENAT)
OPENAT_WRAPPER(openat64, CW_AF_OPENAT)

EXPORT FILE *fopen(const char *path, const char *mode)
{
	RESOLVE(fopen);
	if (!real_fopen) {
		errno = ENOSYS;
		return NULL;
	}
	/* The call site only, as for open: file calls are frequent, and a
	 * full unwind here measured +40% on an open-heavy loop. */
	if (enter() && !kernel_read_mode(mode))
		annotate_file(path, CW_AF_FOPEN, __builtin_return_address(0));
	return real_fopen(path, mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	RESOLVE(fopen64);
	if (!real_fopen64) {
		errno = ENOSYS;
		return NULL;
	}
	if (enter() && !kernel_read_mode(mode))
		annotate_file(path, CW_AF_FOPEN, __builtin_return_address(0));
	return real_fopen64(path, mode);
}

EXPORT int unlink(const char *path)
{
	RESOLVE(unlink);
	if (!real_unlink) {
		errno = ENOSYS;
		return -1;
	}
	if (enter())
		annotate_file(path, CW_AF_UNLINK, __builtin_return_address(0));
	return real_unlink(path);
}

EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	RESOLVE(unlinkat);
	if (!real_unlinkat) {
		errno = ENOSYS;
		return -1;
	}
	if (enter())
		annotate_file(path, CW_AF_UNLINKAT, __builtin_return_address(0));
	return real_unlinkat(dirfd, path, flags);
}

EXPORT int rename(const char *from, const char *to)
{
	RESOLVE(rename);
	if (!real_rename) {
		errno = ENOSYS;
		return -1;
	}
	if (enter())
		annotate_file(from, CW_AF_RENAME, __builtin_return_address(0));
	return real_rename(from, to);
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	RESOLVE(renameat);
	if (!real_renameat) {
		errno = ENOSYS;
		return -1;
	}
	if (enter())
		annotate_file(from, CW_AF_RENAMEAT, __builtin_return_address(0));
	return real_renameat(fromfd, from, tofd, to);
}
