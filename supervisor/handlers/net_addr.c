/* The network family's addresses (see net.c and net_impl.h): the one copy
 * of an address from the target and its checks, unix names resolved and
 * pinned by inode, and what capwatch remembers of the sockets it bound
 * for the tree (inet ports held outside, e125; datagram autobinds, e126;
 * unix socket files the tree made, E48). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/net_impl.h"
#include "supervisor/state.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "supervisor/record.h"
#include "supervisor/log.h"


/* ---- the run's state: sets of sockets and socket files, by inode ----
 *
 * Growing sets keyed by inode numbers, which the command has a say in
 * (it makes sockets and files at will, and port_held_outside looks one
 * up per line of /proc/net/tcp): keyed maps (hmap.h), one key for both,
 * made at the first insertion. */

/* Unix sockets capwatch bound for the tree, by sockfs inode, with the
 * absolute path it decided on and the socket file it created. The kernel
 * records the name as bind() was given it (the caller's, maybe relative,
 * or the basename: see cw_net_bind_unix_path), so listen() looks its
 * socket up here to decide on the full path. A ring: the oldest entries
 * go. */
struct bound_unix {
	ino_t sock;
	dev_t fdev;
	ino_t fino;
	char path[CW_UNIX_PATH_MAX + 1];
};

struct cw_net_state {
	struct cw_hmap tree_inet;  /* inet sockets the tree bound or listened on (e125) */
	struct cw_hmap made;       /* socket files the tree created (E48) */
	bool sets_ready;
	struct bound_unix bound[1024];
	unsigned nbound;
	bool view_noted;           /* the note that binds fall back to the basename */
};

int cw_net_state_new(struct cw_net_state **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void cw_net_state_free(struct cw_net_state *ns)
{
	if (!ns)
		return;
	if (ns->sets_ready) {
		cw_hmap_free(&ns->tree_inet);
		cw_hmap_free(&ns->made);
	}
	free(ns);
}

static void sets_init(struct cw_net_state *ns)
{
	if (ns->sets_ready)
		return;
	struct cw_hash_key hk;
	cw_hash_key_random(&hk);
	cw_hmap_init(&ns->tree_inet, &hk, sizeof(uint64_t), 0, 0);
	cw_hmap_init(&ns->made, &hk, 2 * sizeof(uint64_t), 0, 0);
	ns->sets_ready = true;
}

/* ---- the tree's own inet sockets; ports held outside (e125) ----
 *
 * Every inet socket capwatch bound or listened on for the tree, by sockfs
 * inode: a growing set (a socket forgotten would count as outside, which
 * refuses, never allows). */
static bool tree_inet_has(struct cw_net_state *ns, ino_t ino)
{
	uint64_t k = (uint64_t)ino;
	return ns->sets_ready && cw_hmap_find(&ns->tree_inet, &k, sizeof(k));
}

void cw_net_remember_inet(struct cw_net_state *ns, int sock)
{
	struct stat st;
	if (fstat(sock, &st) < 0)
		return;
	sets_init(ns);
	uint64_t k = (uint64_t)st.st_ino;
	cw_hmap_insert(&ns->tree_inet, &k, sizeof(k), NULL); /* ENOMEM: counts as outside */
}

bool cw_net_inet_family(sa_family_t f)
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
static int port_held_outside(struct cw_net_state *ns, pid_t tid, bool stream, unsigned port)
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
			if (!tree_inet_has(ns, (ino_t)ino)) {
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

/* Rewrite the wildcard address A (0.0.0.0, ::, ::ffff:0.0.0.0) to the
 * loopback address of its kind, port kept. false: not inet. */
bool cw_net_loopback_of(struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET) {
		((struct sockaddr_in *)a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return true;
	}
	if (a->ss_family != AF_INET6)
		return false;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)a;
	bool mapped = IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr);
	s6->sin6_addr = in6addr_loopback;
	if (mapped) { /* ::ffff:0.0.0.0 -> ::ffff:127.0.0.1 */
		memset(&s6->sin6_addr, 0, sizeof(s6->sin6_addr));
		s6->sin6_addr.s6_addr[10] = s6->sin6_addr.s6_addr[11] = 0xff;
		s6->sin6_addr.s6_addr[12] = 127;
		s6->sin6_addr.s6_addr[15] = 1;
	}
	return true;
}

#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76
#endif

/* An unbound unix socket that passes credentials is autobound by the
 * kernel to an abstract name "\0xxxxx" at its first connect (dgram and
 * stream, to a well-formed unix name, before the peer is looked up: a
 * refused connect keeps the name) and at any send (unix_dgram_sendmsg,
 * once a name it was given is well formed, before the peer is looked up
 * or found missing, ENOTCONN): unix_may_passcred() is
 * SO_PASSCRED or SO_PASSPIDFD (SO_PASSSEC is not). Any process of the
 * network namespace can then send to the name. An option that cannot be
 * read (SO_PASSPIDFD before Linux 6.5) is off. */
bool cw_net_unix_autobinds(int sock)
{
	int dom = -1, on = 0;
	socklen_t l = sizeof(dom);
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 || dom != AF_UNIX)
		return false;
	l = sizeof(on);
	if (getsockopt(sock, SOL_SOCKET, SO_PASSCRED, &on, &l) < 0 || !on) {
		on = 0;
		l = sizeof(on);
		if (getsockopt(sock, SOL_SOCKET, SO_PASSPIDFD, &on, &l) < 0 || !on)
			return false;
	}
	struct sockaddr_storage a;
	socklen_t al = sizeof(a);
	/* Unbound: a name of sa_family_t only. Unreadable: assume unbound. */
	return getsockname(sock, (struct sockaddr *)&a, &al) < 0 || al <= sizeof(sa_family_t);
}

/* Is the socket bound to the loopback device (SO_BINDTODEVICE "lo")? */
static bool on_lo_device(int sock)
{
	char dev[IFNAMSIZ + 1] = "";
	socklen_t l = IFNAMSIZ;
	return getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &l) == 0 && strcmp(dev, "lo") == 0;
}

/* Restrict D to the loopback device before a wildcard bind decided as
 * loopback (net.c, bind_wildcard_on_loopback). true when D is on lo now.
 * The tree cannot set another device: changing one once set needs
 * CAP_NET_RAW (sock_bindtoindex_locked), and SO_BINDTODEVICE and
 * SO_BINDTOIFINDEX are decided as `unrestricted` (reroute_option), which
 * a profile that denies host_visible_binding denies. But the kernel
 * clears it at a UDP disconnect (__udp_disconnect: sk_bound_dev_if = 0;
 * TCP keeps it): connect(AF_UNSPEC) puts it back
 * (cw_net_disconnect_on_lo, red team 20, F1). false when D is
 * bound to another device already (a device option the profile let
 * through) or the kernel refuses (before 5.7 unprivileged sockets could
 * not set it): the caller then binds the loopback address itself, the
 * behaviour before: reachable from lo only, whatever the device. */
static bool restrict_to_lo(int d)
{
	char dev[IFNAMSIZ + 1] = "";
	socklen_t l = IFNAMSIZ;
	if (getsockopt(d, SOL_SOCKET, SO_BINDTODEVICE, dev, &l) < 0)
		return false;
	if (dev[0])
		return strcmp(dev, "lo") == 0;
	return setsockopt(d, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3) == 0 && on_lo_device(d);
}

/* ---- a UDP disconnect keeps the loopback device (red team 20, F1) ----
 *
 * connect(AF_UNSPEC) of a UDP socket runs __udp_disconnect, which clears
 * the device binding: a wildcard bind capwatch restricted to lo (above)
 * would be left on 0.0.0.0:PORT ([::]:PORT, the port is kept when it was
 * bound explicitly) on every interface. capwatch performs the disconnect
 * on its duplicate and sets the device again at once. Between the two a
 * datagram from another interface could be queued: a socket filter that
 * drops what did not arrive on that device (SKF_AD_IFINDEX) guards the
 * socket first, locked (SO_LOCK_FILTER) so that another thread of the
 * tree cannot swap it out meanwhile. It stays: on a socket bound to lo
 * it drops nothing, and the lock cannot be undone. A socket that has a
 * filter of its own, or a lock, cannot be guarded: its disconnect is
 * refused with EPERM (a profile that allows host_visible_binding never
 * restricts a socket to lo, so never gets here). */
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif
#define GUARD_LEN 4

static void guard_prog(struct sock_filter g[GUARD_LEN], uint32_t ifindex)
{
	g[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_IFINDEX));
	g[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ifindex, 0, 1);
	g[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffffu);
	g[3] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
}

/* The socket's filter is exactly G. */
static bool guard_attached(int d, const struct sock_filter g[GUARD_LEN])
{
	struct sock_filter cur[GUARD_LEN];
	socklen_t l = GUARD_LEN; /* in instructions: longer ones fail EINVAL */
	return getsockopt(d, SOL_SOCKET, SO_GET_FILTER, cur, &l) == 0 && l == GUARD_LEN &&
	       memcmp(cur, g, sizeof(cur)) == 0;
}

/* Attach and lock G on D, which must have no filter and no lock. */
static int guard_attach(int d, const struct sock_filter g[GUARD_LEN])
{
	int locked = 0;
	socklen_t l = sizeof(locked);
	if (getsockopt(d, SOL_SOCKET, SO_LOCK_FILTER, &locked, &l) < 0 || locked)
		return -EPERM;
	l = 0; /* the length of a filter already there, in instructions */
	if (getsockopt(d, SOL_SOCKET, SO_GET_FILTER, NULL, &l) < 0 || l != 0)
		return -EPERM;
	struct sock_fprog fp = { .len = GUARD_LEN, .filter = (struct sock_filter *)g };
	int one = 1;
	if (setsockopt(d, SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof(fp)) < 0 ||
	    setsockopt(d, SOL_SOCKET, SO_LOCK_FILTER, &one, sizeof(one)) < 0)
		return -EPERM;
	/* Another thread may have attached its own between the two. */
	return guard_attached(d, g) ? 0 : -EPERM;
}

static bool udp_on_lo(int d, uint32_t *ifindex)
{
	int dom = 0, idx = 0;
	socklen_t l = sizeof(dom);
	if (cw_net_sock_type(d) != SOCK_DGRAM || getsockopt(d, SOL_SOCKET, SO_DOMAIN, &dom, &l) < 0 ||
	    !cw_net_inet_family((sa_family_t)dom) || !on_lo_device(d))
		return false;
	l = sizeof(idx);
	if (getsockopt(d, SOL_SOCKET, SO_BINDTOIFINDEX, &idx, &l) < 0 || idx <= 0)
		return false;
	*ifindex = (uint32_t)idx;
	return true;
}

/* connect(AF_UNSPEC) of the duplicate D with C's address. *DONE: false
 * when D is no UDP socket on lo (the caller connects as for any other
 * address). 0 or -errno. */
int cw_net_disconnect_on_lo(struct cw_notif *n, const struct cw_net_call *c, int d, bool *done)
{
	uint32_t idx;
	*done = false;
	if (!udp_on_lo(d, &idx))
		return 0;
	*done = true;
	struct sock_filter g[GUARD_LEN];
	guard_prog(g, idx);
	int r = guard_attach(d, g);
	if (r < 0) {
		cw_record_note(n->run, n->tgid, "info",
			       "a disconnect (connect AF_UNSPEC) of a UDP socket on the loopback device is "
			       "refused: the socket has a filter of its own, so capwatch cannot keep it on lo "
			       "while the kernel clears the device");
		return r;
	}
	r = connect(d, (const struct sockaddr *)&c->addr, c->addrlen) < 0 ? -errno : 0;
	int v = (int)idx;
	if (setsockopt(d, SOL_SOCKET, SO_BINDTOIFINDEX, &v, sizeof(v)) < 0)
		cw_warn("a UDP socket could not be put back on lo after a disconnect (%s): its filter "
			"still drops what arrives on other devices", strerror(errno));
	return r;
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
int cw_net_bind_inet(struct cw_notif *n, const struct cw_net_call *c, int d)
{
	int type = cw_net_sock_type(d);
	if (type < 0)
		return type;
	bool shared = (type == SOCK_STREAM || type == SOCK_DGRAM) && shares_port(d, type);
	unsigned port = inet_port(&c->addr);
	if (shared && port != 0) {
		int h = port_held_outside(n->run->net_state, n->tid, type == SOCK_STREAM, port);
		if (h != 0) {
			char scope[96]; /* decided and recorded before we return */
			char a[80];
			format_inet(&c->addr, a, sizeof(a));
			snprintf(scope, sizeof(scope), "SO_REUSEPORT %s", a);
			if (cw_net_decide_reroute(n, scope, port) < 0)
				return -EADDRINUSE;
		}
	}
	const struct sockaddr_storage *ba = &c->addr;
	if (c->on_lo && !restrict_to_lo(d))
		ba = &c->lo;
	struct reuse_saved sv = { .cleared = false };
	if (shared && port == 0)
		reuse_clear(d, &sv);
	int r = bind(d, (const struct sockaddr *)ba, c->addrlen) < 0 ? -errno : 0;
	reuse_restore(d, &sv);
	if (r == 0)
		cw_net_remember_inet(n->run->net_state, d);
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
bool cw_net_dest_local(const struct sockaddr_storage *a, socklen_t len, bool *v4)
{
	*v4 = false;
	if (a->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		uint32_t h = ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr);
		*v4 = true;
		return (h >> 24) == 127 || h == 0;
	}
	if (a->ss_family == AF_INET6 && len >= CW_SIN6_MIN_LEN) {
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
int cw_net_prebind_datagram(struct cw_net_state *ns, int d, bool local, bool v4)
{
	if (cw_net_sock_type(d) != SOCK_DGRAM)
		return 0;
	struct sockaddr_storage me;
	socklen_t ml = sizeof(me);
	memset(&me, 0, sizeof(me));
	if (getsockname(d, (struct sockaddr *)&me, &ml) < 0)
		return -errno;
	if (!cw_net_inet_family(me.ss_family) || inet_port(&me) != 0)
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
		cw_net_remember_inet(ns, d);
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
int cw_net_check_addr(const struct sockaddr_storage *a, uint64_t len)
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

/* Unix names: policy/addr.h's extractor (cw_addr_unix_path) and builder
 * (cw_addr_unix_set), the same as the trace's and the profile's. */
#define UNIX_NAME_MAX (CW_UNIX_PATH_MAX + 1)

static int unix_path(const struct sockaddr_storage *a, socklen_t len, char out[UNIX_NAME_MAX])
{
	return cw_addr_unix_path((const struct sockaddr *)a, len, out);
}

static void set_unix_path(struct sockaddr_storage *a, socklen_t *len, const char *path, size_t l)
{
	int al = cw_addr_unix_set(a, path, l); /* L fits: checked by every caller */
	if (al > 0)
		*len = (socklen_t)al;
}

/* An AF_UNIX path is looked up like a file: relative to the caller's cwd,
 * through symlinks (a workspace name can point at /var/run/docker.sock).
 * Decide on where it leads: rewrite the copied address with the resolved
 * path. bind() creates the name, so its last component is not followed. */
static int resolve_unix(struct cw_notif *n, struct cw_net_call *c, bool follow)
{
	char name[UNIX_NAME_MAX];
	c->rawlen = 0;
	if (unix_path(&c->addr, c->addrlen, name) < 0)
		return 0; /* unnamed or abstract: no file */
	if (!follow) { /* a bind: the name as given is the name recorded */
		memcpy(&c->raw, &c->addr, c->addrlen);
		c->rawlen = c->addrlen;
	}
	struct cw_resolved *r = &c->res;
	int e = cw_resolve_path(n->run->links, n->tid, n->tgid, AT_FDCWD, name, follow ? 0 : CW_RES_NOFOLLOW, r);
	if (e < 0)
		return e;
	size_t len = strlen(r->path);
	if (len > CW_UNIX_PATH_MAX)
		return -EACCES; /* cannot name it in an address: fail closed */
	set_unix_path(&c->addr, &c->addrlen, r->path, len);
	return 0;
}

int cw_net_missing_unix_path(const struct cw_net_call *c)
{
	char p[UNIX_NAME_MAX];
	if (unix_path(&c->addr, c->addrlen, p) < 0 || p[0] != '/')
		return 0;
	struct stat st;
	if (stat(p, &st) < 0 && (errno == ENOENT || errno == ENOTDIR))
		return errno;
	return 0;
}

int cw_net_read_addr(struct cw_notif *n, struct cw_net_call *c, uint64_t ptr, uint64_t len, bool follow)
{
	if (len > sizeof(c->addr) || len < sizeof(sa_family_t))
		return -EINVAL; /* before reading: check_addr again on the copy */
	memset(&c->addr, 0, sizeof(c->addr));
	int e = cw_mem_read(n->tid, ptr, &c->addr, (size_t)len);
	if (e < 0)
		return e;
	e = cw_net_check_addr(&c->addr, len);
	if (e < 0)
		return e;
	c->addrlen = (socklen_t)len;
	return resolve_unix(n, c, follow);
}

/* The target's socket, duplicated into capwatch (same open file): what the
 * target's fd number names can no longer be swapped by another thread's
 * dup2 between the decision and the operation. */
int cw_net_dup_socket(struct cw_notif *n, int fd)
{
	return cw_dup_target_fd(n, fd);
}

static void bound_path(struct cw_net_state *ns, struct cw_net_call *c, int sock);

/* The address a listen() will expose: getsockname on a duplicate of the
 * target's socket (an unbound socket autobinds to the wildcard, K20). */
int cw_net_listen_addr(struct cw_notif *n, struct cw_net_call *c, int fd)
{
	int sfd = cw_net_dup_socket(n, fd);
	if (sfd < 0)
		return sfd;
	c->held_sock = sfd;
	c->addrlen = sizeof(c->addr);
	memset(&c->addr, 0, sizeof(c->addr));
	if (getsockname(sfd, (struct sockaddr *)&c->addr, &c->addrlen) < 0)
		return -errno; /* ENOTSOCK for a file */
	/* A 108-byte unix name comes back with the NUL the kernel added
	 * (111 bytes): the same name as a checked address of 110. */
	if (c->addr.ss_family == AF_UNIX && c->addrlen > sizeof(struct sockaddr_un))
		c->addrlen = sizeof(struct sockaddr_un);
	/* A wildcard bound on the loopback device (a wildcard bind capwatch
	 * performed there, bind_wildcard_on_loopback) exposes what loopback
	 * does: decided as the loopback address. */
	if (cw_net_inet_family(c->addr.ss_family) &&
	    cw_addr_classify((const struct sockaddr *)&c->addr, c->addrlen) == CW_ADDR_ANY && on_lo_device(sfd))
		cw_net_loopback_of(&c->addr);
	bound_path(n->run->net_state, c, sfd);
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

bool cw_net_is_unix_path(const struct sockaddr_storage *a, socklen_t len)
{
	return unix_path(a, len, NULL) >= 0;
}

/* connect/sendto to a pathname socket: open the decided path O_PATH
 * without following any symlink (one swapped in after the decision makes
 * this fail, ELOOP), check that it is a socket, and rewrite A to
 * "/proc/self/fd/PIN": the kernel's lookup of that name lands on the
 * pinned inode whatever happens to the path. *PIN is the O_PATH fd; the
 * caller closes it after the call. */
static bool made_by_tree(const struct cw_net_state *ns, const struct stat *st);

/* FOREIGN_OK: the decision knew the socket file was not made by the tree
 * (op.alias); when it did not, a file swapped in since is refused as the
 * kernel refuses a name with no listener behind it. */
int cw_net_pin_unix(struct cw_notif *n, struct sockaddr_storage *a, socklen_t *len, int *pin,
		    bool foreign_ok)
{
	char path[UNIX_NAME_MAX];
	*pin = -1;
	if (unix_path(a, *len, path) < 0)
		return 0;
	if (!same_fsids(n->tid))
		return -EACCES;
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
	if (!foreign_ok && !made_by_tree(n->run->net_state, &st))
		return -ECONNREFUSED;
	char self[32];
	int l = snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	set_unix_path(a, len, self, (size_t)l);
	*pin = steal_fd(&fd);
	return 0;
}

/* bind to a pathname: the kernel creates the socket file. A name without
 * a directory part (or the basename, as a fallback) is bound in a thread
 * of its own fs context (unshare(CLONE_FS): cwd and umask are per
 * fs_struct): it changes into the decided parent directory, opened
 * without following symlinks, takes the target's umask, and binds. */
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


/* Every socket file the tree created in this run (E48), by (dev, ino): a
 * growing set (sets_init), unlike the ring above, since a file forgotten
 * would turn its own server into an outside one. */
static bool made_by_tree(const struct cw_net_state *ns, const struct stat *st)
{
	uint64_t k[2] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
	return ns->sets_ready && cw_hmap_find(&ns->made, k, sizeof(k));
}

static void remember_made(struct cw_net_state *ns, const struct stat *st)
{
	sets_init(ns);
	uint64_t k[2] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
	/* ENOMEM: then its server counts as outside: a denial, not a leak */
	cw_hmap_insert(&ns->made, k, sizeof(k), NULL);
}

/* E48: a pathname socket whose file the tree did not create in this run
 * has a server capwatch never saw start, a process outside supervision
 * (or from before the run): what it sends back is not decided (SCM_RIGHTS
 * descriptors of files outside the workspace arrive with no open). Such a
 * server is decided as the policy decides one outside the workspace,
 * process_control, wherever its name is: op.alias says so. The decision's
 * stat is re-checked on the pinned inode (pin_unix). */
const char *cw_net_unix_alias(const struct cw_net_state *ns, const struct sockaddr_storage *a, socklen_t len)
{
	char path[UNIX_NAME_MAX];
	struct stat st;
	if (unix_path(a, len, path) < 0)
		return NULL;
	if (path[0] != '/' || stat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || made_by_tree(ns, &st))
		return NULL;
	return "socket file from outside the run";
}

static void remember_bound(struct cw_net_state *ns, int sock, int dir, const char *base, const char *path)
{
	struct stat st, f;
	if (fstat(sock, &st) < 0)
		return;
	struct bound_unix *b = &ns->bound[ns->nbound++ % CW_ARRAY_SIZE(ns->bound)];
	b->sock = st.st_ino;
	b->fdev = 0;
	b->fino = 0;
	if (fstatat(dir, base, &f, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(f.st_mode)) {
		b->fdev = f.st_dev;
		b->fino = f.st_ino;
		remember_made(ns, &f);
	}
	snprintf(b->path, sizeof(b->path), "%s", path);
}

/* listen() on a unix socket bound by capwatch: decide on the full path. */
static void bound_path(struct cw_net_state *ns, struct cw_net_call *c, int sock)
{
	struct stat st;
	if (c->addr.ss_family != AF_UNIX || !cw_net_is_unix_path(&c->addr, c->addrlen) || fstat(sock, &st) < 0)
		return;
	for (unsigned i = 0; i < CW_ARRAY_SIZE(ns->bound) && i < ns->nbound; i++) {
		const struct bound_unix *b = &ns->bound[i];
		if (b->sock != st.st_ino || !b->path[0])
			continue;
		set_unix_path(&c->addr, &c->addrlen, b->path, strlen(b->path));
		return;
	}
}

/* The name the kernel records is the one bind() is given: the caller's
 * own (C->raw), bound in the decided directory. A name without a '/' is
 * bound from that directory as it is (bind_worker); one with a directory
 * part in a private view where it leads there (net_unix_bind.c). Where no
 * such view can be built (no user namespaces, a path whose lexical walk
 * would look a name up in the held directory), the basename is bound from
 * the directory, as before: getsockname() then says "name", and a note
 * says so once. */
static bool has_slash(const struct sockaddr_storage *a, socklen_t len)
{
	char p[UNIX_NAME_MAX];
	return unix_path(a, len, p) >= 0 && strchr(p, '/') != NULL;
}

/* The last component of the unix name in A is BASE. */
static bool same_basename(const struct sockaddr_storage *a, socklen_t len, const char *base)
{
	char p[UNIX_NAME_MAX];
	if (unix_path(a, len, p) < 0)
		return false;
	const char *s = strrchr(p, '/');
	return strcmp(s ? s + 1 : p, base) == 0;
}

int cw_net_bind_unix_path(struct cw_notif *n, const struct cw_net_call *c, int sock)
{
	char path[UNIX_NAME_MAX];
	if (!same_fsids(n->tid))
		return -EACCES;
	if (unix_path(&c->addr, c->addrlen, path) < 0)
		return -EINVAL;
	char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1] || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0)
		return -EINVAL;
	struct bind_job j = { .sock = sock, .umask = cw_target_umask(n->tid) };
	j.sa.sun_family = AF_UNIX;
	size_t bl = strlen(slash + 1);
	memcpy(j.sa.sun_path, slash + 1, bl); /* shorter than the path it came from */
	j.len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + bl + 1);
	char base[UNIX_NAME_MAX];
	memcpy(base, slash + 1, bl + 1);
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
	bool raw_ok = c->rawlen && same_basename(&c->raw, c->rawlen, base);
	bool done = false;
	int r = 0;
	if (raw_ok && has_slash(&c->raw, c->rawlen)) {
		r = cw_net_bind_in_view(sock, dir, &c->raw, c->rawlen, j.umask, &done);
		if (!done && !n->run->net_state->view_noted) {
			n->run->net_state->view_noted = true;
			cw_record_note(n->run, n->tgid, "info",
				    "a unix bind is performed with the basename of the name the command gave "
				    "(getsockname() says \"%s\"): %s (%s)", base,
				    r == -ELOOP ? "the name looks a name up inside the directory it binds in"
						: "no private mount view could be built here",
				    strerror(-r));
		}
	} else if (raw_ok) {
		memcpy(&j.sa, &c->raw, c->rawlen); /* a name in the cwd: as given */
		j.len = c->rawlen;
	}
	if (!done) {
		pthread_t th;
		int e = pthread_create(&th, NULL, bind_worker, &j);
		if (e)
			return -EAGAIN;
		pthread_join(th, NULL);
		r = -j.err;
	}
	if (r == 0) {
		if (slash != path)
			*slash = '/';
		remember_bound(n->run->net_state, sock, dir, base, path);
	}
	return r;
}

int cw_net_sock_type(int fd)
{
	int t = 0;
	socklen_t l = sizeof(t);
	return getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l) < 0 ? -errno : t;
}

