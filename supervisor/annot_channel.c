/* The preload channel: receiving, validating, rate limiting and storing
 * what the command sends (see annot.h and preload/proto.h).
 *
 * Trust model: every byte read here comes from the supervised command. A
 * message is only ever an annotation of an event the kernel showed us
 *   - attributed to the pid the kernel puts in SCM_CREDENTIALS, never to a
 *     pid the message claims (the claimed tid is accepted only when it is a
 *     thread of that pid);
 *   - validated field by field, with fixed caps, and exactly as long as its
 *     header says (a truncated datagram, MSG_TRUNC, is rejected whole);
 *   - rate-limited per pid (token bucket) and per wake-up, so a flood costs
 *     the supervisor a bounded amount of work and the kernel's queue bound
 *     (the sender never blocks: MSG_DONTWAIT) caps memory in flight;
 *   - stored in fixed-size rings: memory does not grow with the run.
 * Forged, truncated and flooded messages are counted (report
 * stats.annotations) and flagged with a "note" trace event; they never
 * reach cw_policy_decide(), which has already run when cw_annot_attach()
 * looks anything up. A root target can forge the SCM_CREDENTIALS pid
 * (CAP_SYS_ADMIN): it can then only mislabel annotations (SECURITY.md). */
#include "config.h"
#include <errno.h>
#include <stddef.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "supervisor/annot.h"
#include "supervisor/annot_impl.h"
#include "supervisor/ptrace.h"
#include "supervisor/kernel.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "preload/proto.h"

/* Notes about bad senders, at most this many per run (a fork storm of
 * misbehaving processes must not flood the trace or the terminal). */
#define NOTES_MAX 32

static bool note_allowed(struct cw_run *run)
{
	struct cw_annot *an = run->annot;
	if (an->notes_written > NOTES_MAX)
		return false;
	if (an->notes_written++ == NOTES_MAX) {
		cw_record_note(run, 0, "warning",
			    "preload channel: more bad annotations; from now on they are only counted (stats.annotations)");
		return false;
	}
	return true;
}

void cw_annot_get_stats(const struct cw_run *run, struct cw_annot_stats *st)
{
	if (run->annot)
		*st = run->annot->stats;
	else
		*st = (struct cw_annot_stats){ 0 };
}

void cw_annot_report(struct cw_run *run)
{
	if (!run->annot || !run->annot->enabled || !run->report)
		return;
	cw_annot_drain(run);
	const struct cw_annot_stats *st = &run->annot->stats;
	struct cw_report_annotations a = {
		.received = st->received, .accepted = st->accepted, .malformed = st->malformed,
		.flooded = st->flooded, .unattributed = st->unattributed, .attached = st->attached,
	};
	cw_report_set_annotations(run->report, &a);
}

/* ---- rate limiting ---- */

/* The bucket of PID; NULL only when memory ran out (the message is then
 * taken as flooding: dropped, never trusted more). */
static struct bucket *bucket_for(struct cw_annot *an, pid_t pid, double now)
{
	struct bucket *b;
	int r = cw_hmap_insert(&an->buckets, &pid, sizeof(pid), (void **)&b);
	if (r == -ENOSPC) {
		/* Full of pids from a fork storm: start over (more lenient,
		 * never more memory). */
		cw_hmap_clear(&an->buckets);
		r = cw_hmap_insert(&an->buckets, &pid, sizeof(pid), (void **)&b);
	}
	if (r < 0)
		return NULL;
	if (r == 1) {
		b->tokens = BURST;
		b->last = now;
	}
	return b;
}

/* ---- validation ---- */

static bool host_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_';
}

/* Returns NULL when M is well-formed, else why not. */
static const char *validate(const unsigned char *buf, size_t len, struct cw_annot_hdr *h)
{
	if (len < sizeof(*h))
		return "shorter than its header";
	memcpy(h, buf, sizeof(*h));
	if (h->magic != CW_ANNOT_MAGIC)
		return "bad magic";
	if (h->type < CW_ANNOT_HELLO || h->type > CW_ANNOT__MAX)
		return "unknown type";
	if (h->func >= CW_AF__COUNT)
		return "unknown function";
	if (h->nframes > CW_ANNOT_MAX_FRAMES || h->naddrs > CW_ANNOT_MAX_ADDRS ||
	    h->namelen > CW_ANNOT_MAX_NAME || h->textlen > CW_ANNOT_MAX_TEXT ||
	    h->rawlen > CW_ANNOT_MAX_RAW)
		return "a field over its limit";
	if ((h->flags & ~CW_ANNOT_F_CALLSITE_ONLY) || h->reserved)
		return "unknown flags";
	size_t want = sizeof(*h) + (size_t)h->nframes * 8 + (size_t)h->naddrs * sizeof(struct cw_annot_addr) +
		      h->rawlen + h->namelen + h->textlen;
	if (want != len)
		return "length does not match its header";
	const unsigned char *p = buf + sizeof(*h) + (size_t)h->nframes * 8;
	for (unsigned i = 0; i < h->naddrs; i++) {
		struct cw_annot_addr a;
		memcpy(&a, p + i * sizeof(a), sizeof(a));
		if (a.family != AF_INET && a.family != AF_INET6)
			return "address of an unknown family";
	}
	p += (size_t)h->naddrs * sizeof(struct cw_annot_addr) + h->rawlen;
	for (unsigned i = 0; i < h->namelen; i++)
		if (!host_char(p[i]))
			return "host name with characters no host name has";
	switch (h->type) {
	case CW_ANNOT_HELLO:
		if (len != sizeof(*h))
			return "hello with a payload";
		break;
	case CW_ANNOT_RESOLVED:
		if (!h->namelen || !h->naddrs)
			return "resolution without name or address";
		break;
	case CW_ANNOT_NET:
		if (h->naddrs || h->rawlen < sizeof(sa_family_t))
			return "network annotation without its address";
		break;
	default:
		break;
	}
	return NULL;
}

static void flag_bad(struct cw_run *run, pid_t pid, struct bucket *b, const char *why)
{
	run->annot->stats.malformed++;
	if (b && b->noted_bad)
		return;
	if (b)
		b->noted_bad = true;
	if (!note_allowed(run))
		return;
	cw_record_note(run, pid, "warning",
		    "preload channel: malformed annotation from pid %d (%s): ignored; "
		    "annotations are advisory and decisions are unaffected", (int)pid, why);
}

static void store(struct cw_annot *an, const struct cw_annot_hdr *h, const unsigned char *buf, pid_t pid,
		  pid_t tid, double now)
{
	const unsigned char *p = buf + sizeof(*h);
	const unsigned char *frames = p;
	const unsigned char *addrs = p + (size_t)h->nframes * 8;
	const unsigned char *raw = addrs + (size_t)h->naddrs * sizeof(struct cw_annot_addr);
	const unsigned char *name = raw + h->rawlen;
	const unsigned char *text = name + h->namelen;

	if (h->type == CW_ANNOT_RESOLVED) {
		for (unsigned i = 0; i < h->naddrs; i++) {
			struct name_rec *r = &an->names[an->names_next++ % NAMES];
			r->tgid = pid;
			memcpy(&r->a, addrs + i * sizeof(r->a), sizeof(r->a));
			r->a.port = 0;
			memcpy(r->name, name, h->namelen);
			r->name[h->namelen] = '\0';
		}
		return;
	}
	struct ann *a = &an->ring[an->ring_next++ % RING];
	memset(a, 0, offsetof(struct ann, frames));
	a->valid = true;
	a->tgid = pid;
	a->tid = tid;
	a->type = h->type;
	a->func = h->func;
	a->flags = h->flags;
	a->time = now;
	a->nframes = h->nframes;
	memcpy(a->frames, frames, (size_t)h->nframes * 8);
	if (h->rawlen >= sizeof(sa_family_t)) {
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, raw, h->rawlen);
		a->unix_dest = ss.ss_family == AF_UNIX;
		if (ss.ss_family == AF_INET && h->rawlen >= sizeof(struct sockaddr_in)) {
			const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
			a->addr.family = AF_INET;
			a->addr.port = s4->sin_port;
			memcpy(a->addr.addr, &s4->sin_addr, 4);
			a->naddrs = 1;
		} else if (ss.ss_family == AF_INET6 && h->rawlen >= sizeof(struct sockaddr_in6)) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
			a->addr.family = AF_INET6;
			a->addr.port = s6->sin6_port;
			memcpy(a->addr.addr, &s6->sin6_addr, 16);
			a->naddrs = 1;
		}
	}
	memcpy(a->name, name, h->namelen);
	a->name[h->namelen] = '\0';
	/* The text ends at its first NUL; without one it is the part of
	 * the string up to a page end (a prefix). */
	size_t tl = strnlen((const char *)text, h->textlen);
	memcpy(a->text, text, tl);
	a->text[tl] = '\0';
	a->textlen = (uint16_t)tl;
	a->text_whole = tl < h->textlen;
}

/* ---- receiving ---- */

/* Under reads in the kernel, CLAIM (a number in the tree's namespace) is
 * no live thread of PID: is it a thread that has exited since it sent?
 * Not when it is 1 (the namespace's init) or below, nor when a live
 * process of the tree other than PID has that number (a claim for
 * another process). Threads are not listed: a claim naming a live thread
 * of another process passes as gone, and then is used for nothing (tid 0). */
static bool ns_thread_gone(struct cw_run *run, pid_t pid, pid_t claim)
{
	if (claim <= 1)
		return false;
	for (size_t i = 0; i < cw_tracker_count(run); i++) {
		const struct cw_proc *p = cw_tracker_at(run, i);
		if (p->alive && p->nspid == claim && p->pid != pid)
			return false;
	}
	return true;
}

static void receive_one(struct cw_run *run, const unsigned char *buf, size_t len, bool trunc,
			const struct ucred *cred)
{
	struct cw_annot *an = run->annot;
	double now = cw_record_time(run);
	struct cw_annot_hdr h;

	an->stats.received++;
	/* A member of the tree, alive or not: a short-lived process (a
	 * shell that runs "exit 3") is often reaped before its hello is read.
	 * A sender outside the tree can only have the channel if a member
	 * passed it on, and then can only mislabel that member's events. */
	/* Its fork, or the exec of the image that says hello, may still be
	 * queued on the kernel back end's connector: read first. */
	if (cred && cred->pid > 0 && run->kernel)
		cw_kernel_sync(run);
	if (!cred || cred->pid <= 0 || !cw_tracker_find(run, cred->pid)) {
		/* No kernel-attested sender of the tree: nothing to attach
		 * it to. */
		an->stats.unattributed++;
		if (!an->noted_unattributed && note_allowed(run)) {
			an->noted_unattributed = true;
			cw_record_note(run, 0, "warning",
				    "preload channel: annotation from a sender outside the supervised tree (pid %d): ignored",
				    cred ? (int)cred->pid : 0);
		}
		return;
	}
	pid_t pid = cred->pid;
	struct bucket *b = bucket_for(an, pid, now);
	if (!b) {
		an->stats.flooded++;
		return;
	}
	b->tokens += (now - b->last) * RATE;
	if (b->tokens > BURST)
		b->tokens = BURST;
	b->last = now;
	if (b->tokens < 1.0) {
		an->stats.flooded++;
		b->dropped++;
		if (!b->noted_flood) {
			b->noted_flood = true;
			/* A busy honest program gets here too: an info note,
			 * a few per run at most. */
			if (an->flood_notes++ < NOTES_MAX)
				cw_record_note(run, pid, "info",
				    "preload channel: pid %d exceeds %g annotations/s; the excess is dropped",
				    (int)pid, RATE);
		}
		return;
	}
	b->tokens -= 1.0;
	if (trunc) {
		flag_bad(run, pid, b, "truncated: longer than any valid annotation");
		return;
	}
	const char *why = validate(buf, len, &h);
	if (why) {
		flag_bad(run, pid, b, why);
		return;
	}
	/* The tid is the sender's claim: accepted only for a thread of the
	 * kernel-attested process. */
	pid_t tid = h.tid;
	bool gone = false;
	if (run->kernel_reads) {
		/* The tree numbers in its own namespace; the process may be
		 * gone by now (its number was noted at its fork). */
		struct cw_proc *pp = cw_tracker_find(run, pid);
		pid_t claim = tid;
		tid = pp && pp->nspid == claim ? pid : cw_kernel_host_tid(pid, claim);
		gone = tid < 0 && ns_thread_gone(run, pid, claim);
	}
	if (tid != pid && !gone) {
		struct cw_proc *t = cw_tracker_find(run, tid);
		/* The kernel back end lists processes, not threads: a thread
		 * of PID is one of its /proc/PID/task entries. */
		char tp[64];
		snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)pid, (int)tid);
		bool thread_of = t ? t->tgid == pid : run->kernel && tid > 0 && access(tp, F_OK) == 0;
		/* Or one that has exited since it sent (a thread that resolved
		 * a name and ended; and under reads in the kernel, one whose
		 * calls were not notified): no task has that number now. */
		if (!thread_of && !t && run->kernel && !run->kernel_reads && tid > 1 && kill(tid, 0) < 0 &&
		    errno == ESRCH)
			gone = true;
		if (!thread_of && !gone) {
			flag_bad(run, pid, b, "claims a thread of another process");
			return;
		}
	}
	/* A thread no longer there: the process's message, no thread's (tid
	 * 0 matches no event of a thread, annot_match.c; the names it
	 * resolved and the spawns it asked for are the process's). Such a
	 * claim cannot be checked, and it cannot be used either. */
	if (gone)
		tid = 0;
	an->stats.accepted++;
	struct cw_proc *p = cw_tracker_find(run, pid);
	bool awaited = p && (!p->preload || strcmp(p->preload, "unknown") == 0);
	if (h.type == CW_ANNOT_HELLO && p && !(awaited && p->execed))
		/* Not this image's: it said hello already ("present"), has no
		 * library ("absent"), or is its parent's until its exec is
		 * read (a fork inherits the library, it says no hello). The
		 * next image's, whose exec is still to be read (with reads in
		 * the kernel, nothing notified holds a new image back). */
		b->hello_ahead = true;
	else if (awaited)
		p->preload = "present"; /* the library runs in this image */
	if (h.type != CW_ANNOT_HELLO)
		store(an, &h, buf, pid, tid, now);
}

/* Datagrams are read DRAIN_BATCH per recvmmsg (annot_impl.h): a drain
 * that finds the queue empty, or holding fewer than that, costs one
 * syscall (a recvmsg loop cost one per message plus the one answered
 * EAGAIN). */
static void drain(struct cw_run *run);

void cw_annot_drain(struct cw_run *run)
{
	struct cw_annot *an = run->annot;
	if (!an || an->sup_fd < 0)
		return;
	/* A message can bring a drain back here: receive_one reads the
	 * kernel back end's connector first, whose exec events call
	 * cw_annot_exec, which drains. The buffers are this call's: an
	 * inner recvmmsg would overwrite the messages not yet read out of
	 * them (honest ones then failed the length check, "malformed", and
	 * descriptors passed with one were closed twice). The outer drain
	 * goes on reading the queue. */
	if (an->draining)
		return;
	an->draining = true;
	drain(run);
	an->draining = false;
}

static void drain(struct cw_run *run)
{
	struct cw_annot *an = run->annot;
	struct mmsghdr mm[DRAIN_BATCH];
	struct iovec iov[DRAIN_BATCH];
	/* The buffers are the context's (annot_impl.h): filled and used
	 * within this call, under run_lock. */
	for (int done = 0; done < DRAIN_MAX;) {
		for (int i = 0; i < DRAIN_BATCH; i++) {
			iov[i] = (struct iovec){ an->drain_bufs[i], sizeof(an->drain_bufs[i]) };
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = an->drain_cms[i].b;
			mm[i].msg_hdr.msg_controllen = sizeof(an->drain_cms[i].b);
		}
		int got = recvmmsg(an->sup_fd, mm, DRAIN_BATCH, MSG_DONTWAIT | MSG_CMSG_CLOEXEC, NULL);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN: empty */
		}
		for (int i = 0; i < got; i++) {
			struct msghdr *mh = &mm[i].msg_hdr;
			size_t n = mm[i].msg_len;
			const struct ucred *cred = NULL;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
				    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred)))
					cred = (const struct ucred *)CMSG_DATA(c);
				else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
					/* Descriptors sent to us: never used, every one
					 * closed (a cap on the count would leak the rest:
					 * how many fit depends on the credentials
					 * message before them). The kernel wrote the
					 * header, within the control buffer. */
					size_t nfd = c->cmsg_len > CMSG_LEN(0) ?
						(c->cmsg_len - CMSG_LEN(0)) / sizeof(int) : 0;
					for (size_t j = 0; j < nfd; j++) {
						int fd;
						memcpy(&fd, CMSG_DATA(c) + j * sizeof(int), sizeof(fd));
						close(fd);
					}
				}
			}
			bool trunc = (mh->msg_flags & MSG_TRUNC) || n > CW_ANNOT_MAX_MSG;
			receive_one(run, an->drain_bufs[i], n, trunc, cred);
		}
		done += got;
		if (got < DRAIN_BATCH)
			return; /* the queue is empty now */
	}
}
