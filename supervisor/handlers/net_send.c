/* The network family's sends (see net.c and net_impl.h): sendto, sendmsg
 * and sendmmsg performed by capwatch on a duplicate of the target's
 * socket, with its own copies of the payload and control data. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/seccomp.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/net_impl.h"
#include "supervisor/state.h"
#include "supervisor/util.h"


/* ---- sendto, sendmsg, sendmmsg: the payload copied, sent by capwatch ---- */

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

struct cw_send_job {
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

static void send_job_free(struct cw_send_job *j)
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
		const char *rr = cw_net_reroute_cmsg(c->cmsg_level, c->cmsg_type);
		if (rr && c->cmsg_len > CMSG_LEN(0)) {
			int e = cw_net_decide_reroute(n, rr, c->cmsg_type);
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
			struct cw_target_status ts;
			if (n->run->kernel_reads && cw_target_status(n->tid, &ts) == 0) {
				/* In the tree's own PID namespace it claims its
				 * number there (capwatch has none there). */
				if (uc.pid == ts.ns_tgid)
					uc.pid = n->tgid;
				else if (uc.pid == n->tgid)
					uc.pid = 0; /* a number of capwatch's view: not its own */
			}
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
		if (pfd < 0 && (pfd = cw_target_pidfd(n)) < 0)
			return pfd;
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
static bool step_send_job(struct cw_send_job *j, bool dontwait, int64_t *res)
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
	struct cw_answer a = { .kind = r < 0 ? CW_ANSWER_ERROR : CW_ANSWER_VALUE, .err = r < 0 ? (int)-r : 0,
			       .val = r < 0 ? 0 : r };
	cw_answer_send_late(listener, id, &a); /* ENOENT: the target died */
}

static void *send_worker(void *arg)
{
	struct cw_send_job *j = arg;
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
int cw_net_perform_send(struct cw_notif *n, struct cw_send_job *j)
{
	int fl = fcntl(j->fd, F_GETFL);
	bool blocking = !(j->flags & MSG_DONTWAIT) && !(fl >= 0 && (fl & O_NONBLOCK));
	int64_t r;
	if (step_send_job(j, blocking, &r)) {
		send_job_free(j);
		if (r < 0)
			cw_answer_error(n, (int)-r);
		else
			cw_answer_value(n, r);
		return r < 0 ? (int)-r : 0;
	}
	if (cw_start_detached(send_worker, j) == 0) {
		cw_answer_later(n); /* the worker answers */
		return 0;
	}
	send_job_free(j);
	cw_answer_error(n, EAGAIN); /* no worker: refuse rather than block the loop */
	return EAGAIN;
}

/* Build the job for the current sendto/sendmsg/sendmmsg on duplicate D
 * (owned by the job from here). Returns 0 or -errno (J freed). */
int cw_net_build_send_job(struct cw_notif *n, const struct cw_net_call *c, int d, struct cw_send_job **out)
{
	int nr = n->req->data.nr;
	struct cw_send_job *j = calloc(1, sizeof(*j));
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
	unsigned cnt = j->mmsg ? c->mm_count : 1;
	j->m = calloc(cnt ? cnt : 1, sizeof(*j->m));
	if (!j->m) {
		send_job_free(j);
		return -ENOMEM;
	}
	int t = cw_net_sock_type(d);
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
			m->name = c->addr;
			m->namelen = c->addrlen;
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
			if (c->mh.msg_name && c->mh.msg_namelen) {
				m->name = c->addr;
				m->namelen = c->addrlen;
			}
			e = copy_msg(n, &c->mh, stream, m);
		} else {
			m->name = c->mm_name[i];
			m->namelen = c->mm_namelen[i];
			m->lenaddr = arg_u64(n, 1) + (uint64_t)i * sizeof(struct mmsghdr) +
				     offsetof(struct mmsghdr, msg_len);
			e = copy_msg(n, &c->mm_hdr[i].msg_hdr, stream, m);
		}
		if (e == 0)
			e = cw_net_pin_unix(n, &m->name, &m->namelen, &m->pin,
				     j->mmsg ? c->mm_foreign[i] : c->foreign);
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

