/* The network family: connect, sendto/sendmsg/sendmmsg with an address,
 * bind, listen. The address is copied once (addrlen exactly) and decided
 * on that copy, and capwatch performs the call itself on a duplicate of
 * the target's socket with that copy (see enforce_net()).
 *
 * This file: the handler, connect, bind and listen, netlink, the options
 * that reroute. net_addr.c: addresses (copy, checks, unix names) and the
 * bookkeeping of sockets the tree bound (inet ports, unix pinning);
 * net_send.c: sends, with their payload and control data. What they share
 * is net_impl.h. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/net_impl.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/ingress.h"
#include "supervisor/state.h"
#include "supervisor/ptrace.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

#ifndef IPV6_HDRINCL
#define IPV6_HDRINCL 36
#endif
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif
#ifndef IP_TRANSPARENT
#define IP_TRANSPARENT 19
#endif
#ifndef IPV6_TRANSPARENT
#define IPV6_TRANSPARENT 75
#endif


/* ---- options and control messages that reroute (e121) ----
 *
 * capwatch decides a datagram by the address it is sent to. Some socket
 * options and control messages make the kernel send it elsewhere: an
 * IPv4 source route (IP_OPTIONS with LSRR/SSRR, unprivileged) goes to
 * its first hop with the decided address only inside the option; an
 * IPv6 routing header (IPV6_RTHDR: type 4 segment routing is
 * unprivileged; IPV6_2292PKTOPTIONS carries one) goes to its segments;
 * a device binding, a transparent socket or a header written by the
 * command (IP_HDRINCL, IPV6_HDRINCL on raw sockets) take the datagram
 * out of the routing the decision assumed. The filter notifies exactly
 * these (level, optname) pairs (table.c); they are decided as
 * `unrestricted`, scope "setsockopt:NAME", and refused with EPERM when
 * denied. An empty value (optlen 0) only clears the option (or fails in
 * the kernel) and is let through unrecorded; the decision reads no
 * memory, so CONTINUE is exact. The same options as control messages
 * of a sendmsg/sendmmsg capwatch performs (IP_OPTIONS, IP_RETOPTS;
 * IPV6_RTHDR, IPV6_2292RTHDR, which route; destination and hop-by-hop
 * options do not) are decided the same way, scope "sendmsg:NAME", and
 * a denial refuses the whole call with EPERM. */
static const char *reroute_option(int level, int optname)
{
	if (level == SOL_IP) {
		switch (optname) {
		case IP_OPTIONS: return "setsockopt:IP_OPTIONS";
		case IP_TRANSPARENT: return "setsockopt:IP_TRANSPARENT";
		case IP_HDRINCL: return "setsockopt:IP_HDRINCL";
		}
	} else if (level == SOL_IPV6) {
		switch (optname) {
		case IPV6_RTHDR: return "setsockopt:IPV6_RTHDR";
		case IPV6_2292PKTOPTIONS: return "setsockopt:IPV6_2292PKTOPTIONS";
		case IPV6_TRANSPARENT: return "setsockopt:IPV6_TRANSPARENT";
		case IPV6_HDRINCL: return "setsockopt:IPV6_HDRINCL";
		}
	} else if (level == SOL_SOCKET) {
		switch (optname) {
		case SO_BINDTODEVICE: return "setsockopt:SO_BINDTODEVICE";
		case SO_BINDTOIFINDEX: return "setsockopt:SO_BINDTOIFINDEX";
		}
	}
	return NULL;
}

const char *cw_net_reroute_cmsg(int level, int type)
{
	if (level == SOL_IP && type == IP_OPTIONS)
		return "sendmsg:IP_OPTIONS";
	if (level == SOL_IP && type == IP_RETOPTS)
		return "sendmsg:IP_RETOPTS";
	if (level == SOL_IPV6 && type == IPV6_RTHDR)
		return "sendmsg:IPV6_RTHDR";
	if (level == SOL_IPV6 && type == IPV6_2292RTHDR)
		return "sendmsg:IPV6_2292RTHDR";
	return NULL;
}

/* Decide and record NAME as an escape (unrestricted): 0 when allowed
 * (or --observe), -EPERM when refused. Does not answer. */
int cw_net_decide_reroute(struct cw_notif *n, const char *name, long long flags)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	ev.op.syscall = name;
	ev.flags = flags;
	ev.has_flags = true;
	bool ok = cw_event_decide(n, &ev);
	ev.verified = true;
	ev.err = ok ? 0 : EPERM;
	cw_event_record(n, &ev);
	return ok ? 0 : -EPERM;
}

static void handle_setsockopt(struct cw_notif *n)
{
	int level = arg_int(n, 1), optname = arg_int(n, 2);
	const char *name = reroute_option(level, optname);
	if (!name || (uint32_t)arg_u64(n, 4) == 0) {
		cw_answer_continue(n); /* registers only: exact */
		return;
	}
	cw_escape_finish(n, name, optname, EPERM);
}

/* ---- connect: a worker thread answers ---- */

/* A connect performed for the target on a worker thread: a blocking
 * connect may take minutes, and the event loop must go on. The worker
 * touches nothing but its job and the listener (NOTIF_SEND is safe from
 * any thread); the decision and the record stay on the main thread. With
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (launch.c) only a fatal signal
 * can make the target abandon the call meanwhile, so the worker does what
 * the kernel would do for the caller's other signals (e142): every
 * CW_CONNECT_TICK_MS a tick (a timer aimed at the worker's thread, whose
 * handler does nothing, no SA_RESTART) ends its connect() with EINTR; it
 * looks at the caller, and connects again (the kernel's connect of a
 * socket under way waits on: EALREADY only when that wait times out).
 * When the caller has a signal pending that the kernel would have woken
 * it for (caller_signalled), the answer is ERESTARTSYS, as the kernel's
 * own wait ends: the target
 * then runs its handler, and its connect fails with EINTR, or starts again
 * (SA_RESTART, or a stop and SIGCONT) and waits on for the same
 * connection. A caller that is gone ends the worker (the notification
 * is no longer valid). */
struct connect_job {
	struct cw_run *run;
	struct seccomp_notif req; /* (its fixed part: the call, for ptrace.c) */
	int listener;
	uint64_t id;
	int fd, pin;
	pid_t tgid, tid;
	struct sockaddr_storage addr;
	socklen_t len;
};

#define CW_CONNECT_TICK (SIGRTMIN + 2)
/* The kernel's "restart the call, or EINTR if the handler says so": what a
 * blocking connect returns at a signal (include/linux/errno.h, not in
 * the uapi headers). */
#define CW_ERESTARTSYS 512
#define CW_CONNECT_TICK_MS 20

static void connect_tick(int sig)
{
	(void)sig;
}

void cw_net_signals_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = connect_tick; /* no SA_RESTART: a blocked connect ends with EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(CW_CONNECT_TICK, &sa, NULL);
}

/* A 64-bit hex mask after NAME in a /proc status text. */
static uint64_t status_mask(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	return p ? strtoull(p + strlen(name), NULL, 16) : 0;
}

/* Would the kernel have ended the caller's wait for a signal: one pending
 * for its own thread that it neither blocks nor ignores (a handler, or a
 * default action that stops or kills it), or one pending for its process
 * that no other thread of it could take (every other one blocks it).
 * Only then is the caller the thread the kernel marked to handle it: a
 * signal another thread may take is that thread's, and the caller's
 * connect waits on, as it does bare (an -ERESTARTSYS answered to a thread
 * with nothing to handle would reach the command as errno 512: red team
 * 18). False when it cannot be read. */
static bool caller_signalled(pid_t tgid, pid_t tid)
{
	char path[96], text[2048];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)tgid, (int)tid);
	if (cw_read_small(path, text, sizeof(text)) <= 0)
		return false;
	uint64_t open = ~(status_mask(text, "\nSigBlk:") | status_mask(text, "\nSigIgn:"));
	if (status_mask(text, "\nSigPnd:") & open)
		return true;
	uint64_t shared = status_mask(text, "\nShdPnd:") & open;
	if (!shared)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	while (shared && (e = readdir(d))) {
		char *end;
		long t = strtol(e->d_name, &end, 10);
		if (*end || t <= 0 || t == tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)tgid, t);
		if (cw_read_small(path, text, sizeof(text)) > 0)
			shared &= status_mask(text, "\nSigBlk:"); /* (what it leaves unblocked is its to take) */
	}
	closedir(d);
	if (!shared)
		return false;
	/* Still pending after the other threads were read: a thread that
	 * took the signal meanwhile blocks it while its handler runs, and
	 * read after that it looks like one that never could take it (the
	 * CI flake of e142 "thread": errno 512 at the moment the main
	 * thread's vfork returned). */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)tgid, (int)tid);
	if (cw_read_small(path, text, sizeof(text)) <= 0)
		return false;
	return (shared & status_mask(text, "\nShdPnd:")) != 0;
}

/* The worker's tick timer, aimed at the calling thread. */
static bool tick_start(timer_t *tm)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = CW_CONNECT_TICK;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* (sigev_notify_thread_id) */
	if (timer_create(CLOCK_MONOTONIC, &ev, tm) < 0)
		return false;
	struct itimerspec it = {
		.it_interval = { 0, CW_CONNECT_TICK_MS * 1000000L },
		.it_value = { 0, CW_CONNECT_TICK_MS * 1000000L },
	};
	if (timer_settime(*tm, 0, &it, NULL) < 0) {
		timer_delete(*tm);
		return false;
	}
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, CW_CONNECT_TICK);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	return true;
}

static void tick_stop(timer_t tm)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, CW_CONNECT_TICK);
	pthread_sigmask(SIG_BLOCK, &s, NULL); /* (a tick already queued stays queued, blocked) */
	timer_delete(tm);
}

/* The socket's send timeout, which bounds a blocking connect (0: none). */
static double send_timeout(int fd)
{
	struct timeval tv = { 0, 0 };
	socklen_t l = sizeof(tv);
	if (getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &l) < 0)
		return 0;
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The connect, ended early for the caller's signals. 0 or -errno; -ENOENT
 * when the caller is gone (nothing to answer). */
static int connect_for_caller(struct connect_job *j)
{
	/* A non-blocking socket's connect never waits: no tick (the flag is
	 * the open file's, shared with the command's descriptor). */
	int fl = fcntl(j->fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		return connect(j->fd, (struct sockaddr *)&j->addr, j->len) < 0 ? -errno : 0;
	timer_t tm;
	bool ticking = tick_start(&tm);
	double limit = send_timeout(j->fd);
	double deadline = limit > 0 ? mono_now() + limit : 0;
	bool again = false;
	int r;
	for (;;) {
		r = connect(j->fd, (struct sockaddr *)&j->addr, j->len) < 0 ? -errno : 0;
		if (again && (r == -EALREADY || r == -EAGAIN)) {
			/* Returned without waiting for our tick: this call's
			 * own timeout, or the command made the socket
			 * non-blocking meanwhile (the open file is shared).
			 * The connect it asked for still waits: look again at
			 * the next tick, never in a busy loop (red team 18). */
			pause();
			r = -EINTR;
		}
		if (r != -EINTR || !ticking)
			break;
		if (ioctl(j->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &j->id) < 0) {
			r = -ENOENT;
			break;
		}
		if (caller_signalled(j->tgid, j->tid)) {
			r = -CW_ERESTARTSYS;
			break;
		}
		if (deadline && mono_now() >= deadline) {
			/* SO_SNDTIMEO: what the kernel's connect answers then */
			r = j->addr.ss_family == AF_UNIX ? -EAGAIN : -EINPROGRESS;
			break;
		}
		again = true;
	}
	if (ticking)
		tick_stop(tm);
	return r;
}

static void *connect_worker(void *arg)
{
	struct connect_job *j = arg;
	int r = connect_for_caller(j);
	if (r == -CW_ERESTARTSYS) {
		/* Under ptrace, ptrace.c turns an -ERESTARTSYS at the
		 * signal-delivery-stop into a restart (a call capwatch never
		 * received); this one it leaves to the kernel, as a call
		 * capwatch let run. */
		cw_loop_lock(j->run);
		cw_tracker_note_continue(j->run, j->tid, &j->req);
		cw_loop_unlock(j->run);
	}
	if (r != -ENOENT) {
		struct cw_answer a = { .kind = r < 0 ? CW_ANSWER_ERROR : CW_ANSWER_VALUE, .err = -r };
		/* ENOENT: the target died meanwhile; nothing to do. */
		cw_answer_send_late(j->listener, j->id, &a);
	}
	close(j->fd);
	if (j->pin >= 0)
		close(j->pin);
	free(j);
	return NULL;
}

/* Families capwatch performs calls for. AF_NETLINK is not one: its bind
 * and autobind take the port id from the caller's tgid, which would be
 * capwatch's (netlink sockets other than NETLINK_ROUTE reads are
 * "unrestricted" anyway). */
static bool emulated_family(sa_family_t fam)
{
	return fam == AF_INET || fam == AF_INET6 || fam == AF_UNIX || fam == AF_UNSPEC;
}

/* A NETLINK_ROUTE socket: the only netlink capwatch acts on for the
 * command (op.netlink_route_unprivileged). */
static bool is_netlink_route(int sock)
{
	int dom = -1, proto = -1;
	socklen_t l = sizeof(dom);
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_NETLINK)
		return false;
	l = sizeof(proto);
	return getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &proto, &l) == 0 && proto == NETLINK_ROUTE;
}

/* Route queries by a command without CAP_NET_ADMIN (getifaddrs, `ip
 * addr`, if_nameindex): capwatch binds, connects and sends for it on a
 * duplicate, with the address and payload it copied, as for inet. The
 * kernel's rtnetlink checks CAP_NET_ADMIN of both the sender and the
 * socket's opener (__netlink_ns_capable): the opener is the command, so a
 * change is refused although capwatch sends it. A bind takes the command's
 * tgid as port id when it asked for an automatic one (the kernel would
 * give it that), else whatever the kernel picks. */
static int netlink_route_op(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	int nr = n->req->data.nr;
	if (!is_netlink_route(d))
		return -EPERM; /* another socket since decided: nothing done */
	struct sockaddr_nl nl;
	memset(&nl, 0, sizeof(nl));
	memcpy(&nl, &c->addr, c->addrlen < sizeof(nl) ? c->addrlen : sizeof(nl));
	if (nr == __NR_bind) {
		if (c->addrlen < sizeof(nl))
			return -EINVAL;
		if (nl.nl_pid == 0) {
			struct sockaddr_nl own = nl;
			own.nl_pid = (uint32_t)n->tgid;
			if (bind(d, (struct sockaddr *)&own, sizeof(own)) == 0)
				return 0;
			if (errno != EADDRINUSE)
				return -errno;
		}
		return bind(d, (struct sockaddr *)&nl, sizeof(nl)) < 0 ? -errno : 0;
	}
	return connect(d, (struct sockaddr *)&nl, c->addrlen) < 0 ? -errno : 0;
}

/* The network calls are performed by capwatch on a pidfd_getfd duplicate
 * of the target's socket (kernel-notes K20), with the address (and for
 * sends the payload and control data) it copied and decided on: neither
 * rewriting the memory nor dup2'ing another socket onto the fd number
 * after the check changes what happens. The calls act in the socket's own
 * network namespace.
 *
 * Pathname unix sockets are looked up by capwatch (the target's root and
 * cwd were applied by the resolver), pinned by an O_PATH open that
 * follows no symlink, and reached as "/proc/self/fd/N"; bind creates the
 * name from the decided parent directory with the target's umask.
 * capwatch has the target's credentials, so permission checks match.
 *
 * What a peer can notice: credentials the kernel records from the calling
 * task name capwatch's pid (same uid and gid): SO_PEERCRED of a unix
 * stream connection capwatch connected or listened for, and the
 * SCM_CREDENTIALS the kernel attaches to a unix message capwatch sent when
 * the receiver has SO_PASSCRED. */
/* capwatch acts for the command with at most the command's capabilities:
 * the thread lowers its effective set to the command's for the call (and
 * a worker it starts meanwhile inherits the lowered set). Without this, a
 * netlink message capwatch sends for a root command that has no
 * CAP_NET_ADMIN would reconfigure the network, and a bind would get what
 * CAP_NET_BIND_SERVICE or CAP_NET_RAW give. The permitted set is kept, so
 * the effective one comes back. Unknown capabilities of the command: none. */
struct caps_saved {
	struct cw_caps c;
	bool lowered;
};

static void caps_lower(const struct cw_notif *n, struct caps_saved *sv)
{
	sv->lowered = false;
	if (cw_caps_get(&sv->c) < 0)
		return;
	struct cw_target_status st;
	uint64_t theirs = cw_target_status(n->tid, &st) == 0 ? st.cap_eff : 0;
	struct cw_caps low = sv->c;
	low.eff &= theirs;
	if (low.eff == sv->c.eff)
		return;
	if (cw_caps_set(&low) == 0)
		sv->lowered = true;
}

static void caps_restore(struct caps_saved *sv)
{
	if (!sv->lowered)
		return;
	int e = cw_caps_set(&sv->c);
	if (e < 0)
		cw_warn("restoring capwatch's capabilities after a network call failed: %s", strerror(-e));
	sv->lowered = false;
}

static void enforce_net_as_command(struct cw_notif *n, struct cw_event *ev);

static void enforce_net(struct cw_notif *n, struct cw_event *ev)
{
	struct caps_saved sv = { .lowered = false };
	if (ev->enforced)
		caps_lower(n, &sv);
	enforce_net_as_command(n, ev);
	caps_restore(&sv);
}

/* listen() on the duplicate decided on (C->held_sock). An unbound socket
 * autobinds here to a port in no reuseport group:
 * inet_csk_find_open_port does not let SO_REUSEPORT share a port it
 * picks. 0 or -errno. */
static int perform_listen(struct cw_notif *n, const struct cw_net_call *c)
{
	int r = listen(c->held_sock, arg_int(n, 1)) < 0 ? -errno : 0;
	if (r == 0 && cw_net_inet_family(c->addr.ss_family))
		cw_net_remember_inet(n->run->net_state, c->held_sock);
	return r;
}

/* Is D bound to the wildcard: 0.0.0.0, [::] or [::ffff:0.0.0.0]? */
static bool bound_wildcard(int d)
{
	struct sockaddr_storage a;
	socklen_t l = sizeof(a);
	if (getsockname(d, (struct sockaddr *)&a, &l) < 0)
		return false;
	if (a.ss_family == AF_INET)
		return ((struct sockaddr_in *)&a)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (a.ss_family != AF_INET6)
		return false;
	const struct in6_addr *x = &((struct sockaddr_in6 *)&a)->sin6_addr;
	static const uint8_t mapped_any[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0 };
	return IN6_IS_ADDR_UNSPECIFIED(x) || memcmp(x->s6_addr, mapped_any, 16) == 0;
}

/* bind() of C's address on the duplicate D. 0 or -errno. A bind that
 * leaves the socket on the wildcard, not kept on lo, was decided
 * host-visible (or the profile allowed the wildcard): the ingress guard
 * lets it receive from the network (ingress.h), whatever family the
 * address was given in (AF_UNSPEC is 0.0.0.0 to an AF_INET socket: red
 * team 27, F3). Marked once bound (a datagram that comes first is
 * dropped, as if it had come before the bind), so that a bind that
 * failed leaves nothing for a later autobind. */
static int perform_bind(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	if (cw_net_is_unix_path(&c->addr, c->addrlen))
		return cw_net_bind_unix_path(n, c, d);
	int r;
	if (cw_net_inet_family(c->addr.ss_family))
		r = cw_net_bind_inet(n, c, d);
	else
		r = bind(d, (struct sockaddr *)&c->addr, c->addrlen) < 0 ? -errno : 0;
	if (r == 0 && !c->on_lo && n->run->ingress && bound_wildcard(d)) {
		int e = cw_ingress_mark(n->run->ingress, d);
		if (e < 0)
			cw_warn("the ingress guard could not let a bound socket receive: %s", strerror(-e));
	}
	return r;
}

/* An allowed exchange with an external address on the duplicate D: its
 * replies come back from off lo, to the port the kernel autobinds on the
 * wildcard (e126), which the ingress guard would otherwise drop
 * (ingress.h). Marked before the call, so that no reply comes first. A
 * mark that fails is said: the exchange's replies are dropped, nothing
 * more is let in. */
static void mark_for_network(struct cw_notif *n, int d)
{
	int e = cw_ingress_mark(n->run->ingress, d);
	if (e < 0)
		cw_warn("the ingress guard could not let an allowed socket take replies: %s", strerror(-e));
}

/* Before a connect of the duplicate D: the kernel autobinds a never-bound
 * datagram socket to the wildcard (inet_dgram_connect -> inet_autobind)
 * before the protocol's connect looks at the address, so even a connect
 * it then refuses leaves the socket open to every interface: an AF_INET
 * socket given [::1] (EAFNOSUPPORT), a v6-only one given a v4-mapped
 * address (ENETUNREACH), an inet socket given a unix name (red team 20,
 * F2). Unless the destination is external (its return path is what
 * external_network allowed, e126), the socket is bound first to the
 * loopback address of the destination's kind: where a connect that works
 * leaves it bare. A disconnect (AF_UNSPEC) does not autobind. 0 or
 * -errno, the kernel's for the call. */
static int prebind_for_connect(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	if (c->addr.ss_family == AF_UNSPEC)
		return 0;
	bool v4 = false;
	cw_net_dest_local(&c->addr, c->addrlen, &v4);
	bool external = cw_addr_classify((const struct sockaddr *)&c->addr, c->addrlen) == CW_ADDR_EXTERNAL;
	if (external)
		mark_for_network(n, d);
	int r = cw_net_prebind_datagram(n->run->net_state, d, !external, v4);
	/* A v6-only socket refuses a v4-mapped bind; given a sockaddr_in,
	 * its connect says EAFNOSUPPORT (ip6_datagram_connect). */
	if (r == -ENETUNREACH && c->addr.ss_family == AF_INET)
		r = -EAFNOSUPPORT;
	return r;
}

/* connect() of the duplicate D (owned from here) to C's address, on a
 * worker thread (connect_job): 0 when the worker answers, else -errno
 * (D closed) for the caller to answer. */
static int start_connect(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	int r = prebind_for_connect(n, c, d);
	if (r < 0) {
		close(d);
		return r;
	}
	struct connect_job *j = malloc(sizeof(*j));
	if (!j) {
		close(d);
		return -ENOMEM;
	}
	*j = (struct connect_job){ .run = n->run, .req = *n->req, .listener = n->run->listener, .id = n->req->id, .fd = d, .pin = -1,
				   .tgid = n->tgid, .tid = n->tid, .addr = c->addr, .len = c->addrlen };
	r = cw_net_pin_unix(n, &j->addr, &j->len, &j->pin, c->foreign);
	if (r == 0 && cw_start_detached(connect_worker, j) == 0)
		return 0;
	/* No worker thread could be started: refuse (EAGAIN) rather than
	 * block the event loop in connect(). */
	if (r == 0)
		r = -EAGAIN;
	close(d);
	if (j->pin >= 0)
		close(j->pin);
	free(j);
	return r;
}

/* Before an inet send from the duplicate D: a datagram socket never
 * bound is bound where its destinations say (e126). 0 or -errno. */
static int prebind_for_send(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	if (!cw_net_inet_family(c->addr.ss_family))
		return 0;
	int nr = n->req->data.nr;
	bool v4 = false, local = cw_net_dest_local(&c->addr, c->addrlen, &v4);
	for (unsigned i = 0; nr == __NR_sendmmsg && i < c->mm_count; i++) {
		bool v4i = false;
		if (c->mm_namelen[i] && !cw_net_dest_local(&c->mm_name[i], c->mm_namelen[i], &v4i))
			local = false;
		if (c->mm_namelen[i] && !v4i)
			v4 = false;
	}
	if (!local)
		mark_for_network(n, d);
	return cw_net_prebind_datagram(n->run->net_state, d, local, v4);
}

static void enforce_net_as_command(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_net_call *c = &n->call->net;
	int nr = n->req->data.nr;
	if (!ev->enforced || (!emulated_family(c->addr.ss_family) && !ev->op.netlink_route_unprivileged)) {
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	int r;
	if (nr == __NR_listen) {
		r = perform_listen(n, c);
		goto answer;
	}
	/* The duplicate decided on when there is one (a unix connect or
	 * send: refuse_unix_autobind), owned from here. */
	int d = c->held_sock >= 0 ? c->held_sock : cw_net_dup_socket(n, arg_int(n, 0));
	c->held_sock = -1;
	if (d < 0) {
		r = d;
		goto answer;
	}
	if (c->addr.ss_family == AF_NETLINK && (nr == __NR_bind || nr == __NR_connect)) {
		r = netlink_route_op(n, c, d);
		close(d);
		goto answer;
	}
	if (c->addr.ss_family == AF_NETLINK && !is_netlink_route(d)) {
		close(d);
		r = -EPERM; /* another socket since decided: nothing sent */
		goto answer;
	}
	if (nr == __NR_bind) {
		r = perform_bind(n, c, d);
		close(d);
		goto answer;
	}
	if (nr == __NR_connect && c->addr.ss_family == AF_UNSPEC) {
		/* A UDP disconnect never waits: done here when the socket is
		 * on lo (it must stay there); else as any connect. */
		bool done = false;
		r = cw_net_disconnect_on_lo(n, c, d, &done);
		if (done) {
			close(d);
			goto answer;
		}
	}
	if (nr == __NR_connect) {
		r = start_connect(n, c, d);
		if (r == 0) {
			cw_answer_later(n); /* the worker answers */
			ev->err = 0;        /* known to the worker only */
			return;
		}
		goto answer;
	}
	/* sendto, sendmsg, sendmmsg */
	r = prebind_for_send(n, c, d);
	if (r < 0) {
		close(d);
		goto answer;
	}
	struct cw_send_job *j = NULL;
	r = cw_net_build_send_job(n, c, d, &j);
	if (r == 0) {
		ev->err = cw_net_perform_send(n, j);
		return;
	}
answer:
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

/* A msghdr's name length as the kernel takes it: negative is EINVAL
 * (read_addr refuses it), longer than a sockaddr_storage is cut down. */
static uint64_t msg_namelen(const struct msghdr *mh)
{
	if ((int)mh->msg_namelen < 0)
		return UINT64_MAX;
	return mh->msg_namelen > sizeof(struct sockaddr_storage) ? sizeof(struct sockaddr_storage) :
								  mh->msg_namelen;
}

/* sendmsg/sendmmsg whose copied msghdrs name no address: nothing to
 * decide (a connected socket's peer was decided at its connect()). But
 * CONTINUE would let the kernel read the msghdr again, and another thread
 * can put an address in it by then (e42c_sendmsg_flip.sh, "sendmsgnull":
 * thousands of datagrams to a denied address in 5 s), or dup2 an
 * unconnected socket onto the fd number. So capwatch sends its copy, with
 * no name, on a duplicate, as for addressed sends. Not recorded: this is
 * the hot path of sendmsg users. */
static void send_unaddressed(struct cw_notif *n, const struct cw_net_call *c)
{
	if (n->run->observe) {
		cw_answer_continue(n); /* --observe enforces nothing */
		return;
	}
	int d = cw_net_dup_socket(n, arg_int(n, 0));
	if (d < 0) {
		cw_answer_error(n, -d);
		return;
	}
	struct cw_send_job *j = NULL;
	int e = cw_net_build_send_job(n, c, d, &j);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	struct caps_saved sv = { .lowered = false };
	caps_lower(n, &sv); /* as the command (enforce_net) */
	cw_net_perform_send(n, j);
	caps_restore(&sv);
}

/* A unix connect or addressed send of a socket the kernel would autobind
 * first (cw_net_unix_autobinds: unbound, SO_PASSCRED or SO_PASSPIDFD) gets
 * the socket an abstract name any process of the network namespace can
 * send to, as bind() with no name does (e185): decided as that bind,
 * host_visible_binding "unix:@(autobind)", before the call (e187). The
 * duplicate looked at is kept in C->held_sock and is the one capwatch
 * connects or sends on, so a socket dup2'ed onto the number since is not
 * the one performed on. Another thread of the target can still set
 * SO_PASSCRED on it between this look and capwatch's call (setsockopt of
 * that option is not notified): not covered (SECURITY.md). Allowed: counted
 * in the report, and the call is decided as usual. Refused (an ask too,
 * as in sendmmsg: no approver is asked; not decided when the profile
 * denies MAIN_OP, the call itself): the autobind is the event
 * recorded, the call is answered its errno, true. A duplicate that cannot
 * be taken answers its errno, true. */
static bool refuse_unix_autobind(struct cw_notif *n, struct cw_net_call *c, const struct cw_op *main_op)
{
	if (n->run->observe || c->addr.ss_family != AF_UNIX || c->addrlen <= sizeof(sa_family_t))
		return false; /* the kernel refuses a malformed name before its autobind */
	if (c->held_sock < 0) {
		int d = cw_net_dup_socket(n, arg_int(n, 0));
		if (d < 0) {
			answer_unreadable(n, -d);
			return true;
		}
		c->held_sock = d;
	}
	if (!cw_net_unix_autobinds(c->held_sock))
		return false;
	/* A call the profile denies anyway is recorded as that denial. */
	struct cw_decision main;
	cw_policy_decide(n->run->profile, &n->run->ctx, main_op, &main);
	if (main.verdict == CW_DENY)
		return false;
	if (!cw_notif_valid(n)) {
		cw_answer_gone(n);
		return true;
	}
	static const struct sockaddr_un unnamed = { .sun_family = AF_UNIX };
	struct cw_event ab;
	cw_event_init(&ab, n->syscall);
	ab.op.kind = CW_OP_BIND;
	ab.op.addr = (const struct sockaddr *)&unnamed;
	ab.op.addrlen = sizeof(sa_family_t);
	if (cw_event_decide(n, &ab)) {
		if (ab.d.cap != CW_CAP_NONE)
			cw_report_count_capability(n->run->report, ab.d.cap, ab.d.scope, ab.d.verdict);
		return false;
	}
	cw_event_deny(n, &ab);
	cw_event_record(n, &ab);
	return true;
}

/* sendmmsg: up to 1024 messages (UIO_MAXIOV, as the kernel caps it), each
 * with its own optional address. Every address is decided; one denial
 * denies the whole call (nothing is sent). The first denied address, or
 * else the first address, goes to the trace; the others are counted. The
 * headers and names are copied once, here, and the enforcement sends
 * those copies. */
static void handle_sendmmsg(struct cw_notif *n, struct cw_net_call *c)
{
	struct cw_event ev;
	uint64_t vec = arg_u64(n, 1);
	unsigned vlen = (unsigned)(uint32_t)arg_u64(n, 2);
	bool have = false, denied = false;

	if (vlen > SEND_MAX_VLEN)
		vlen = SEND_MAX_VLEN;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SEND;
	c->mm_count = 0;
	for (unsigned i = 0; i < vlen && !denied; i++) {
		struct mmsghdr *mm = &c->mm_hdr[i];
		int e = cw_mem_read(n->tid, vec + (uint64_t)i * sizeof(*mm), mm, sizeof(*mm));
		if (e < 0 && i > 0)
			break; /* the kernel sends the ones before */
		c->mm_namelen[i] = 0;
		c->mm_count = i + 1;
		if (e == 0 && (!mm->msg_hdr.msg_name || mm->msg_hdr.msg_namelen == 0))
			continue;
		if (e == 0)
			e = cw_net_read_addr(n, c, (uint64_t)(uintptr_t)mm->msg_hdr.msg_name,
					     msg_namelen(&mm->msg_hdr), true);
		if (e == 0)
			e = cw_net_missing_unix_path(c) ? -ENOENT : 0;
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		c->mm_name[i] = c->addr;
		c->mm_namelen[i] = c->addrlen;
		if (!cw_notif_valid(n)) {
			cw_answer_gone(n);
			return;
		}
		struct cw_event cur;
		cw_event_init(&cur, n->syscall);
		cur.op.kind = CW_OP_SEND;
		cur.op.addr = (const struct sockaddr *)&c->addr;
		cur.op.addrlen = c->addrlen;
		cur.op.alias = cw_net_unix_alias(n->run->net_state, &c->addr, c->addrlen);
		c->mm_foreign[i] = cur.op.alias != NULL;
		denied = !cw_event_decide(n, &cur);
		if (!have || denied) {
			ev = cur;
			c->first = c->addr;
			c->firstlen = c->addrlen;
			ev.op.addr = (const struct sockaddr *)&c->first;
			ev.op.addrlen = c->firstlen;
			have = true;
		} else if (cur.d.cap != CW_CAP_NONE) {
			cw_report_count_capability(n->run->report, cur.d.cap, cur.d.scope, cur.d.verdict);
		}
	}
	if (!have) {
		send_unaddressed(n, c);
		return;
	}
	/* enforce_net looks at the family of the first decided address. */
	c->addr = c->first;
	c->addrlen = c->firstlen;
	if (!denied && refuse_unix_autobind(n, c, &ev.op))
		goto out;
	if (denied)
		cw_event_deny(n, &ev);
	else
		enforce_net(n, &ev);
	cw_event_record(n, &ev);
out:
	if (c->held_sock >= 0) {
		close(c->held_sock);
		c->held_sock = -1;
	}
}

/* Effective capabilities of TID ("CapEff:" in /proc/TID/status). */
static uint64_t cap_eff(pid_t tid)
{
	struct cw_target_status st;
	return cw_target_status(tid, &st) == 0 ? st.cap_eff : ~0ull; /* unknown: assume the worst */
}

/* socket() in a family the filter does not let through: netlink without
 * CAP_NET_ADMIN only reads (glibc's address checks, getifaddrs); with it,
 * or any other family, it is an escape the profile decides. */
static void handle_socket(struct cw_notif *n)
{
	int domain = arg_int(n, 0);
	if (domain == AF_NETLINK && !(cap_eff(n->tid) & (1ull << 12 /* CAP_NET_ADMIN */))) {
		cw_answer_continue(n);
		return;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	ev.flags = domain;
	ev.has_flags = true;
	/* Registers only: CONTINUE is exact. */
	cw_event_finish(n, &ev, NULL, enforce_continue);
}

/* A server bound to the wildcard (0.0.0.0, ::; Python's create_server(("",
 * port)), a client's source_address=("", port)) is visible to the host's
 * network: host_visible_binding, which verify denies, and a test suite
 * then hangs in accept(). When the profile refuses the wildcard but allows
 * loopback, capwatch performs the bind on the wildcard the caller asked
 * for, on its copy of the socket restricted first to the loopback device
 * (SO_BINDTODEVICE "lo", cw_net_bind_inet; issue 17 item 10): a packet
 * that came in on any other interface never reaches it, so the host stays
 * invisible, while a dual-stack "::" server takes both 127.0.0.1 and ::1
 * and getsockname() says what it says bare. The decision and the record
 * are those of the loopback bind (C->lo), with a note. */
static void bind_wildcard_on_loopback(struct cw_notif *n, struct cw_net_call *c, struct cw_event *ev)
{
	struct cw_decision d;
	cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &d);
	if (d.verdict == CW_ALLOW)
		return;
	struct sockaddr_storage lo = c->addr;
	if (!cw_net_loopback_of(&lo))
		return;
	struct cw_op op = ev->op;
	op.addr = (const struct sockaddr *)&lo;
	cw_policy_decide(n->run->profile, &n->run->ctx, &op, &d);
	if (d.verdict != CW_ALLOW)
		return; /* loopback refused too: the wildcard's denial stands */
	c->lo = lo;
	c->on_lo = true;
	ev->op.addr = (const struct sockaddr *)&c->lo;
	char text[80];
	cw_addr_format((const struct sockaddr *)&c->addr, c->addrlen, text, sizeof(text));
	cw_record_note(n->run, n->tgid, "info",
		    "a bind to the wildcard address %s is performed on the loopback device only "
		    "(SO_BINDTODEVICE lo): the profile denies host_visible_binding and allows "
		    "isolated_loopback", text);
}

void cw_handle_net(struct cw_notif *n)
{
	struct cw_net_call *c = &n->call->net;
	struct cw_event ev;
	int nr = n->req->data.nr;
	int e = 0;

	cw_event_init(&ev, n->syscall);
	c->on_lo = false;
	c->rawlen = 0;
	switch (nr) {
	case __NR_connect:
		ev.op.kind = CW_OP_CONNECT;
		e = cw_net_read_addr(n, c, arg_u64(n, 1), (uint32_t)arg_u64(n, 2), true);
		break;
	case __NR_bind:
		ev.op.kind = CW_OP_BIND;
		e = cw_net_read_addr(n, c, arg_u64(n, 1), (uint32_t)arg_u64(n, 2), false);
		break;
	case __NR_sendto:
		ev.op.kind = CW_OP_SEND;
		if ((uint32_t)arg_u64(n, 5) == 0) {
			/* No address to decide on: the kernel ignores it. */
			cw_answer_continue(n);
			return;
		}
		e = cw_net_read_addr(n, c, arg_u64(n, 4), (uint32_t)arg_u64(n, 5), true);
		break;
	case __NR_sendmsg: {
		struct msghdr mh;
		ev.op.kind = CW_OP_SEND;
		e = cw_mem_read(n->tid, arg_u64(n, 1), &mh, sizeof(mh));
		if (e < 0)
			break;
		c->mh = mh;
		if (!mh.msg_name || mh.msg_namelen == 0) {
			send_unaddressed(n, c);
			return;
		}
		e = cw_net_read_addr(n, c, (uint64_t)(uintptr_t)mh.msg_name, msg_namelen(&mh), true);
		break;
	}
	case __NR_sendmmsg:
		handle_sendmmsg(n, c);
		return;
	case __NR_socket:
		handle_socket(n);
		return;
	case __NR_setsockopt:
		handle_setsockopt(n);
		return;
	case __NR_listen:
		ev.op.kind = CW_OP_LISTEN;
		e = cw_net_listen_addr(n, c, arg_int(n, 0));
		break;
	default:
		cw_answer_error(n, ENOSYS);
		return;
	}
	if (e < 0) {
		answer_unreadable(n, -e);
		goto out;
	}
	if (ev.op.kind == CW_OP_CONNECT || ev.op.kind == CW_OP_SEND) {
		/* A unix socket path that does not exist cannot be reached:
		 * answer as the kernel would (glibc probes nscd this way on
		 * every name lookup). Answered by us, not CONTINUEd, so a
		 * socket created meanwhile is not reached either. */
		e = cw_net_missing_unix_path(c);
		if (e) {
			cw_answer_error(n, e);
			goto out;
		}
	}
	ev.op.addr = (const struct sockaddr *)&c->addr;
	ev.op.addrlen = c->addrlen;
	if (ev.op.kind == CW_OP_BIND && !n->run->observe && cw_addr_classify(ev.op.addr, c->addrlen) == CW_ADDR_ANY)
		bind_wildcard_on_loopback(n, c, &ev);
	if (c->addr.ss_family == AF_NETLINK && ev.op.kind != CW_OP_LISTEN &&
	    !(cap_eff(n->tid) & (1ull << 12 /* CAP_NET_ADMIN */))) {
		/* On a NETLINK_ROUTE socket (checked on a duplicate now, and
		 * again on the one capwatch acts on) it only reads. */
		int d = cw_net_dup_socket(n, arg_int(n, 0));
		if (d >= 0) {
			ev.op.netlink_route_unprivileged = is_netlink_route(d);
			close(d);
		}
	}
	c->foreign = false;
	if (ev.op.kind == CW_OP_CONNECT || ev.op.kind == CW_OP_SEND) {
		ev.op.alias = cw_net_unix_alias(n->run->net_state, &c->addr, c->addrlen);
		c->foreign = ev.op.alias != NULL;
		if (refuse_unix_autobind(n, c, &ev.op))
			goto out;
	}
	cw_event_finish(n, &ev, NULL, enforce_net);
out:
	if (c->held_sock >= 0) {
		close(c->held_sock);
		c->held_sock = -1;
	}
}

