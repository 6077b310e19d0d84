/* The network family: connect, sendto/sendmsg with an address, bind,
 * listen. The address is copied once (addrlen exactly) and decided on that
 * copy; the answer is CONTINUE for now (see enforce_continue()). */
#include "config.h"
#include <errno.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <linux/seccomp.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/run.h"
#include "supervisor/util.h"
#include "path.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static struct sockaddr_storage addr;
static socklen_t addrlen;

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
	char name[sizeof(un->sun_path) + 1];
	size_t n2 = addrlen - off;
	memcpy(name, un->sun_path, n2);
	name[n2] = '\0'; /* the kernel stops at the first NUL too */
	static struct cw_resolved r;
	int e = cw_resolve_path(n->tid, n->tgid, AT_FDCWD, name, follow ? 0 : CW_RES_NOFOLLOW, &r);
	if (e < 0)
		return e;
	size_t len = strlen(r.path);
	if (len >= sizeof(un->sun_path))
		return -EACCES; /* cannot name it in an address: fail closed */
	memset(un->sun_path, 0, sizeof(un->sun_path));
	memcpy(un->sun_path, r.path, len);
	addrlen = (socklen_t)(off + len + 1);
	return 0;
}

static int missing_unix_path(void)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&addr;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	if (un->sun_family != AF_UNIX || addrlen <= off || un->sun_path[0] != '/')
		return 0;
	char p[sizeof(un->sun_path) + 1];
	size_t n = addrlen - off;
	memcpy(p, un->sun_path, n);
	p[n] = '\0';
	struct stat st;
	if (stat(p, &st) < 0 && (errno == ENOENT || errno == ENOTDIR))
		return errno;
	return 0;
}

static int read_addr(struct cw_notif *n, uint64_t ptr, uint64_t len, bool follow)
{
	if (len > sizeof(addr))
		return -EINVAL;
	if (len < sizeof(sa_family_t))
		return -EINVAL;
	memset(&addr, 0, sizeof(addr));
	int e = cw_mem_read(n->tid, ptr, &addr, (size_t)len);
	if (e < 0)
		return e;
	addrlen = (socklen_t)len;
	return resolve_unix(n, follow);
}

/* The address a listen() will expose: getsockname on a duplicate of the
 * target's socket (an unbound socket autobinds to the wildcard, K20). */
static int listen_addr(struct cw_notif *n, int fd)
{
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL) /* before 6.9: process pidfds only */
		pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
	if (pfd < 0)
		return -errno;
	_cleanup_close_ int sfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	if (sfd < 0)
		return errno == EBADF ? -EBADF : -errno;
	addrlen = sizeof(addr);
	memset(&addr, 0, sizeof(addr));
	if (getsockname(sfd, (struct sockaddr *)&addr, &addrlen) < 0)
		return errno == ENOTSOCK ? -ENOTSOCK : -errno;
	return 0;
}

/* The target's socket, duplicated into capwatch (same open file). */
static int dup_socket(struct cw_notif *n, int fd)
{
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL)
		pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
	if (pfd < 0)
		return -errno;
	int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	return d < 0 ? -errno : d;
}

/* A connect performed for the target on a worker thread: a blocking
 * connect may take minutes, and the event loop must go on. The worker
 * touches nothing but its job and the listener (NOTIF_SEND is safe from
 * any thread); the decision and the record stay on the main thread. */
struct connect_job {
	int listener;
	uint64_t id;
	int fd;
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
	free(j);
	return NULL;
}

/* connect and bind of IPv4/IPv6 sockets are performed by capwatch on a
 * pidfd_getfd duplicate of the socket, with the address it copied and
 * decided on (kernel-notes K20): rewriting the address after the check
 * changes nothing. The call acts in the socket's own network namespace.
 * Unix sockets keep CONTINUE: their names are looked up, and permission
 * checked, with the caller's root and credentials (and the peer would
 * see capwatch's pid), so capwatch cannot stand in for the target. The
 * rest (sendto/sendmsg payloads, listen) CONTINUE: see enforce_continue(). */
static void enforce_net(struct cw_notif *n, struct cw_event *ev)
{
	int nr = n->req->data.nr;
	sa_family_t fam = addr.ss_family;
	if (!ev->enforced || (nr != __NR_connect && nr != __NR_bind) || (fam != AF_INET && fam != AF_INET6)) {
		enforce_continue(n, ev);
		return;
	}
	int d = dup_socket(n, arg_int(n, 0));
	ev->verified = true;
	if (d < 0) {
		ev->err = d == -EBADF ? EBADF : -d;
		cw_notif_error(n, ev->err);
		return;
	}
	if (nr == __NR_bind) {
		int r = bind(d, (struct sockaddr *)&addr, addrlen);
		ev->err = r < 0 ? errno : 0;
		close(d);
		if (r < 0)
			cw_notif_error(n, ev->err);
		else
			cw_notif_value(n, 0);
		return;
	}
	struct connect_job *j = malloc(sizeof(*j));
	pthread_attr_t at;
	pthread_t th;
	if (j) {
		*j = (struct connect_job){ .listener = n->run->listener, .id = n->req->id, .fd = d,
					   .addr = addr, .len = addrlen };
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 64 * 1024);
		int e = pthread_create(&th, &at, connect_worker, j);
		pthread_attr_destroy(&at);
		if (e == 0) {
			n->answered = true; /* the worker answers */
			ev->err = 0;        /* known to the worker only */
			return;
		}
		free(j);
	}
	/* No worker thread could be started: refuse (EAGAIN) rather than
	 * block the event loop in connect(). */
	close(d);
	ev->err = EAGAIN;
	cw_notif_error(n, ev->err);
}

/* sendmmsg: up to 1024 messages (UIO_MAXIOV, as the kernel caps it), each
 * with its own optional address. Every address is decided; one denial
 * denies the whole call (nothing is sent). The first denied address, or
 * else the first address, goes to the trace; the others are counted. */
static void handle_sendmmsg(struct cw_notif *n)
{
	static struct sockaddr_storage first;
	static socklen_t firstlen;
	struct cw_event ev;
	uint64_t vec = arg_u64(n, 1);
	unsigned vlen = (unsigned)(uint32_t)arg_u64(n, 2);
	bool have = false, denied = false;

	if (vlen > 1024)
		vlen = 1024;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SEND;
	for (unsigned i = 0; i < vlen && !denied; i++) {
		struct mmsghdr mm;
		int e = cw_mem_read(n->tid, vec + (uint64_t)i * sizeof(mm), &mm, sizeof(mm));
		if (e == 0 && (!mm.msg_hdr.msg_name || mm.msg_hdr.msg_namelen == 0))
			continue;
		if (e == 0)
			e = read_addr(n, (uint64_t)(uintptr_t)mm.msg_hdr.msg_name, mm.msg_hdr.msg_namelen, true);
		if (e == 0)
			e = missing_unix_path() ? -ENOENT : 0;
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		if (!cw_notif_valid(n)) {
			n->answered = true;
			return;
		}
		struct cw_event cur;
		cw_event_init(&cur, n->syscall);
		cur.op.kind = CW_OP_SEND;
		cur.op.addr = (const struct sockaddr *)&addr;
		cur.op.addrlen = addrlen;
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
		/* No addresses: a connected socket, decided at connect(). */
		cw_notif_continue(n);
		return;
	}
	if (denied)
		cw_event_deny(n, &ev);
	else
		enforce_net(n, &ev);
	cw_event_record(n, &ev);
}

/* Effective capabilities of TID ("CapEff:" in /proc/TID/status). */
static uint64_t cap_eff(pid_t tid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	_cleanup_close_ int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return ~0ull; /* unknown: assume the worst */
	ssize_t r = read(f, buf, sizeof(buf) - 1);
	if (r <= 0)
		return ~0ull;
	buf[r] = '\0';
	char *p = strstr(buf, "\nCapEff:");
	return p ? strtoull(p + 8, NULL, 16) : ~0ull;
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
		if (!mh.msg_name || mh.msg_namelen == 0) {
			/* A connected socket: its connect() was decided. Nothing
			 * recorded; this is the hot path of sendmsg users. */
			cw_notif_continue(n);
			return;
		}
		e = read_addr(n, (uint64_t)(uintptr_t)mh.msg_name, mh.msg_namelen, true);
		break;
	}
	case __NR_sendmmsg:
		handle_sendmmsg(n);
		return;
	case __NR_socket:
		handle_socket(n);
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
		return;
	}
	if (ev.op.kind == CW_OP_CONNECT || ev.op.kind == CW_OP_SEND) {
		/* A unix socket path that does not exist cannot be reached:
		 * answer as the kernel would (glibc probes nscd this way on
		 * every name lookup). Answered by us, not CONTINUEd, so a
		 * socket created meanwhile is not reached either. */
		e = missing_unix_path();
		if (e) {
			cw_notif_error(n, e);
			return;
		}
	}
	ev.op.addr = (const struct sockaddr *)&addr;
	ev.op.addrlen = addrlen;
	cw_event_finish(n, &ev, NULL, enforce_net);
}
