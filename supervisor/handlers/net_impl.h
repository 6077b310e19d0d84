#ifndef CAPWATCH_NET_IMPL_H
#define CAPWATCH_NET_IMPL_H
/* What the parts of the network family share (handlers.h has its entry
 * point): net.c (the handler; connect, bind, listen; netlink; options
 * that reroute), net_addr.c (addresses; sockets the tree bound; unix
 * pinning), net_send.c (sends). */
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include "supervisor/notify.h"
#include "supervisor/resolve.h"

/* Bounds of what capwatch copies for a send. A datagram larger than
 * SEND_MAX_DATA could not be sent by the kernel either (UDP stops at 64
 * KiB, a unix datagram at the send buffer): EMSGSIZE. A stream socket
 * gets a short count, as send() may give. Control data past the default
 * optmem_max fails ENOBUFS as in the kernel's sock_kmalloc. */
#define SEND_MAX_DATA (4u << 20)
#define SEND_MAX_CONTROL (128u << 10)
#define SEND_MAX_VLEN 1024 /* UIO_MAXIOV: sendmmsg's vlen, a msghdr's iovlen */
#define SEND_MAX_FDS 253   /* SCM_MAX_FD: descriptors in one message */

/* The call being handled: the copies the handler took and decided on,
 * used once by the enforcement. The event loop's is n->call->net
 * (handlers/scratch.h); a unit test makes its own. */
struct cw_net_call {
	struct sockaddr_storage addr;   /* the address: copied once, unix paths resolved */
	socklen_t addrlen;
	bool foreign;                   /* its unix server is outside the run (E48, op.alias) */
	/* bind: a wildcard bind the profile allows only on loopback
	 * (bind_wildcard_on_loopback): performed on ADDR restricted to the
	 * loopback device; LO is the loopback address it was decided as */
	bool on_lo;
	struct sockaddr_storage lo;
	/* bind of a unix path: the name as the target gave it (RAWLEN
	 * bytes), before resolution rewrote ADDR (net_unix_bind.c) */
	struct sockaddr_storage raw;
	socklen_t rawlen;
	int held_sock;                  /* listen, unix connect and send: the duplicate decided on, -1 */
	struct msghdr mh;               /* sendmsg: the header */
	/* sendmmsg: the headers and their (decided, resolved) names; the
	 * first one recorded */
	unsigned mm_count;
	struct mmsghdr mm_hdr[SEND_MAX_VLEN];
	struct sockaddr_storage mm_name[SEND_MAX_VLEN];
	socklen_t mm_namelen[SEND_MAX_VLEN];
	bool mm_foreign[SEND_MAX_VLEN]; /* whether each one's server is outside */
	struct sockaddr_storage first;
	socklen_t firstlen;
	struct cw_resolved res;         /* a unix path's resolution */
};

/* What the family keeps for the run (net_addr.c): the inet sockets and
 * the unix socket files the tree bound through capwatch. Hung off the
 * run (run->net_state); 0 or -ENOMEM. */
struct cw_net_state;
/* The connect worker's tick handler (net.c), installed once per run. */
void cw_net_signals_init(void);
int cw_net_state_new(struct cw_net_state **out);
void cw_net_state_free(struct cw_net_state *ns);

/* ---- net.c ---- */

/* Decide and record NAME (an option or control message that reroutes) as
 * an escape: 0 when allowed (or --observe), -EPERM when refused. */
int cw_net_decide_reroute(struct cw_notif *n, const char *name, long long flags);
/* The scope name of a control message that reroutes, or NULL. */
const char *cw_net_reroute_cmsg(int level, int type);

/* ---- net_addr.c ---- */

/* The one check of an address length read from the target: 0 or the
 * kernel's -errno for it. */
int cw_net_check_addr(const struct sockaddr_storage *a, uint64_t len);
/* Copy the address at PTR (LEN bytes, as the target gave it) of the
 * target into C, check it, and resolve a unix path in the target's
 * context (FOLLOW: its last component too). 0 or -errno. */
int cw_net_read_addr(struct cw_notif *n, struct cw_net_call *c, uint64_t ptr, uint64_t len, bool follow);
/* ENOENT/ENOTDIR when C's address is a unix path that does not exist. */
int cw_net_missing_unix_path(const struct cw_net_call *c);
/* The address listen() on the target's FD will expose, in C; the
 * duplicate is kept in C->held_sock. 0 or -errno. */
int cw_net_listen_addr(struct cw_notif *n, struct cw_net_call *c, int fd);
/* The target's socket FD duplicated into capwatch, or -errno. */
int cw_net_dup_socket(struct cw_notif *n, int fd);
int cw_net_sock_type(int fd);
bool cw_net_inet_family(sa_family_t f);
/* Is A a unix address with a pathname? */
bool cw_net_is_unix_path(const struct sockaddr_storage *a, socklen_t len);
/* The alias of a unix socket file the tree did not make (E48), or NULL. */
const char *cw_net_unix_alias(const struct cw_net_state *ns, const struct sockaddr_storage *a, socklen_t len);
/* Rewrite a unix pathname address to the inode it names now, pinned
 * (*PIN, closed by the caller). 0 or -errno. */
int cw_net_pin_unix(struct cw_notif *n, struct sockaddr_storage *a, socklen_t *len, int *pin, bool foreign_ok);
/* Would the kernel autobind SOCK to an abstract name at a connect or
 * send (an unbound unix socket with SO_PASSCRED or SO_PASSPIDFD)? */
bool cw_net_unix_autobinds(int sock);
/* Remember an inet socket capwatch bound or listened on for the tree. */
void cw_net_remember_inet(struct cw_net_state *ns, int sock);
/* Binds performed on the duplicate D with C's address: 0 or -errno. */
int cw_net_bind_inet(struct cw_notif *n, const struct cw_net_call *c, int d);
/* connect(AF_UNSPEC) of a UDP socket on lo, which keeps it there (F1).
 * *DONE false: not such a socket, nothing done. 0 or -errno. */
int cw_net_disconnect_on_lo(struct cw_notif *n, const struct cw_net_call *c, int d, bool *done);
int cw_net_bind_unix_path(struct cw_notif *n, const struct cw_net_call *c, int sock);

/* ---- net_unix_bind.c ---- */

/* Bind SOCK to the unix name RAW (RAWLEN bytes, as the caller gave it,
 * with a directory part) so that the socket file lands in the held
 * directory DIR, with UMASK (-1: capwatch's) and the calling thread's
 * capabilities, in a private view (see the file). 0 or -errno; *BUILT
 * false when no view could be built (nothing was bound). */
int cw_net_bind_in_view(int sock, int dir, const struct sockaddr_storage *raw, socklen_t rawlen, int umask,
			bool *built);
/* The wildcard A rewritten to the loopback address of its kind. */
bool cw_net_loopback_of(struct sockaddr_storage *a);
/* Is A loopback (or unspecified)? *V4: IPv4 or v4-mapped. */
bool cw_net_dest_local(const struct sockaddr_storage *a, socklen_t len, bool *v4);
/* Bind a never-bound datagram socket D before a send (e126). */
int cw_net_prebind_datagram(struct cw_net_state *ns, int d, bool local, bool v4);

/* ---- net_send.c ---- */

struct cw_send_job;
/* Build the job for the current sendto/sendmsg/sendmmsg (C's copies) on
 * the duplicate D (owned by the job from here): 0 or -errno. */
int cw_net_build_send_job(struct cw_notif *n, const struct cw_net_call *c, int d, struct cw_send_job **out);
/* Perform J (owned) and answer; the errno answered, 0 when a worker
 * answers or the send succeeded. */
int cw_net_perform_send(struct cw_notif *n, struct cw_send_job *j);

#endif
