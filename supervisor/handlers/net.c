/* The network family: connect, sendto/sendmsg/sendmmsg with an address,
 * bind, listen. The address is copied once (addrlen exactly) and decided
 * on that copy, and capwatch performs the call itself on a duplicate of
 * the target's socket with that copy (see enforce_net()). */
#include "config.h"
#include <errno.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <sys/uio.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/run.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "path.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
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

static struct sockaddr_storage addr;
static socklen_t addrlen;

static int sock_type(int fd);

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

static const char *reroute_cmsg(int level, int type)
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
static int decide_reroute(struct cw_notif *n, const char *name, long long flags)
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
		cw_notif_continue(n); /* registers only: exact */
		return;
	}
	cw_escape_finish(n, name, optname, EPERM);
}

/* ---- sets of sockets and socket files, by inode ----
 *
 * Growing sets keyed by inode numbers, which the command has a say in
 * (it makes sockets and files at will, and port_held_outside looks one
 * up per line of /proc/net/tcp): keyed maps (hmap.h), one key for both. */
static struct cw_hmap tree_inet, made;
static bool sets_ready;

static void sets_init(void)
{
	if (sets_ready)
		return;
	struct cw_hash_key hk;
	cw_hash_key_random(&hk);
	cw_hmap_init(&tree_inet, &hk, sizeof(uint64_t), 0, 0);
	cw_hmap_init(&made, &hk, 2 * sizeof(uint64_t), 0, 0);
	sets_ready = true;
}

/* ---- the tree's own inet sockets; ports held outside (e125) ----
 *
 * Every inet socket capwatch bound or listened on for the tree, by sockfs
 * inode: a growing set (a socket forgotten would count as outside, which
 * refuses, never allows). */
static bool tree_inet_has(ino_t ino)
{
	uint64_t k = (uint64_t)ino;
	return sets_ready && cw_hmap_find(&tree_inet, &k, sizeof(k));
}

static void remember_inet(int sock)
{
	struct stat st;
	if (fstat(sock, &st) < 0)
		return;
	sets_init();
	uint64_t k = (uint64_t)st.st_ino;
	cw_hmap_insert(&tree_inet, &k, sizeof(k), NULL); /* ENOMEM: counts as outside */
}

static bool inet_family(sa_family_t f)
{
	return f == AF_INET || f == AF_INET6;
}

static unsigned inet_port(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return 0;
}

static bool sock_flag(int sock, int opt)
{
	int v = 0;
	socklen_t l = sizeof(v);
	return getsockopt(sock, SOL_SOCKET, opt, &v, &l) == 0 && v != 0;
}

/* Options with which a bind may share a port with sockets already on it:
 * SO_REUSEPORT (same uid: a reuseport group, which splits connections or
 * datagrams among its members), and for datagram sockets SO_REUSEADDR
 * too (both sides set: the later socket gets the unicast datagrams). */
static bool shares_port(int sock, int type)
{
	return sock_flag(sock, SO_REUSEPORT) || (type == SOCK_DGRAM && sock_flag(sock, SO_REUSEADDR));
}

/* Clear both for a bind to port 0 (the kernel may otherwise pick a port
 * in use by a group the socket could join: udp_lib_get_port counts such
 * ports as free), and put them back after. */
struct reuse_saved { int port, addr; bool cleared; };

static void reuse_clear(int sock, struct reuse_saved *sv)
{
	socklen_t l = sizeof(int);
	sv->cleared = false;
	sv->port = sv->addr = 0;
	getsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &sv->port, &l);
	l = sizeof(int);
	getsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &sv->addr, &l);
	int z = 0;
	if (sv->port)
		setsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &z, sizeof(z));
	if (sv->addr)
		setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &z, sizeof(z));
	sv->cleared = sv->port || sv->addr;
}

static void reuse_restore(int sock, struct reuse_saved *sv)
{
	if (!sv->cleared)
		return;
	if (sv->port)
		setsockopt(sock, SOL_SOCKET, SO_REUSEPORT, &sv->port, sizeof(sv->port));
	if (sv->addr)
		setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &sv->addr, sizeof(sv->addr));
}

/* Is PORT held, in the target's network namespace, by a socket that is
 * not one the tree bound through capwatch? /proc/TID/net/{tcp,tcp6}
 * (listeners only: a reuseport group of TCP is made of listeners) or
 * {udp,udp6} (every socket), by port whatever the address (wider than
 * the kernel's groups, which need the same address: a refusal, never an
 * allowance). Bounded: past CW_NET_LINES_MAX lines it cannot tell.
 * 1: held outside, 0: not, -errno: cannot tell (refused by the caller). */
#define CW_NET_LINES_MAX (1u << 20)
static int port_held_outside(pid_t tid, bool stream, unsigned port)
{
	const char *files[2] = { stream ? "tcp" : "udp", stream ? "tcp6" : "udp6" };
	unsigned lines = 0;
	for (int f = 0; f < 2; f++) {
		char path[64], line[512];
		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)tid, files[f]);
		FILE *fp = fopen(path, "re");
		if (!fp) {
			if (errno == ENOENT && f == 1)
				continue; /* no IPv6 */
			return -errno;
		}
		bool first = true;
		while (fgets(line, sizeof(line), fp)) {
			if (first) {
				first = false; /* the header */
				continue;
			}
			if (++lines > CW_NET_LINES_MAX) {
				fclose(fp);
				return -E2BIG;
			}
			unsigned lport = 0, st = 0;
			unsigned long ino = 0;
			if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*s %*s %*s %*s %*s %lu",
				   &lport, &st, &ino) != 3)
				continue;
			if (lport != port || (stream && st != 0x0A /* TCP_LISTEN */))
				continue;
			if (!tree_inet_has((ino_t)ino)) {
				fclose(fp);
				return 1;
			}
		}
		fclose(fp);
	}
	return 0;
}

static void format_inet(const struct sockaddr_storage *a, char *out, size_t size)
{
	char h[INET6_ADDRSTRLEN] = "?";
	if (a->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, h, sizeof(h));
		snprintf(out, size, "%s:%u", h, inet_port(a));
	} else {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)a)->sin6_addr, h, sizeof(h));
		snprintf(out, size, "[%s]:%u", h, inet_port(a));
	}
}

/* bind of an inet socket, performed on the duplicate D with the decided
 * address (e125): a bind that would share its port (shares_port) with a
 * socket outside the tree would put the command in that socket's
 * reuseport group (a root service's connections, payload included) or
 * take its datagrams: decided as `unrestricted`, scope
 * "SO_REUSEPORT ADDR:PORT" (policy has no inet form of process_control's
 * "server outside the run" yet), and refused with EADDRINUSE, what the
 * kernel says to a bind without those options. A bind to port 0 is done
 * with the options cleared (reuse_clear). */
static int bind_inet(struct cw_notif *n, int d)
{
	int type = sock_type(d);
	if (type < 0)
		return type;
	bool shared = (type == SOCK_STREAM || type == SOCK_DGRAM) && shares_port(d, type);
	unsigned port = inet_port(&addr);
	if (shared && port != 0) {
		int h = port_held_outside(n->tid, type == SOCK_STREAM, port);
		if (h != 0) {
			static char scope[96];
			char a[80];
			format_inet(&addr, a, sizeof(a));
			snprintf(scope, sizeof(scope), "SO_REUSEPORT %s", a);
			if (decide_reroute(n, scope, port) < 0)
				return -EADDRINUSE;
		}
	}
	struct reuse_saved sv = { .cleared = false };
	if (shared && port == 0)
		reuse_clear(d, &sv);
	int r = bind(d, (struct sockaddr *)&addr, addrlen) < 0 ? -errno : 0;
	reuse_restore(d, &sv);
	if (r == 0)
		remember_inet(d);
	return r;
}

/* ---- sends from a datagram socket never bound (e126) ----
 *
 * The kernel autobinds such a socket at its first send (or connect) to
 * the wildcard address, 0.0.0.0 or [::] (udp_sendmsg -> inet_autobind):
 * from then on it receives datagrams sent to that port on every
 * interface, a port open to the network that no decided bind opened.
 * Before capwatch sends for it to a loopback (or unspecified, delivered
 * locally) destination, it binds the duplicate to the loopback address
 * of the destination's kind, port 0: 127.0.0.1, [::1], or
 * [::ffff:127.0.0.1] for a v4 destination on an IPv6 socket. To an
 * external destination (external_network, decided by the profile) the
 * kernel's autobind to the wildcard stays: it is the return path of an
 * allowed exchange with the network, not counted as host_visible_binding
 * (as a TCP client's port is not); only when the socket has
 * SO_REUSEPORT/SO_REUSEADDR does capwatch bind it to the wildcard itself,
 * with those options cleared, so that the port picked is in no group.
 * A loopback-bound socket cannot send to an external address afterwards
 * (the kernel refuses a loopback source off lo: EINVAL); a program that
 * mixes both on one unconnected socket gets that error. */
static bool dest_local(const struct sockaddr_storage *a, socklen_t len, bool *v4)
{
	*v4 = false;
	if (a->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		uint32_t h = ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr);
		*v4 = true;
		return (h >> 24) == 127 || h == 0;
	}
	if (a->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(x)) {
			*v4 = true;
			return x->s6_addr[12] == 127 ||
			       (x->s6_addr[12] | x->s6_addr[13] | x->s6_addr[14] | x->s6_addr[15]) == 0;
		}
		return IN6_IS_ADDR_LOOPBACK(x) || IN6_IS_ADDR_UNSPECIFIED(x);
	}
	return false;
}

/* D: the duplicate; DST/LEN: the destinations' kind: LOCAL when every
 * named destination of the call is loopback (or unspecified), V4 when
 * they are IPv4 (or v4-mapped). 0 or -errno (the call is refused). */
static int prebind_datagram(int d, bool local, bool v4)
{
	if (sock_type(d) != SOCK_DGRAM)
		return 0;
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	memset(&me, 0, sizeof(me));
	if (getsockname(d, (struct sockaddr *)&me, &ml) < 0)
		return -errno;
	if (!inet_family(me.ss_family) || inet_port(&me) != 0)
		return 0; /* bound already (a decided bind), or not inet */
	bool shared = shares_port(d, SOCK_DGRAM);
	if (!local && !shared)
		return 0; /* the kernel's autobind: see above */
	struct sockaddr_storage b;
	socklen_t bl;
	memset(&b, 0, sizeof(b));
	if (me.ss_family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&b;
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(local ? INADDR_LOOPBACK : INADDR_ANY);
		bl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&b;
		s6->sin6_family = AF_INET6;
		if (local && v4) {
			s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
			s6->sin6_addr.s6_addr[12] = 127;
			s6->sin6_addr.s6_addr[15] = 1;
		} else if (local) {
			s6->sin6_addr = in6addr_loopback;
		}
		bl = sizeof(*s6);
	}
	struct reuse_saved sv;
	reuse_clear(d, &sv);
	int r = bind(d, (struct sockaddr *)&b, bl) < 0 ? -errno : 0;
	reuse_restore(d, &sv);
	if (r == 0) {
		remember_inet(d);
		return 0;
	}
	/* An IPv6-only socket cannot take a v4-mapped address: the send
	 * would have failed too (udpv6_sendmsg). */
	if (r == -EINVAL && me.ss_family == AF_INET6 && v4)
		return -ENETUNREACH;
	return r;
}

/* The one check of an address length read from the target, before any
 * use of the copy (issue 14): what the kernel's move_addr_to_kernel and
 * the family's own checks refuse is refused here with the same errno, so
 * no length taken from the target reaches a buffer unchecked. A sendmsg
 * name longer than a sockaddr_storage was already cut down to it, as
 * ____sys_sendmsg does (msg_namelen()). */
static int check_addr(const struct sockaddr_storage *a, uint64_t len)
{
	if (len > sizeof(*a))
		return -EINVAL; /* move_addr_to_kernel */
	if (len < sizeof(sa_family_t))
		return -EINVAL;
	/* unix_validate_addr: a named unix address is at most a
	 * sockaddr_un (108 bytes of path, with or without a NUL). */
	if (a->ss_family == AF_UNIX && len > sizeof(struct sockaddr_un))
		return -EINVAL;
	return 0;
}

/* The path of a (checked) AF_UNIX address as a C string in OUT, which
 * holds sizeof(sun_path) + 1 bytes: the kernel's unix_mkname_bsd
 * terminates a 108-byte path that has no NUL, and stops at the first
 * NUL of a shorter one. */
#define UNIX_NAME_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) + 1)
static void unix_name(const struct sockaddr_storage *a, socklen_t len, char out[UNIX_NAME_MAX])
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)a;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	size_t n = len > off ? len - off : 0;
	if (n > sizeof(un->sun_path))
		n = sizeof(un->sun_path);
	memcpy(out, un->sun_path, n);
	out[n] = '\0';
}

/* Put PATH (at most sizeof(sun_path) bytes) in the address: with its NUL
 * when it fits, without it at exactly 108 bytes, as the kernel takes it. */
static void set_unix_path(struct sockaddr_storage *a, socklen_t *len, const char *path, size_t l)
{
	struct sockaddr_un *un = (struct sockaddr_un *)a;
	memset(un->sun_path, 0, sizeof(un->sun_path));
	memcpy(un->sun_path, path, l);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + (l < sizeof(un->sun_path)));
}

/* An AF_UNIX path is looked up like a file: relative to the caller's cwd,
 * through symlinks (a workspace name can point at /var/run/docker.sock).
 * Decide on where it leads: rewrite the copied address with the resolved
 * path. bind() creates the name, so its last component is not followed. */
static int resolve_unix(struct cw_notif *n, bool follow)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (un->sun_family != AF_UNIX || addrlen <= off || un->sun_path[0] == '\0')
		return 0; /* unnamed or abstract: no file */
	char name[UNIX_NAME_MAX];
	unix_name(&addr, addrlen, name);
	static struct cw_resolved r;
	int e = cw_resolve_path(n->tid, n->tgid, AT_FDCWD, name, follow ? 0 : CW_RES_NOFOLLOW, &r);
	if (e < 0)
		return e;
	size_t len = strlen(r.path);
	if (len > sizeof(un->sun_path))
		return -EACCES; /* cannot name it in an address: fail closed */
	set_unix_path(&addr, &addrlen, r.path, len);
	return 0;
}

static int missing_unix_path(void)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (un->sun_family != AF_UNIX || addrlen <= off || un->sun_path[0] != '/')
		return 0;
	char p[UNIX_NAME_MAX];
	unix_name(&addr, addrlen, p);
	struct stat st;
	if (stat(p, &st) < 0 && (errno == ENOENT || errno == ENOTDIR))
		return errno;
	return 0;
}

static int read_addr(struct cw_notif *n, uint64_t ptr, uint64_t len, bool follow)
{
	if (len > sizeof(addr) || len < sizeof(sa_family_t))
		return -EINVAL; /* before reading: check_addr again on the copy */
	memset(&addr, 0, sizeof(addr));
	int e = cw_mem_read(n->tid, ptr, &addr, (size_t)len);
	if (e < 0)
		return e;
	e = check_addr(&addr, len);
	if (e < 0)
		return e;
	addrlen = (socklen_t)len;
	return resolve_unix(n, follow);
}

/* The target's socket, duplicated into capwatch (same open file): what the
 * target's fd number names can no longer be swapped by another thread's
 * dup2 between the decision and the operation. */
static int dup_socket(struct cw_notif *n, int fd)
{
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL) /* before 6.9: process pidfds only */
		pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
	if (pfd < 0)
		return -errno;
	int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	return d < 0 ? -errno : d;
}

/* The duplicate listen() was decided on (getsockname), kept for the
 * listen capwatch performs on it; -1 otherwise. Closed by cw_handle_net. */
static int held_sock = -1;

static void bound_path(int sock);

/* The address a listen() will expose: getsockname on a duplicate of the
 * target's socket (an unbound socket autobinds to the wildcard, K20). */
static int listen_addr(struct cw_notif *n, int fd)
{
	int sfd = dup_socket(n, fd);
	if (sfd < 0)
		return sfd;
	held_sock = sfd;
	addrlen = sizeof(addr);
	memset(&addr, 0, sizeof(addr));
	if (getsockname(sfd, (struct sockaddr *)&addr, &addrlen) < 0)
		return -errno; /* ENOTSOCK for a file */
	/* A 108-byte unix name comes back with the NUL the kernel added
	 * (111 bytes): the same name as a checked address of 110. */
	if (addr.ss_family == AF_UNIX && addrlen > sizeof(struct sockaddr_un))
		addrlen = sizeof(struct sockaddr_un);
	bound_path(sfd);
	return 0;
}

/* ---- pathname unix sockets: pinned by inode (kernel-notes K20) ---- */

/* capwatch looks the name up itself; permission on it is checked with
 * capwatch's credentials, which are the target's own (the command
 * inherits them and set*id calls are denied). If they ever differ (the
 * target's fsuid/fsgid), capwatch refuses rather than act as someone
 * else: EACCES, as for a name the caller may not reach. */
static bool same_fsids(pid_t tid)
{
	struct cw_target_status st;
	return cw_target_status(tid, &st) == 0 && st.uid[3] == (unsigned long)geteuid() &&
	       st.gid[3] == (unsigned long)getegid();
}

static bool is_unix_path(const struct sockaddr_storage *a, socklen_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)a;
	return a->ss_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
	       un->sun_path[0] != '\0';
}

/* connect/sendto to a pathname socket: open the decided path O_PATH
 * without following any symlink (one swapped in after the decision makes
 * this fail, ELOOP), check that it is a socket, and rewrite A to
 * "/proc/self/fd/PIN": the kernel's lookup of that name lands on the
 * pinned inode whatever happens to the path. *PIN is the O_PATH fd; the
 * caller closes it after the call. */
static bool made_by_tree(const struct stat *st);

/* FOREIGN_OK: the decision knew the socket file was not made by the tree
 * (op.alias); when it did not, a file swapped in since is refused as the
 * kernel refuses a name with no listener behind it. */
static int pin_unix(struct cw_notif *n, struct sockaddr_storage *a, socklen_t *len, int *pin,
		    bool foreign_ok)
{
	char path[UNIX_NAME_MAX];
	*pin = -1;
	if (!is_unix_path(a, *len))
		return 0;
	if (!same_fsids(n->tid))
		return -EACCES;
	unix_name(a, *len, path);
	if (path[0] != '/')
		return -EACCES; /* the resolver always gives an absolute path */
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED; /* what connect() says of a non-socket */
	if (!foreign_ok && !made_by_tree(&st))
		return -ECONNREFUSED;
	struct sockaddr_un *un = (struct sockaddr_un *)a;
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	int l = snprintf(un->sun_path, sizeof(un->sun_path), "/proc/self/fd/%d", fd);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)l + 1);
	*pin = steal_fd(&fd);
	return 0;
}

/* bind to a pathname: the kernel creates the socket file. Done in a
 * thread of its own fs context (unshare(CLONE_FS): cwd and umask are per
 * fs_struct): it changes into the decided parent directory, opened
 * without following symlinks, takes the target's umask, and binds to the
 * basename only. */
struct bind_job {
	int sock, dir, umask;
	struct sockaddr_un sa;
	socklen_t len;
	int err;
};

static void *bind_worker(void *arg)
{
	struct bind_job *j = arg;
	j->err = 0;
	if (unshare(CLONE_FS) < 0 || fchdir(j->dir) < 0) {
		j->err = errno;
		return NULL;
	}
	if (j->umask >= 0)
		umask((mode_t)j->umask);
	if (bind(j->sock, (struct sockaddr *)&j->sa, j->len) < 0)
		j->err = errno;
	return NULL;
}


/* Unix sockets capwatch bound for the tree, by sockfs inode, with the
 * absolute path it decided on and the socket file it created. The kernel
 * records the name as bind() was given it (the basename here: see
 * bind_unix_path), so listen() looks its socket up here to decide on the
 * full path. A ring: the oldest entries go. */
static struct bound_unix {
	ino_t sock;
	dev_t fdev;
	ino_t fino;
	char path[UNIX_NAME_MAX];
} bound[1024];
static unsigned nbound;

/* Every socket file the tree created in this run (E48), by (dev, ino): a
 * growing set (sets_init), unlike the ring above, since a file forgotten
 * would turn its own server into an outside one. */
static bool made_by_tree(const struct stat *st)
{
	uint64_t k[2] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
	return sets_ready && cw_hmap_find(&made, k, sizeof(k));
}

static void remember_made(const struct stat *st)
{
	sets_init();
	uint64_t k[2] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
	/* ENOMEM: then its server counts as outside: a denial, not a leak */
	cw_hmap_insert(&made, k, sizeof(k), NULL);
}

/* E48: a pathname socket whose file the tree did not create in this run
 * has a server capwatch never saw start, a process outside supervision
 * (or from before the run): what it sends back is not decided (SCM_RIGHTS
 * descriptors of files outside the workspace arrive with no open). Such a
 * server is decided as the policy decides one outside the workspace,
 * process_control, wherever its name is: op.alias says so. The decision's
 * stat is re-checked on the pinned inode (pin_unix). */
static const char *unix_alias(const struct sockaddr_storage *a, socklen_t len)
{
	char path[UNIX_NAME_MAX];
	struct stat st;
	if (!is_unix_path(a, len))
		return NULL;
	unix_name(a, len, path);
	if (path[0] != '/' || stat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || made_by_tree(&st))
		return NULL;
	return "socket file from outside the run";
}

static void remember_bound(int sock, int dir, const char *base, const char *path)
{
	struct stat st, f;
	if (fstat(sock, &st) < 0)
		return;
	struct bound_unix *b = &bound[nbound++ % CW_ARRAY_SIZE(bound)];
	b->sock = st.st_ino;
	b->fdev = 0;
	b->fino = 0;
	if (fstatat(dir, base, &f, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(f.st_mode)) {
		b->fdev = f.st_dev;
		b->fino = f.st_ino;
		remember_made(&f);
	}
	snprintf(b->path, sizeof(b->path), "%s", path);
}

/* listen() on a unix socket bound by capwatch: decide on the full path. */
static void bound_path(int sock)
{
	struct stat st;
	if (addr.ss_family != AF_UNIX || !is_unix_path(&addr, addrlen) || fstat(sock, &st) < 0)
		return;
	for (unsigned i = 0; i < CW_ARRAY_SIZE(bound) && i < nbound; i++) {
		if (bound[i].sock != st.st_ino || !bound[i].path[0])
			continue;
		set_unix_path(&addr, &addrlen, bound[i].path, strlen(bound[i].path));
		return;
	}
}

/* The socket file gets the basename as its recorded name: getsockname()
 * and a peer's getpeername()/accept() show "name", not "/dir/name", when
 * the target bound with a path that has a directory part (a relative
 * name in the cwd is unchanged). */
static int bind_unix_path(struct cw_notif *n, int sock)
{
	char path[UNIX_NAME_MAX];
	if (!same_fsids(n->tid))
		return -EACCES;
	unix_name(&addr, addrlen, path);
	char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1] || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0)
		return -EINVAL;
	struct bind_job j = { .sock = sock, .umask = cw_target_umask(n->tid) };
	j.sa.sun_family = AF_UNIX;
	size_t bl = strlen(slash + 1);
	memcpy(j.sa.sun_path, slash + 1, bl); /* shorter than the path it came from */
	j.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + bl + 1);
	if (slash == path)
		strcpy(path, "/");
	else
		*slash = '\0';
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int dir = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (dir < 0)
		return -errno;
	j.dir = dir;
	pthread_t th;
	int e = pthread_create(&th, NULL, bind_worker, &j);
	if (e)
		return -EAGAIN;
	pthread_join(th, NULL);
	if (j.err == 0) {
		if (slash != path)
			*slash = '/';
		remember_bound(sock, dir, j.sa.sun_path, path);
	}
	return -j.err;
}

/* ---- connect: a worker thread answers ---- */

/* A connect performed for the target on a worker thread: a blocking
 * connect may take minutes, and the event loop must go on. The worker
 * touches nothing but its job and the listener (NOTIF_SEND is safe from
 * any thread); the decision and the record stay on the main thread. With
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (launch.c) only a fatal signal
 * can make the target abandon the call meanwhile. */
struct connect_job {
	int listener;
	uint64_t id;
	int fd, pin;
	struct sockaddr_storage addr;
	socklen_t len;
};

static void *connect_worker(void *arg)
{
	struct connect_job *j = arg;
	int r = connect(j->fd, (struct sockaddr *)&j->addr, j->len);
	struct seccomp_notif_resp resp = { .id = j->id, .val = 0, .error = r < 0 ? -errno : 0 };
	/* ENOENT: the target died meanwhile; nothing to do. */
	ioctl(j->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	close(j->fd);
	if (j->pin >= 0)
		close(j->pin);
	free(j);
	return NULL;
}

/* ---- sendto, sendmsg, sendmmsg: the payload copied, sent by capwatch ---- */

/* Bounds of what capwatch copies. A datagram larger than SEND_MAX_DATA
 * could not be sent by the kernel either (UDP stops at 64 KiB, a unix
 * datagram at the send buffer): EMSGSIZE. A stream socket gets a short
 * count, as send() may give. Control data past the default optmem_max
 * fails ENOBUFS as in the kernel's sock_kmalloc. */
#define SEND_MAX_DATA (4u << 20)
#define SEND_MAX_CONTROL (128u << 10)
#define SEND_MAX_VLEN 1024 /* UIO_MAXIOV: sendmmsg's vlen, a msghdr's iovlen */
#define SEND_MAX_FDS 253   /* SCM_MAX_FD: descriptors in one message */

struct smsg {
	struct sockaddr_storage name;
	socklen_t namelen;      /* 0: none */
	int pin;                /* pinned unix socket (O_PATH), -1 */
	char *data;
	size_t len;
	char *ctl;
	size_t ctllen;
	int *fds;               /* capwatch's copies of SCM_RIGHTS descriptors */
	size_t nfds;
	uint64_t lenaddr;       /* sendmmsg: the target's msgvec[i].msg_len */
};

struct send_job {
	int listener;
	uint64_t id;
	pid_t tid, tgid;
	int fd;                 /* the duplicate */
	int flags;              /* as the target passed them */
	bool mmsg;
	unsigned n;
	struct smsg *m;
	unsigned next;          /* progress: the message being sent, */
	size_t off;             /* how much of it went, */
	int64_t count;          /* bytes (sendto, sendmsg) or messages (sendmmsg) */
};

static void smsg_free(struct smsg *m)
{
	free(m->data);
	free(m->ctl);
	for (size_t i = 0; i < m->nfds; i++)
		close(m->fds[i]);
	free(m->fds);
	if (m->pin >= 0)
		close(m->pin);
}

static void send_job_free(struct send_job *j)
{
	if (!j)
		return;
	for (unsigned i = 0; i < j->n; i++)
		smsg_free(&j->m[i]);
	free(j->m);
	if (j->fd >= 0)
		close(j->fd);
	free(j);
}

/* SCM_RIGHTS names the target's descriptors: each one is duplicated
 * (pidfd_getfd) and capwatch's number written in its place.
 * SCM_CREDENTIALS is checked by the kernel against the sender, now
 * capwatch: its uid and gid are the target's, its pid is not. A target
 * that claims its own pid (the only claim the kernel lets an
 * unprivileged sender make) gets capwatch's pid put in its place, so the
 * receiver sees what SO_PEERCRED shows it (capwatch's pid, the target's
 * uid and gid); a target claiming capwatch's pid gets the EPERM the
 * kernel would give it; any other claim is checked against the target's
 * own ids and capabilities first (creds_claim_ok: capwatch's would not
 * do), then by the kernel against capwatch's. Never CONTINUE:
 * the address was decided on memory. Other control messages (IP_PKTINFO,
 * IP_TTL, SO_MARK...) carry no reference to the sender and pass as they
 * are. */
/* May thread TID claim UC in SCM_CREDENTIALS? The kernel's rule
 * (scm_check_creds) for the target itself: its own tgid unless
 * CAP_SYS_ADMIN, one of its real/effective/saved uids unless CAP_SETUID,
 * gids likewise with CAP_SETGID. capwatch sends the message and would be
 * checked with its own capabilities instead, so it checks the target's
 * here first. */
static bool creds_claim_ok(pid_t tid, pid_t tgid, const struct ucred *uc)
{
	struct cw_target_status st;
	if (cw_target_status(tid, &st) < 0)
		return false;
	const unsigned long *u = st.uid, *g = st.gid;
	bool own_pid = uc->pid == tgid;
	bool own_uid = uc->uid == u[0] || uc->uid == u[1] || uc->uid == u[2];
	bool own_gid = uc->gid == g[0] || uc->gid == g[1] || uc->gid == g[2];
	return (own_pid || (st.cap_eff & (1ull << 21 /* CAP_SYS_ADMIN */))) &&
	       (own_uid || (st.cap_eff & (1ull << 7 /* CAP_SETUID */))) &&
	       (own_gid || (st.cap_eff & (1ull << 6 /* CAP_SETGID */)));
}

static int translate_control(struct cw_notif *n, struct smsg *m)
{
	struct msghdr h = { .msg_control = m->ctl, .msg_controllen = m->ctllen };
	_cleanup_close_ int pfd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
		if (c->cmsg_len < sizeof(*c) || c->cmsg_len > m->ctllen - ((char *)c - m->ctl))
			return -EINVAL;
		const char *rr = reroute_cmsg(c->cmsg_level, c->cmsg_type);
		if (rr && c->cmsg_len > CMSG_LEN(0)) {
			int e = decide_reroute(n, rr, c->cmsg_type);
			if (e < 0)
				return e;
		}
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;
			if (c->cmsg_len != CMSG_LEN(sizeof(uc)))
				return -EINVAL; /* __scm_send */
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			if (uc.pid == getpid() || !creds_claim_ok(n->tid, n->tgid, &uc))
				return -EPERM;
			if (uc.pid == n->tgid)
				uc.pid = getpid();
			memcpy(CMSG_DATA(c), &uc, sizeof(uc));
			continue;
		}
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		/* scm_fp_copy: at most SCM_MAX_FD descriptors in one message;
		 * each costs capwatch a descriptor until the send is done. */
		if (m->nfds + k > SEND_MAX_FDS)
			return -EINVAL;
		int *fdp = (int *)CMSG_DATA(c);
		if (pfd < 0) {
			pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
			if (pfd < 0 && errno == EINVAL)
				pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
			if (pfd < 0)
				return -errno;
		}
		int *nf = realloc(m->fds, (m->nfds + k + 1) * sizeof(int));
		if (!nf)
			return -ENOMEM;
		m->fds = nf;
		for (size_t i = 0; i < k; i++) {
			int tfd;
			memcpy(&tfd, fdp + i, sizeof(tfd));
			int d = (int)syscall(SYS_pidfd_getfd, pfd, tfd, 0);
			if (d < 0)
				return errno == EBADF ? -EBADF : -errno;
			m->fds[m->nfds++] = d;
			memcpy(fdp + i, &d, sizeof(d));
		}
	}
	return 0;
}

/* Copy one message: its iovecs' bytes into one buffer (the kernel sends
 * them as one), its control data, translated. MH is capwatch's copy of
 * the msghdr; the name was copied and decided before. STREAM: the socket
 * is a byte stream (a short count is allowed). */
static int copy_msg(struct cw_notif *n, const struct msghdr *mh, bool stream, struct smsg *m)
{
	if (mh->msg_iovlen > SEND_MAX_VLEN)
		return -EMSGSIZE;
	size_t niov = mh->msg_iovlen;
	_cleanup_free_ struct iovec *iov = NULL;
	if (niov) {
		iov = malloc(niov * sizeof(*iov));
		if (!iov)
			return -ENOMEM;
		int e = cw_mem_read(n->tid, (uint64_t)(uintptr_t)mh->msg_iov, iov, niov * sizeof(*iov));
		if (e < 0)
			return e;
	}
	size_t total = 0;
	for (size_t i = 0; i < niov; i++) {
		if ((ssize_t)iov[i].iov_len < 0)
			return -EINVAL;
		total += iov[i].iov_len;
		if ((ssize_t)total < 0)
			return -EINVAL;
	}
	if (total > SEND_MAX_DATA) {
		if (!stream)
			return -EMSGSIZE;
		total = SEND_MAX_DATA;
	}
	m->data = malloc(total ? total : 1);
	if (!m->data)
		return -ENOMEM;
	size_t off = 0;
	for (size_t i = 0; i < niov && off < total; i++) {
		size_t l = iov[i].iov_len;
		if (l > total - off)
			l = total - off;
		int e = cw_mem_read(n->tid, (uint64_t)(uintptr_t)iov[i].iov_base, m->data + off, l);
		if (e < 0)
			return e;
		off += l;
	}
	m->len = total;
	if (mh->msg_controllen) {
		if (mh->msg_controllen > SEND_MAX_CONTROL)
			return -ENOBUFS;
		m->ctllen = mh->msg_controllen;
		m->ctl = malloc(m->ctllen);
		if (!m->ctl)
			return -ENOMEM;
		int e = cw_mem_read(n->tid, (uint64_t)(uintptr_t)mh->msg_control, m->ctl, m->ctllen);
		if (e < 0)
			return e;
		e = translate_control(n, m);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Send the job's messages on the duplicate as the kernel would for the
 * target: capwatch's own calls carry MSG_NOSIGNAL (SIGPIPE is the
 * target's, sent to the calling thread unless it asked otherwise).
 * DONTWAIT: a first pass on the event loop for a blocking socket; returns
 * false, progress kept, when the send would block (a worker goes on from
 * there). Otherwise returns true with *RES the byte count (sendto,
 * sendmsg), the number of messages sent (sendmmsg, which writes each
 * msg_len back), or -errno. */
static bool step_send_job(struct send_job *j, bool dontwait, int64_t *res)
{
	int err = 0;
	while (j->next < j->n) {
		struct smsg *m = &j->m[j->next];
		bool first = j->off == 0;
		struct iovec iov = { m->data + j->off, m->len - j->off };
		struct msghdr h = {
			.msg_name = first && m->namelen ? &m->name : NULL,
			.msg_namelen = first ? m->namelen : 0,
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = first && m->ctllen ? m->ctl : NULL,
			.msg_controllen = first ? m->ctllen : 0,
		};
		ssize_t r = sendmsg(j->fd, &h, j->flags | MSG_NOSIGNAL | (dontwait ? MSG_DONTWAIT : 0));
		if (r < 0 && dontwait && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (r < 0 && first) {
			err = errno;
			break;
		}
		/* An error after part of a stream message went: the kernel
		 * returns what was sent. */
		if (r > 0)
			j->off += (size_t)r;
		if (r >= 0 && dontwait && j->off < m->len)
			continue; /* the rest, or EAGAIN and on to the worker */
		if (!j->mmsg) {
			j->count = (int64_t)j->off;
			break;
		}
		uint32_t v = (uint32_t)j->off;
		struct iovec lo = { &v, sizeof(v) }, re = { (void *)(uintptr_t)m->lenaddr, sizeof(v) };
		if (process_vm_writev(j->tid, &lo, 1, &re, 1, 0) != (ssize_t)sizeof(v)) {
			err = EFAULT; /* as put_user() failing in the kernel */
			break;
		}
		j->count++;
		if (j->off < m->len)
			break; /* a partial send ends sendmmsg */
		j->next++;
		j->off = 0;
	}
	if (err == EPIPE && !(j->flags & MSG_NOSIGNAL))
		syscall(SYS_tgkill, j->tgid, j->tid, SIGPIPE);
	*res = err && j->count == 0 ? -err : j->count;
	return true;
}

static void answer_raw(int listener, uint64_t id, int64_t r)
{
	struct seccomp_notif_resp resp = { .id = id, .val = r < 0 ? 0 : r, .error = r < 0 ? (int32_t)r : 0 };
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp); /* ENOENT: the target died */
}

static void *send_worker(void *arg)
{
	struct send_job *j = arg;
	int64_t r;
	step_send_job(j, false, &r);
	answer_raw(j->listener, j->id, r);
	send_job_free(j);
	return NULL;
}

/* Perform J (owned) and answer. A blocking socket is tried first with
 * MSG_DONTWAIT on this thread (a datagram or a stream write that fits
 * the send buffer: the common case, no thread); what would block goes on
 * in a worker, which answers, so that a full send buffer never stops the
 * event loop. Returns the errno answered (0 when the worker answers or
 * the send succeeded). */
static int perform_send(struct cw_notif *n, struct send_job *j)
{
	int fl = fcntl(j->fd, F_GETFL);
	bool blocking = !(j->flags & MSG_DONTWAIT) && !(fl >= 0 && (fl & O_NONBLOCK));
	int64_t r;
	if (step_send_job(j, blocking, &r)) {
		send_job_free(j);
		if (r < 0)
			cw_notif_error(n, (int)-r);
		else
			cw_notif_value(n, r);
		return r < 0 ? (int)-r : 0;
	}
	if (cw_start_detached(send_worker, j) == 0) {
		n->answered = true; /* the worker answers */
		return 0;
	}
	send_job_free(j);
	cw_notif_error(n, EAGAIN); /* no worker: refuse rather than block the loop */
	return EAGAIN;
}

static int sock_type(int fd)
{
	int t = 0;
	socklen_t l = sizeof(t);
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l) < 0 ? -errno : t;
}

/* The copies the handler took: sendmsg's msghdr, sendmmsg's headers and
 * their (decided, resolved) names. Used once, by the enforcement. */
static struct msghdr cur_mh;
static struct mmsghdr mm_hdr[SEND_MAX_VLEN];
static struct sockaddr_storage mm_name[SEND_MAX_VLEN];
/* ... whether each one's decision knew its server to be outside (E48). */
static bool mm_foreign[SEND_MAX_VLEN];
/* The same for the address of a sendto/sendmsg or connect. */
static bool cur_foreign;
static socklen_t mm_namelen[SEND_MAX_VLEN];
static unsigned mm_count;

/* Build the job for the current sendto/sendmsg/sendmmsg on duplicate D
 * (owned by the job from here). Returns 0 or -errno (J freed). */
static int build_send_job(struct cw_notif *n, int d, struct send_job **out)
{
	int nr = n->req->data.nr;
	struct send_job *j = calloc(1, sizeof(*j));
	if (!j) {
		close(d);
		return -ENOMEM;
	}
	j->listener = n->run->listener;
	j->id = n->req->id;
	j->tid = n->tid;
	j->tgid = n->tgid;
	j->fd = d;
	j->mmsg = nr == __NR_sendmmsg;
	j->flags = arg_int(n, nr == __NR_sendto ? 3 : nr == __NR_sendmsg ? 2 : 3);
	unsigned cnt = j->mmsg ? mm_count : 1;
	j->m = calloc(cnt ? cnt : 1, sizeof(*j->m));
	if (!j->m) {
		send_job_free(j);
		return -ENOMEM;
	}
	int t = sock_type(d);
	if (t < 0) {
		send_job_free(j);
		return t;
	}
	bool stream = t == SOCK_STREAM;
	int e = 0;
	for (unsigned i = 0; i < cnt && e == 0; i++) {
		struct smsg *m = &j->m[i];
		m->pin = -1;
		j->n = i + 1;
		if (nr == __NR_sendto) {
			/* One buffer: a one-iovec message. */
			/* One buffer, from the registers. */
			uint64_t buf = arg_u64(n, 1), len = arg_u64(n, 2);
			m->name = addr;
			m->namelen = addrlen;
			if (len > SEND_MAX_DATA && !stream) {
				e = (int64_t)len < 0 ? -EINVAL : -EMSGSIZE;
				break;
			}
			size_t l = len > SEND_MAX_DATA ? SEND_MAX_DATA : (size_t)len;
			m->data = malloc(l ? l : 1);
			if (!m->data) {
				e = -ENOMEM;
				break;
			}
			e = cw_mem_read(n->tid, buf, m->data, l);
			m->len = l;
		} else if (nr == __NR_sendmsg) {
			if (cur_mh.msg_name && cur_mh.msg_namelen) {
				m->name = addr;
				m->namelen = addrlen;
			}
			e = copy_msg(n, &cur_mh, stream, m);
		} else {
			m->name = mm_name[i];
			m->namelen = mm_namelen[i];
			m->lenaddr = arg_u64(n, 1) + (uint64_t)i * sizeof(struct mmsghdr) +
				     offsetof(struct mmsghdr, msg_len);
			e = copy_msg(n, &mm_hdr[i].msg_hdr, stream, m);
		}
		if (e == 0)
			e = pin_unix(n, &m->name, &m->namelen, &m->pin,
				     j->mmsg ? mm_foreign[i] : cur_foreign);
	}
	if (e < 0 && j->mmsg && j->n > 1) {
		/* Message I cannot be sent: the kernel sends the ones before
		 * it and returns their count. */
		smsg_free(&j->m[j->n - 1]);
		j->n--;
		e = 0;
	}
	if (e < 0) {
		send_job_free(j);
		return e;
	}
	*out = j;
	return 0;
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
static int netlink_route_op(struct cw_notif *n, int d)
{
	int nr = n->req->data.nr;
	if (!is_netlink_route(d))
		return -EPERM; /* another socket since decided: nothing done */
	struct sockaddr_nl nl;
	memset(&nl, 0, sizeof(nl));
	memcpy(&nl, &addr, addrlen < sizeof(nl) ? addrlen : sizeof(nl));
	if (nr == __NR_bind) {
		if (addrlen < sizeof(nl))
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
	return connect(d, (struct sockaddr *)&nl, addrlen) < 0 ? -errno : 0;
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

static void enforce_net_as_command(struct cw_notif *n, struct cw_event *ev)
{
	int nr = n->req->data.nr;
	if (!ev->enforced || (!emulated_family(addr.ss_family) && !ev->op.netlink_route_unprivileged)) {
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	int r;
	if (nr == __NR_listen) {
		/* An unbound socket autobinds here to a port in no reuseport
		 * group: inet_csk_find_open_port does not let SO_REUSEPORT
		 * share a port it picks. */
		r = listen(held_sock, arg_int(n, 1)) < 0 ? -errno : 0;
		if (r == 0 && inet_family(addr.ss_family))
			remember_inet(held_sock);
		goto answer;
	}
	int d = dup_socket(n, arg_int(n, 0));
	if (d < 0) {
		r = d;
		goto answer;
	}
	if (addr.ss_family == AF_NETLINK && (nr == __NR_bind || nr == __NR_connect)) {
		r = netlink_route_op(n, d);
		close(d);
		goto answer;
	}
	if (addr.ss_family == AF_NETLINK && !is_netlink_route(d)) {
		close(d);
		r = -EPERM; /* another socket since decided: nothing sent */
		goto answer;
	}
	if (nr == __NR_bind) {
		if (is_unix_path(&addr, addrlen))
			r = bind_unix_path(n, d);
		else if (inet_family(addr.ss_family))
			r = bind_inet(n, d);
		else
			r = bind(d, (struct sockaddr *)&addr, addrlen) < 0 ? -errno : 0;
		close(d);
		goto answer;
	}
	if (nr == __NR_connect && inet_family(addr.ss_family)) {
		/* A datagram socket with SO_REUSEPORT/SO_REUSEADDR would be
		 * autobound by connect to a port it may share (e126). */
		r = prebind_datagram(d, false, false);
		if (r < 0) {
			close(d);
			goto answer;
		}
	}
	if (nr == __NR_connect) {
		struct connect_job *j = malloc(sizeof(*j));
		if (!j) {
			close(d);
			r = -ENOMEM;
			goto answer;
		}
		*j = (struct connect_job){ .listener = n->run->listener, .id = n->req->id, .fd = d,
					   .pin = -1, .addr = addr, .len = addrlen };
		r = pin_unix(n, &j->addr, &j->len, &j->pin, cur_foreign);
		if (r == 0 && cw_start_detached(connect_worker, j) == 0) {
			n->answered = true; /* the worker answers */
			ev->err = 0;        /* known to the worker only */
			return;
		}
		/* No worker thread could be started: refuse (EAGAIN) rather
		 * than block the event loop in connect(). */
		if (r == 0)
			r = -EAGAIN;
		close(d);
		if (j->pin >= 0)
			close(j->pin);
		free(j);
		goto answer;
	}
	/* sendto, sendmsg, sendmmsg */
	if (inet_family(addr.ss_family)) {
		bool v4 = false, local = dest_local(&addr, addrlen, &v4);
		for (unsigned i = 0; nr == __NR_sendmmsg && i < mm_count; i++) {
			bool v4i = false;
			if (mm_namelen[i] && !dest_local(&mm_name[i], mm_namelen[i], &v4i))
				local = false;
			if (mm_namelen[i] && !v4i)
				v4 = false;
		}
		r = prebind_datagram(d, local, v4);
		if (r < 0) {
			close(d);
			goto answer;
		}
	}
	struct send_job *j = NULL;
	r = build_send_job(n, d, &j);
	if (r == 0) {
		ev->err = perform_send(n, j);
		return;
	}
answer:
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_notif_error(n, ev->err);
	else
		cw_notif_value(n, 0);
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
static void send_unaddressed(struct cw_notif *n)
{
	if (n->run->observe) {
		cw_notif_continue(n); /* --observe enforces nothing */
		return;
	}
	int d = dup_socket(n, arg_int(n, 0));
	if (d < 0) {
		cw_notif_error(n, -d);
		return;
	}
	struct send_job *j = NULL;
	int e = build_send_job(n, d, &j);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	struct caps_saved sv = { .lowered = false };
	caps_lower(n, &sv); /* as the command (enforce_net) */
	perform_send(n, j);
	caps_restore(&sv);
}

/* sendmmsg: up to 1024 messages (UIO_MAXIOV, as the kernel caps it), each
 * with its own optional address. Every address is decided; one denial
 * denies the whole call (nothing is sent). The first denied address, or
 * else the first address, goes to the trace; the others are counted. The
 * headers and names are copied once, here, and the enforcement sends
 * those copies. */
static void handle_sendmmsg(struct cw_notif *n)
{
	static struct sockaddr_storage first;
	static socklen_t firstlen;
	struct cw_event ev;
	uint64_t vec = arg_u64(n, 1);
	unsigned vlen = (unsigned)(uint32_t)arg_u64(n, 2);
	bool have = false, denied = false;

	if (vlen > SEND_MAX_VLEN)
		vlen = SEND_MAX_VLEN;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SEND;
	mm_count = 0;
	for (unsigned i = 0; i < vlen && !denied; i++) {
		struct mmsghdr *mm = &mm_hdr[i];
		int e = cw_mem_read(n->tid, vec + (uint64_t)i * sizeof(*mm), mm, sizeof(*mm));
		if (e < 0 && i > 0)
			break; /* the kernel sends the ones before */
		mm_namelen[i] = 0;
		mm_count = i + 1;
		if (e == 0 && (!mm->msg_hdr.msg_name || mm->msg_hdr.msg_namelen == 0))
			continue;
		if (e == 0)
			e = read_addr(n, (uint64_t)(uintptr_t)mm->msg_hdr.msg_name, msg_namelen(&mm->msg_hdr), true);
		if (e == 0)
			e = missing_unix_path() ? -ENOENT : 0;
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		mm_name[i] = addr;
		mm_namelen[i] = addrlen;
		if (!cw_notif_valid(n)) {
			n->answered = true;
			return;
		}
		struct cw_event cur;
		cw_event_init(&cur, n->syscall);
		cur.op.kind = CW_OP_SEND;
		cur.op.addr = (const struct sockaddr *)&addr;
		cur.op.addrlen = addrlen;
		cur.op.alias = unix_alias(&addr, addrlen);
		mm_foreign[i] = cur.op.alias != NULL;
		denied = !cw_event_decide(n, &cur);
		if (!have || denied) {
			ev = cur;
			first = addr;
			firstlen = addrlen;
			ev.op.addr = (const struct sockaddr *)&first;
			ev.op.addrlen = firstlen;
			have = true;
		} else if (cur.d.cap != CW_CAP_NONE) {
			cw_report_count_capability(n->run->report, cur.d.cap, cur.d.scope, cur.d.verdict);
		}
	}
	if (!have) {
		send_unaddressed(n);
		return;
	}
	/* enforce_net looks at the family of the first decided address. */
	addr = first;
	addrlen = firstlen;
	if (denied)
		cw_event_deny(n, &ev);
	else
		enforce_net(n, &ev);
	cw_event_record(n, &ev);
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
		cw_notif_continue(n);
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
 * loopback, capwatch binds the copy it performs on the loopback address of
 * the family instead (issue 17 item 10): the host stays invisible and the
 * tree's own clients, which connect to 127.0.0.1 or ::1, reach the server.
 * getsockname then says 127.0.0.1; a dual-stack "::" server gets ::1 and
 * no IPv4. The decision and the record are those of the loopback bind,
 * with a note. */
static void bind_wildcard_on_loopback(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_decision d;
	cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &d);
	if (d.verdict == CW_ALLOW)
		return;
	struct sockaddr_storage lo = addr;
	if (lo.ss_family == AF_INET) {
		((struct sockaddr_in *)&lo)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (lo.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&lo;
		bool mapped = IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr);
		s6->sin6_addr = in6addr_loopback;
		if (mapped) { /* ::ffff:0.0.0.0 -> ::ffff:127.0.0.1 */
			memset(&s6->sin6_addr, 0, sizeof(s6->sin6_addr));
			s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
			s6->sin6_addr.s6_addr[12] = 127;
			s6->sin6_addr.s6_addr[15] = 1;
		}
	} else {
		return;
	}
	struct cw_op op = ev->op;
	op.addr = (const struct sockaddr *)&lo;
	cw_policy_decide(n->run->profile, &n->run->ctx, &op, &d);
	if (d.verdict != CW_ALLOW)
		return; /* loopback refused too: the wildcard's denial stands */
	addr = lo;
	char text[80];
	cw_addr_format((const struct sockaddr *)&addr, addrlen, text, sizeof(text));
	cw_run_note(n->run, n->tgid, "info",
		    "a bind to the wildcard address is performed on %s: the profile denies "
		    "host_visible_binding and allows isolated_loopback", text);
}

void cw_handle_net(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int e = 0;

	cw_event_init(&ev, n->syscall);
	switch (nr) {
	case __NR_connect:
		ev.op.kind = CW_OP_CONNECT;
		e = read_addr(n, arg_u64(n, 1), (uint32_t)arg_u64(n, 2), true);
		break;
	case __NR_bind:
		ev.op.kind = CW_OP_BIND;
		e = read_addr(n, arg_u64(n, 1), (uint32_t)arg_u64(n, 2), false);
		break;
	case __NR_sendto:
		ev.op.kind = CW_OP_SEND;
		if ((uint32_t)arg_u64(n, 5) == 0) {
			/* No address to decide on: the kernel ignores it. */
			cw_notif_continue(n);
			return;
		}
		e = read_addr(n, arg_u64(n, 4), (uint32_t)arg_u64(n, 5), true);
		break;
	case __NR_sendmsg: {
		struct msghdr mh;
		ev.op.kind = CW_OP_SEND;
		e = cw_mem_read(n->tid, arg_u64(n, 1), &mh, sizeof(mh));
		if (e < 0)
			break;
		cur_mh = mh;
		if (!mh.msg_name || mh.msg_namelen == 0) {
			send_unaddressed(n);
			return;
		}
		e = read_addr(n, (uint64_t)(uintptr_t)mh.msg_name, msg_namelen(&mh), true);
		break;
	}
	case __NR_sendmmsg:
		handle_sendmmsg(n);
		return;
	case __NR_socket:
		handle_socket(n);
		return;
	case __NR_setsockopt:
		handle_setsockopt(n);
		return;
	case __NR_listen:
		ev.op.kind = CW_OP_LISTEN;
		e = listen_addr(n, arg_int(n, 0));
		break;
	default:
		cw_notif_error(n, ENOSYS);
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
		e = missing_unix_path();
		if (e) {
			cw_notif_error(n, e);
			goto out;
		}
	}
	ev.op.addr = (const struct sockaddr *)&addr;
	ev.op.addrlen = addrlen;
	if (ev.op.kind == CW_OP_BIND && !n->run->observe && cw_addr_classify(ev.op.addr, addrlen) == CW_ADDR_ANY)
		bind_wildcard_on_loopback(n, &ev);
	if (addr.ss_family == AF_NETLINK && ev.op.kind != CW_OP_LISTEN &&
	    !(cap_eff(n->tid) & (1ull << 12 /* CAP_NET_ADMIN */))) {
		/* On a NETLINK_ROUTE socket (checked on a duplicate now, and
		 * again on the one capwatch acts on) it only reads. */
		int d = dup_socket(n, arg_int(n, 0));
		if (d >= 0) {
			ev.op.netlink_route_unprivileged = is_netlink_route(d);
			close(d);
		}
	}
	cur_foreign = false;
	if (ev.op.kind == CW_OP_CONNECT || ev.op.kind == CW_OP_SEND) {
		ev.op.alias = unix_alias(&addr, addrlen);
		cur_foreign = ev.op.alias != NULL;
	}
	cw_event_finish(n, &ev, NULL, enforce_net);
out:
	if (held_sock >= 0) {
		close(held_sock);
		held_sock = -1;
	}
}
