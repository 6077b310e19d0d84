/* Which stored annotation belongs to an event the supervisor observed
 * (see annot.h): the newest unused one of the same thread that names the
 * same address or path, a spawn's from its parent, a host name from the
 * process's (or its parent's) own resolutions. Runs after the decision:
 * nothing here is an input to cw_policy_decide(). */
#include "config.h"
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "supervisor/annot.h"
#include "supervisor/annot_impl.h"
#include "supervisor/notify.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "preload/proto.h"

/* ---- lookups ---- */

static bool addr_match(const struct cw_annot_addr *a, const struct sockaddr *sa, size_t len, bool port)
{
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in) && a->family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
		return memcmp(a->addr, &s->sin_addr, 4) == 0 && (!port || a->port == s->sin_port);
	}
	if (sa->sa_family == AF_INET6 && len >= CW_SIN6_MIN_LEN && a->family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
		return memcmp(a->addr, &s->sin6_addr, 16) == 0 && (!port || a->port == s->sin6_port);
	}
	return false;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Is the annotation's text the raw path of EV (or a prefix of it, when the
 * preload could only copy up to a page end)? */
static bool text_matches(const struct ann *a, const struct cw_event *ev)
{
	if (!ev->raw_path)
		return false;
	if (a->text_whole)
		return ev->raw_path_len == a->textlen && memcmp(ev->raw_path, a->text, a->textlen) == 0;
	return ev->raw_path_len >= a->textlen && memcmp(ev->raw_path, a->text, a->textlen) == 0;
}

static bool ann_matches(const struct ann *a, const struct cw_event *ev)
{
	const struct cw_op *op = &ev->op;
	switch (op->kind) {
	case CW_OP_CONNECT:
	case CW_OP_SEND:
		if (a->type != CW_ANNOT_NET)
			return false;
		if (a->naddrs)
			return addr_match(&a->addr, op->addr, op->addrlen, true);
		return a->unix_dest && op->addr && op->addr->sa_family == AF_UNIX;
	case CW_OP_EXEC:
		return a->type == CW_ANNOT_EXEC &&
		       (text_matches(a, ev) || (a->text_whole && op->path && strcmp(base(op->path), base(a->text)) == 0));
	case CW_OP_OPEN_READ:
	case CW_OP_OPEN_WRITE:
	case CW_OP_FS_WRITE:
	case CW_OP_RENAME:
		return a->type == CW_ANNOT_FILE && text_matches(a, ev);
	default:
		return false;
	}
}

static struct ann *find_ann(struct cw_annot *an, pid_t tgid, pid_t tid, const struct cw_event *ev)
{
	/* Newest first; the annotation was sent just before the call, so it
	 * is among the last ones of this thread. */
	for (size_t k = 0; k < RING && k < an->ring_next; k++) {
		struct ann *a = &an->ring[(an->ring_next - 1 - k) % RING];
		if (!a->valid || a->used || a->tgid != tgid || a->tid != tid)
			continue;
		if (ann_matches(a, ev))
			return a;
	}
	return NULL;
}

/* posix_spawn, system, popen: the exec happens in a child the library
 * runs; the annotation came from the parent, moments before. */
static struct ann *find_spawn(struct cw_annot *an, pid_t ppid, const struct cw_event *ev, double now)
{
	for (size_t k = 0; k < RING && k < an->ring_next; k++) {
		struct ann *a = &an->ring[(an->ring_next - 1 - k) % RING];
		if (!a->valid || a->used || a->tgid != ppid || a->type != CW_ANNOT_EXEC || now - a->time > SPAWN_WINDOW)
			continue;
		if (a->func == CW_AF_SYSTEM || a->func == CW_AF_POPEN)
			return a; /* the shell runs the command text */
		if ((a->func == CW_AF_POSIX_SPAWN || a->func == CW_AF_POSIX_SPAWNP) && ann_matches(a, ev))
			return a;
	}
	return NULL;
}

/* The newest name TGID resolved to this address; else one its parent
 * resolved (a child forked after the lookup). */
static const char *find_host(const struct cw_annot *an, pid_t tgid, pid_t ppid, const struct sockaddr *sa,
			     size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		pid_t who = pass ? ppid : tgid;
		if (who <= 0)
			continue;
		for (size_t k = 0; k < NAMES && k < an->names_next; k++) {
			const struct name_rec *r = &an->names[(an->names_next - 1 - k) % NAMES];
			if (r->tgid == who && addr_match(&r->a, sa, len, false))
				return r->name;
		}
	}
	return NULL;
}

static void lookup(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid,
		   const struct cw_event *ev, struct cw_annot_view *out)
{
	struct cw_annot *an = run->annot;
	memset(out, 0, sizeof(*out));
	cw_op_kind k = ev->op.kind;
	bool net = k == CW_OP_CONNECT || k == CW_OP_SEND;
	bool denied = ev->d.verdict != CW_ALLOW;
	/* Symbolizing costs a maps read: done where a person will look (a
	 * denial, the network, a program start), not for every allowed open. */
	bool frames = denied || net || k == CW_OP_EXEC || ev->d.flagged;
	/* Nor anything else: an allowed file operation gets no host and no
	 * site, so looking its annotation up (a recvmsg on the channel, most
	 * often answered EAGAIN, on every open) would only mark it used. Left
	 * unused, it could be taken for a later denied call of the same thread
	 * on the same path that sent none (a raw syscall): newer annotations
	 * are matched first, so only that case is affected, and only in its
	 * call site, which is advisory. */
	if (!frames && !net)
		return;

	struct ann *a = NULL;
	/* An exec's annotation was sent just before the call, and the event
	 * loop has often read it already (the channel and the listener
	 * became readable together). One found unused for this very thread
	 * and path is the newest there can be: the queue cannot hold a newer
	 * one for the same call. Only when none is found is the channel
	 * read first (one recvmmsg per exec saved when it was there). */
	if (k == CW_OP_EXEC)
		a = find_ann(an, tgid, tid, ev);
	if (!a) {
		cw_annot_drain(run);
		a = find_ann(an, tgid, tid, ev);
	}

	if (!a && k == CW_OP_EXEC && ppid > 0)
		a = find_spawn(an, ppid, ev, cw_record_time(run));
	if (a) {
		a->used = true;
		if (net && a->name[0]) {
			memcpy(an->host_buf, a->name, sizeof(an->host_buf));
			out->host = an->host_buf;
		}
		if (frames)
			cw_annot_symbolize(run, a->tgid, a, out);
	}
	if (net && !out->host) {
		const char *h = find_host(an, tgid, ppid, ev->op.addr, ev->op.addrlen);
		if (h) {
			snprintf(an->host_buf, sizeof(an->host_buf), "%s", h);
			out->host = an->host_buf;
		}
	}
	if (out->host || out->site)
		out->source = "preload";
}

void cw_annot_prepare(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid, const struct cw_event *ev)
{
	struct cw_annot *an = run->annot;
	if (!an)
		return;
	an->prepared.ev = NULL;
	/* Only for an operation that will not go ahead: an allowed one is
	 * answered with CONTINUE and the kernel re-reads its arguments, so any
	 * time spent here would widen that window (kernel-notes K11). Its
	 * annotations are looked up after the answer, in cw_annot_attach(). */
	if (!an->enabled || ev->allowed)
		return;
	lookup(run, tgid, tid, ppid, ev, &an->prepared.view);
	an->prepared.ev = ev;
	an->prepared.tid = tid;
}

void cw_annot_attach(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid,
		     struct cw_event *ev, struct cw_annot_view *out)
{
	struct cw_annot *an = run->annot;
	memset(out, 0, sizeof(*out));
	if (!an || !an->enabled)
		return;
	if (an->prepared.ev == ev && an->prepared.tid == tid)
		*out = an->prepared.view;
	else
		lookup(run, tgid, tid, ppid, ev, out);
	an->prepared.ev = NULL;
	if (out->host && !ev->op.host)
		ev->op.host = out->host;
	if (out->source)
		an->stats.attached++;
}
