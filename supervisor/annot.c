/* The preload channel, receiving side (see annot.h and preload/proto.h).
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
 * (CAP_SYS_ADMIN): it can then only mislabel annotations (SECURITY.md).
 *
 * Symbol names are looked up here rather than in the target, so that the
 * preload opens no file (which the filter would see and record) and a
 * lying target cannot choose the names: the module is the one the kernel
 * has mapped at that address (/proc/PID/maps, map_files), the names come
 * from its ELF symbol table, read with pread only (a file truncated under
 * us gives a short read, not SIGBUS) and with every offset checked. */
#include "config.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "supervisor/annot.h"
#include "supervisor/notify.h"
#include "supervisor/ptrace.h"
#include "supervisor/kernel.h"
#include "supervisor/run.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "preload/proto.h"

#ifndef CW_PKGLIBDIR
#define CW_PKGLIBDIR "/usr/local/lib/capwatch"
#endif
#define LIB_NAME "libcapwatch-preload.so"

/* Caps. */
#define RING 1024            /* recent call annotations */
#define NAMES 512            /* recent name -> address resolutions */
#define BUCKETS 1024         /* rate-limit entries (pids) */
#define BURST CW_ANNOT_BURST /* messages a pid may send at once */
#define RATE CW_ANNOT_RATE   /* ... and per second after that (proto.h) */
#define DRAIN_MAX 512        /* messages read per call */
#define SPAWN_WINDOW 5.0     /* seconds a spawn annotation waits for its exec */

/* ---- state ---- */

static int sup_fd = -1, child_fd = -1;
static unsigned long child_ino;
static char lib_path[PATH_MAX];
static bool enabled;
static struct cw_annot_stats stats;
static bool noted_unattributed;
/* Notes about bad senders, at most this many per run (a fork storm of
 * misbehaving processes must not flood the trace or the terminal). */
#define NOTES_MAX 32
static unsigned notes_written, flood_notes;

static bool note_allowed(struct cw_run *run)
{
	if (notes_written > NOTES_MAX)
		return false;
	if (notes_written++ == NOTES_MAX) {
		cw_run_note(run, 0, "warning",
			    "preload channel: more bad annotations; from now on they are only counted (stats.annotations)");
		return false;
	}
	return true;
}

struct ann {
	pid_t tgid, tid;
	uint16_t type, func;
	uint32_t flags;
	double time;
	bool used, valid;
	uint16_t nframes, naddrs;
	uint64_t frames[CW_ANNOT_MAX_FRAMES];
	struct cw_annot_addr addr; /* NET: the destination */
	char name[CW_ANNOT_MAX_NAME + 1];
	char text[CW_ANNOT_MAX_TEXT + 1];
	uint16_t textlen;
	bool text_whole;           /* false: a prefix (cut at a page end) */
	bool unix_dest;            /* NET to an AF_UNIX address */
};
static struct ann *ring;
static size_t ring_next;

struct name_rec {
	pid_t tgid;
	struct cw_annot_addr a;
	char name[CW_ANNOT_MAX_NAME + 1];
};
static struct name_rec *names;
static size_t names_next;

/* Per sending pid, in a keyed map (the pids are the command's to choose,
 * by forking until it gets them). */
struct bucket {
	double tokens, last;
	unsigned long long dropped;
	bool noted_flood, noted_bad;
};
static struct cw_hmap buckets;
/* The key of the maps here (buckets, interp_cache). */
static struct cw_hash_key hkey;

/* Frames of the last attach (valid until the next call). */
static char frame_text[CW_ANNOT_MAX_FRAMES][640];
static const char *frame_ptrs[CW_ANNOT_MAX_FRAMES + 1];
static char host_buf[CW_ANNOT_MAX_NAME + 1];

/* ---- setup ---- */

static bool usable_lib(const char *p)
{
	struct stat st;
	/* LD_PRELOAD splits on ':' and ' ': such a path cannot be named. */
	return p[0] == '/' && !strpbrk(p, ": \t\n") && strlen(p) < sizeof(lib_path) &&
	       stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* P passed usable_lib(): it fits. */
static void set_lib(const char *p)
{
	size_t n = strlen(p);
	memcpy(lib_path, p, n + 1);
}

/* CAPWATCH_PRELOAD=PATH names the library, =none (or empty) turns the
 * layer off; otherwise a build-tree copy next to the capwatch binary, then
 * the installed one. */
static bool find_lib(void)
{
	const char *e = getenv("CAPWATCH_PRELOAD");
	char exe[PATH_MAX], cand[PATH_MAX + 64];

	if (e) {
		if (!*e || strcmp(e, "none") == 0)
			return false;
		if (!usable_lib(e)) {
			cw_warn("CAPWATCH_PRELOAD=%s: not an absolute path to a readable file; preload off", e);
			return false;
		}
		set_lib(e);
		return true;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/preload/.libs/%s", exe, LIB_NAME);
			if (usable_lib(cand)) {
				set_lib(cand);
				return true;
			}
		}
	}
	snprintf(cand, sizeof(cand), "%s/%s", CW_PKGLIBDIR, LIB_NAME);
	if (usable_lib(cand)) {
		set_lib(cand);
		return true;
	}
	cw_info("%s not found: no host names or call sites in this run", LIB_NAME);
	return false;
}

/* Put NAME=VALUE into the environment array, in place of an existing entry
 * of NAME (for LD_PRELOAD: ours first, the user's after it). */
static int env_set(char ***envp, const char *name, const char *value, bool prepend_list)
{
	size_t nl = strlen(name), n = 0, at = (size_t)-1;
	char *entry = NULL;
	for (char **e = *envp; e && *e; e++, n++)
		if (strncmp(*e, name, nl) == 0 && (*e)[nl] == '=')
			at = n;
	if (at != (size_t)-1 && prepend_list && (*envp)[at][nl + 1]) {
		if (asprintf(&entry, "%s=%s:%s", name, value, (*envp)[at] + nl + 1) < 0)
			return -ENOMEM;
	} else if (asprintf(&entry, "%s=%s", name, value) < 0) {
		return -ENOMEM;
	}
	if (at != (size_t)-1) {
		free((*envp)[at]);
		(*envp)[at] = entry;
		return 0;
	}
	char **ne = realloc(*envp, (n + 2) * sizeof(*ne));
	if (!ne) {
		free(entry);
		return -ENOMEM;
	}
	ne[n] = entry;
	ne[n + 1] = NULL;
	*envp = ne;
	return 0;
}

int cw_annot_setup(struct cw_run *run)
{
	int sv[2];
	struct stat st;
	char v[64];

	if (!find_lib())
		return 0;
	ring = calloc(RING, sizeof(*ring));
	names = calloc(NAMES, sizeof(*names));
	if (!ring || !names)
		goto oom;
	cw_hash_key_random(&hkey);
	cw_hmap_init(&buckets, &hkey, sizeof(pid_t), sizeof(struct bucket), BUCKETS);
	/* Datagrams keep message boundaries; both ends non-blocking: the
	 * sender never waits for us, we never wait for it. */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		cw_warn("socketpair for the preload channel: %s; preload off", strerror(errno));
		return 0;
	}
	sup_fd = sv[0];
	child_fd = sv[1];
	int one = 1, big = 1 << 20;
	if (setsockopt(sup_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    fstat(child_fd, &st) < 0) {
		cw_warn("preload channel setup: %s; preload off", strerror(errno));
		close(sup_fd);
		close(child_fd);
		sup_fd = child_fd = -1;
		return 0;
	}
	if (setsockopt(child_fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(child_fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (setsockopt(sup_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(sup_fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	child_ino = (unsigned long)st.st_ino;
	/* FD:INODE: the preload talks only to this very socket, not to
	 * whatever a program later puts at that number. */
	snprintf(v, sizeof(v), "%d:%lu", CW_ANNOT_FD, child_ino);
	/* AddressSanitizer refuses to start when another library comes
	 * before its runtime in LD_PRELOAD's order; ours always does. The
	 * check is only about that order: turned off in front of the
	 * command's own ASAN_OPTIONS (later entries win, so an explicit
	 * setting of the command's stays). */
	if (env_set(&run->envp, "LD_PRELOAD", lib_path, true) < 0 ||
	    env_set(&run->envp, CW_ANNOT_ENV_FD, v, false) < 0 ||
	    env_set(&run->envp, "ASAN_OPTIONS", "verify_asan_link_order=0", true) < 0)
		goto oom;
	enabled = true;
	cw_debug("preload %s, channel fd %d", lib_path, CW_ANNOT_FD);
	return 0;
oom:
	cw_annot_free();
	return -ENOMEM;
}

void cw_annot_child(void)
{
	if (child_fd < 0)
		return;
	if (child_fd == CW_ANNOT_FD)
		fcntl(child_fd, F_SETFD, 0);
	else
		dup2(child_fd, CW_ANNOT_FD); /* the copy is not close-on-exec */
}

int cw_annot_fd(void)
{
	if (child_fd >= 0) {
		close(child_fd);
		child_fd = -1;
	}
	return sup_fd;
}

bool cw_annot_enabled(void)
{
	return enabled;
}

void cw_annot_get_stats(struct cw_annot_stats *st)
{
	*st = stats;
}

void cw_annot_report(struct cw_run *run)
{
	if (!enabled || !run->report)
		return;
	cw_annot_drain(run);
	struct cw_report_annotations a = {
		.received = stats.received, .accepted = stats.accepted, .malformed = stats.malformed,
		.flooded = stats.flooded, .unattributed = stats.unattributed, .attached = stats.attached,
	};
	cw_report_set_annotations(run->report, &a);
}

static void maps_cache_clear(void);

void cw_annot_free(void)
{
	maps_cache_clear();
	if (sup_fd >= 0)
		close(sup_fd);
	if (child_fd >= 0)
		close(child_fd);
	sup_fd = child_fd = -1;
	free(ring);
	free(names);
	cw_hmap_free(&buckets);
	ring = NULL;
	names = NULL;
	enabled = false;
}

/* ---- rate limiting ---- */

/* The bucket of PID; NULL only when memory ran out (the message is then
 * taken as flooding: dropped, never trusted more). */
static struct bucket *bucket_for(pid_t pid, double now)
{
	struct bucket *b;
	int r = cw_hmap_insert(&buckets, &pid, sizeof(pid), (void **)&b);
	if (r == -ENOSPC) {
		/* Full of pids from a fork storm: start over (more lenient,
		 * never more memory). */
		cw_hmap_clear(&buckets);
		r = cw_hmap_insert(&buckets, &pid, sizeof(pid), (void **)&b);
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
	stats.malformed++;
	if (b && b->noted_bad)
		return;
	if (b)
		b->noted_bad = true;
	if (!note_allowed(run))
		return;
	cw_run_note(run, pid, "warning",
		    "preload channel: malformed annotation from pid %d (%s): ignored; "
		    "annotations are advisory and decisions are unaffected", (int)pid, why);
}

static void store(const struct cw_annot_hdr *h, const unsigned char *buf, pid_t pid, pid_t tid, double now)
{
	const unsigned char *p = buf + sizeof(*h);
	const unsigned char *frames = p;
	const unsigned char *addrs = p + (size_t)h->nframes * 8;
	const unsigned char *raw = addrs + (size_t)h->naddrs * sizeof(struct cw_annot_addr);
	const unsigned char *name = raw + h->rawlen;
	const unsigned char *text = name + h->namelen;

	if (h->type == CW_ANNOT_RESOLVED) {
		for (unsigned i = 0; i < h->naddrs; i++) {
			struct name_rec *r = &names[names_next++ % NAMES];
			r->tgid = pid;
			memcpy(&r->a, addrs + i * sizeof(r->a), sizeof(r->a));
			r->a.port = 0;
			memcpy(r->name, name, h->namelen);
			r->name[h->namelen] = '\0';
		}
		return;
	}
	struct ann *a = &ring[ring_next++ % RING];
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

static void receive_one(struct cw_run *run, const unsigned char *buf, size_t len, bool trunc,
			const struct ucred *cred)
{
	double now = cw_run_time(run);
	struct cw_annot_hdr h;

	stats.received++;
	/* A member of the tree, alive or not: a short-lived process (a
	 * shell that runs "exit 3") is often reaped before its hello is read.
	 * A sender outside the tree can only have the channel if a member
	 * passed it on, and then can only mislabel that member's events. */
	if (cred && cred->pid > 0 && run->kernel && !cw_tracker_find(run, cred->pid))
		cw_kernel_sync(run); /* its fork may still be queued */
	if (!cred || cred->pid <= 0 || !cw_tracker_find(run, cred->pid)) {
		/* No kernel-attested sender of the tree: nothing to attach
		 * it to. */
		stats.unattributed++;
		if (!noted_unattributed && note_allowed(run)) {
			noted_unattributed = true;
			cw_run_note(run, 0, "warning",
				    "preload channel: annotation from a sender outside the supervised tree (pid %d): ignored",
				    cred ? (int)cred->pid : 0);
		}
		return;
	}
	pid_t pid = cred->pid;
	struct bucket *b = bucket_for(pid, now);
	if (!b) {
		stats.flooded++;
		return;
	}
	b->tokens += (now - b->last) * RATE;
	if (b->tokens > BURST)
		b->tokens = BURST;
	b->last = now;
	if (b->tokens < 1.0) {
		stats.flooded++;
		b->dropped++;
		if (!b->noted_flood) {
			b->noted_flood = true;
			/* A busy honest program gets here too: an info note,
			 * a few per run at most. */
			if (flood_notes++ < NOTES_MAX)
				cw_run_note(run, pid, "info",
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
	if (tid != pid) {
		struct cw_proc *t = cw_tracker_find(run, tid);
		/* The kernel back end lists processes, not threads: a thread
		 * of PID is one of its /proc/PID/task entries. */
		char tp[64];
		snprintf(tp, sizeof(tp), "/proc/%d/task/%d", (int)pid, (int)tid);
		bool thread_of = t ? t->tgid == pid : run->kernel && tid > 0 && access(tp, F_OK) == 0;
		if (!thread_of) {
			flag_bad(run, pid, b, "claims a thread of another process");
			return;
		}
	}
	stats.accepted++;
	struct cw_proc *p = cw_tracker_find(run, pid);
	if (p && (!p->preload || strcmp(p->preload, "unknown") == 0))
		p->preload = "present"; /* the library runs in this image */
	if (h.type != CW_ANNOT_HELLO)
		store(&h, buf, pid, tid, now);
}

/* Datagrams read per recvmmsg: a drain that finds the queue empty, or
 * holding fewer than this, costs one syscall (a recvmsg loop cost one per
 * message plus the one answered EAGAIN). */
#define DRAIN_BATCH 16

void cw_annot_drain(struct cw_run *run)
{
	static unsigned char bufs[DRAIN_BATCH][CW_ANNOT_MAX_MSG + 1];
	static union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 16)];
	} cms[DRAIN_BATCH];
	struct mmsghdr mm[DRAIN_BATCH];
	struct iovec iov[DRAIN_BATCH];

	if (sup_fd < 0)
		return;
	for (int done = 0; done < DRAIN_MAX;) {
		for (int i = 0; i < DRAIN_BATCH; i++) {
			iov[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = cms[i].b;
			mm[i].msg_hdr.msg_controllen = sizeof(cms[i].b);
		}
		int got = recvmmsg(sup_fd, mm, DRAIN_BATCH, MSG_DONTWAIT | MSG_CMSG_CLOEXEC, NULL);
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
			receive_one(run, bufs[i], n, trunc, cred);
		}
		done += got;
		if (got < DRAIN_BATCH)
			return; /* the queue is empty now */
	}
}

/* ---- symbols ---- */

struct map_ent {
	uint64_t start, end, off;
	dev_t dev;
	unsigned long ino;
	const char *path; /* into the maps text */
};

struct maps {
	char *text;
	struct map_ent *v;
	size_t n;
	size_t len; /* of text */
};

static void maps_free(struct maps *m)
{
	free(m->text);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int maps_read(pid_t pid, struct maps *m)
{
	char path[64];
	size_t cap = 64 * 1024, len = 0;
	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	m->text = malloc(cap + 1);
	if (!m->text)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap >= 8u << 20)
				break; /* enough: a bounded view */
			char *nt = realloc(m->text, cap * 2 + 1);
			if (!nt)
				break;
			m->text = nt;
			cap *= 2;
		}
		ssize_t r = read(fd, m->text + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	m->text[len] = '\0';
	m->len = len;
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += m->text[i] == '\n';
	m->v = calloc(lines + 1, sizeof(*m->v));
	if (!m->v) {
		maps_free(m);
		return -ENOMEM;
	}
	char *save = NULL;
	for (char *line = strtok_r(m->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e, off;
		unsigned maj, min;
		unsigned long ino;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &s, &e, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		struct map_ent *me = &m->v[m->n++];
		me->start = s;
		me->end = e;
		me->off = off;
		me->dev = makedev(maj, min);
		me->ino = ino;
		me->path = pos > 0 ? line + pos : "";
	}
	return 0;
}

static const struct map_ent *maps_find(const struct maps *m, uint64_t ip)
{
	for (size_t i = 0; i < m->n; i++)
		if (ip >= m->v[i].start && ip < m->v[i].end)
			return &m->v[i];
	return NULL;
}

struct sym {
	uint64_t value, size;
	uint32_t name;
};

struct module {
	dev_t dev;
	unsigned long ino;
	bool bad;
	uint64_t use;
	struct { uint64_t off, filesz, vaddr; } load[16];
	size_t nload;
	struct sym *syms;  /* sorted by value */
	size_t nsyms;
	char *strtab;
	size_t strsize;
};
#define MODULES 16
static struct module modules[MODULES];
static uint64_t module_clock;
/* Symbol tables read per event at most: a target mapping many large files
 * cannot make one annotation cost the supervisor more than this. */
#define LOADS_PER_EVENT 4
static int loads_left;

static void module_clear(struct module *md)
{
	free(md->syms);
	free(md->strtab);
	memset(md, 0, sizeof(*md));
}

static bool pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Read the symbol table of an ELF file: .symtab when present (names of
 * static functions), else .dynsym. Every size and offset is checked against
 * fixed caps; anything odd leaves the module without names. */
static void module_load(struct module *md, int fd)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	Elf64_Sym *raw = NULL;

	md->bad = true;
	if (!pread_full(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_phnum > 256)
		return;
	for (unsigned i = 0; i < eh.e_phnum && md->nload < CW_ARRAY_SIZE(md->load); i++) {
		Elf64_Phdr ph;
		if (!pread_full(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return;
		if (ph.p_type == PT_LOAD) {
			md->load[md->nload].off = ph.p_offset;
			md->load[md->nload].filesz = ph.p_filesz;
			md->load[md->nload].vaddr = ph.p_vaddr;
			md->nload++;
		}
	}
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || !pread_full(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out;
	int pick = -1;
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			pick = (int)i;
	if (pick < 0)
		for (unsigned i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				pick = (int)i;
	if (pick < 0 || sh[pick].sh_link >= eh.e_shnum || sh[pick].sh_entsize != sizeof(Elf64_Sym))
		goto out;
	const Elf64_Shdr *ss = &sh[pick], *st = &sh[ss->sh_link];
	size_t nraw = ss->sh_size / sizeof(Elf64_Sym);
	if (nraw == 0 || nraw > 500000 || st->sh_size == 0 || st->sh_size > (16u << 20))
		goto out;
	raw = malloc(nraw * sizeof(*raw));
	md->strtab = malloc(st->sh_size + 1);
	md->syms = malloc(nraw * sizeof(*md->syms));
	if (!raw || !md->strtab || !md->syms || !pread_full(fd, raw, nraw * sizeof(*raw), ss->sh_offset) ||
	    !pread_full(fd, md->strtab, st->sh_size, st->sh_offset))
		goto out;
	md->strtab[st->sh_size] = '\0';
	md->strsize = st->sh_size;
	for (size_t i = 0; i < nraw; i++) {
		if (ELF64_ST_TYPE(raw[i].st_info) != STT_FUNC || raw[i].st_shndx == SHN_UNDEF ||
		    raw[i].st_value == 0 || raw[i].st_name >= st->sh_size)
			continue;
		md->syms[md->nsyms].value = raw[i].st_value;
		md->syms[md->nsyms].size = raw[i].st_size;
		md->syms[md->nsyms].name = raw[i].st_name;
		md->nsyms++;
	}
	qsort(md->syms, md->nsyms, sizeof(*md->syms), sym_cmp);
	md->bad = false;
out:
	if (md->bad) {
		free(md->syms);
		free(md->strtab);
		md->syms = NULL;
		md->strtab = NULL;
		md->nsyms = 0;
	}
	free(raw);
	free(sh);
}

/* The file the kernel has mapped at ME in PID, checked to be that very
 * file (device and inode of the mapping) and a regular file. */
static int open_mapped(pid_t pid, const struct map_ent *me)
{
	char p[128];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)me->start, (unsigned long long)me->end);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && me->path[0] == '/') {
		/* No map_files access: the path, refused unless it is a
		 * regular file before and after opening (O_NONBLOCK: a FIFO
		 * put there cannot block us). */
		if (lstat(me->path, &st) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_ino != me->ino || st.st_dev != me->dev)
			return -1;
		fd = open(me->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != me->ino || st.st_dev != me->dev) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct module *module_get(pid_t pid, const struct map_ent *me)
{
	struct module *victim = &modules[0];
	for (size_t i = 0; i < MODULES; i++) {
		struct module *md = &modules[i];
		if (md->use && md->dev == me->dev && md->ino == me->ino) {
			md->use = ++module_clock;
			return md->bad ? NULL : md;
		}
		if (md->use < victim->use)
			victim = md;
	}
	if (loads_left <= 0)
		return NULL; /* over budget: this frame stays module+offset */
	loads_left--;
	module_clear(victim);
	victim->dev = me->dev;
	victim->ino = me->ino;
	victim->use = ++module_clock;
	victim->bad = true;
	int fd = open_mapped(pid, me);
	if (fd >= 0) {
		module_load(victim, fd);
		close(fd);
	}
	return victim->bad ? NULL : victim;
}

static const char *sym_lookup(const struct module *md, uint64_t fileoff, uint64_t *symoff)
{
	uint64_t va = 0;
	bool found = false;
	for (size_t i = 0; i < md->nload && !found; i++)
		if (fileoff >= md->load[i].off && fileoff < md->load[i].off + md->load[i].filesz) {
			va = fileoff - md->load[i].off + md->load[i].vaddr;
			found = true;
		}
	if (!found || md->nsyms == 0)
		return NULL;
	/* Last symbol starting at or before VA; it must contain VA (a
	 * nearest-below guess would name a static function after an
	 * unrelated exported one). */
	size_t lo = 0, hi = md->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (md->syms[mid].value <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct sym *s = &md->syms[i];
		if (va >= s->value && va < s->value + s->size) {
			*symoff = va - s->value;
			return md->strtab + s->name;
		}
		if (lo - i > 8)
			break;
	}
	return NULL;
}

static bool is_preload(const struct map_ent *me)
{
	const char *b = strrchr(me->path, '/');
	return strcmp(me->path, lib_path) == 0 || (b && strcmp(b + 1, LIB_NAME) == 0);
}

/* One frame as "function+0xOFF (module+0xOFF)". Returns false for a frame
 * inside the preload itself. */
static bool frame_format(pid_t pid, const struct maps *m, uint64_t ip, bool retaddr, char *out, size_t n)
{
	uint64_t look = retaddr && ip ? ip - 1 : ip;
	const struct map_ent *me = m ? maps_find(m, look) : NULL;
	if (!me || !me->path[0]) {
		snprintf(out, n, "0x%llx", (unsigned long long)ip);
		return true;
	}
	if (is_preload(me))
		return false;
	uint64_t fileoff = ip - me->start + me->off;
	uint64_t symoff = 0;
	const struct module *md = me->ino ? module_get(pid, me) : NULL;
	const char *sym = md ? sym_lookup(md, look - me->start + me->off, &symoff) : NULL;
	if (sym) {
		symoff += ip - look;
		snprintf(out, n, "%.200s+0x%llx (%.300s+0x%llx)", sym, (unsigned long long)symoff, me->path,
			 (unsigned long long)fileoff);
	} else {
		snprintf(out, n, "%.300s+0x%llx", me->path, (unsigned long long)fileoff);
	}
	return true;
}

/* Parsed maps of recent images, so that a shell that forks a hundred
 * children does not have /proc/PID/maps read and parsed for each of their
 * exec annotations (4 syscalls and a few dozen sscanf per exec). Keyed by
 * the image: the process that owns the address space (a child that forked
 * and has not exec'd runs its parent's image, which had not exec'd since
 * the fork) and its start time, so a reused pid is another key; dropped at
 * the owner's exec (cw_annot_exec). A hit is used only when every frame
 * falls in a file mapping of the cached copy; else the sender's maps are
 * read afresh. What a stale hit could do (a library unmapped and another
 * one mapped at the same range since) is name a frame wrongly: frames are
 * an advisory annotation the sender chose anyway. */
#define MAPS_CACHE 8
#define MAPS_CACHE_MAX_TEXT (256 * 1024) /* bigger maps are not kept */
static struct maps_cache {
	pid_t owner;
	double start;
	uint64_t use;
	struct maps m;
} maps_cache[MAPS_CACHE];
static uint64_t maps_clock;

static void maps_cache_clear(void)
{
	for (size_t i = 0; i < MAPS_CACHE; i++) {
		maps_free(&maps_cache[i].m);
		maps_cache[i].use = 0;
	}
}

static void maps_cache_drop(pid_t owner)
{
	for (size_t i = 0; i < MAPS_CACHE; i++)
		if (maps_cache[i].use && maps_cache[i].owner == owner) {
			maps_free(&maps_cache[i].m);
			maps_cache[i].use = 0;
		}
}

/* The process whose image PID runs, and that image's start. */
static const struct cw_proc *image_owner(const struct cw_run *run, pid_t pid)
{
	const struct cw_proc *p = cw_tracker_find(run, pid);
	for (int depth = 0; p && !p->execed && !p->is_thread && depth < 64; depth++) {
		const struct cw_proc *pp = cw_tracker_find(run, p->ppid);
		/* The parent's current image is the one forked only if it has
		 * not exec'd since: a later exec of another program changed its
		 * exe, a second exec its start (ptrace.c). An exec of the same
		 * program again is caught by frames_mapped() in all but the
		 * unlikely case that every frame falls in a file mapping of the
		 * new layout. */
		if (!pp || !pp->alive || pp->is_thread || pp->start > p->start || !p->exe || !pp->exe ||
		    strcmp(p->exe, pp->exe) != 0)
			break;
		p = pp;
	}
	return p;
}

static bool frames_mapped(const struct maps *m, const struct ann *a)
{
	for (unsigned i = 0; i < a->nframes; i++) {
		uint64_t ip = a->frames[i];
		const struct map_ent *me = maps_find(m, ip ? ip - 1 : ip);
		if (!me || !me->path[0])
			return false;
	}
	return true;
}

/* Maps for the frames of A sent by PID: a cached copy of its image
 * owner's, else the owner's read now (and kept), else PID's own read now
 * (a fork child that mapped something of its own). Returns NULL when
 * unreadable; *FRESH is set when the caller owns the result (maps_free). */
static struct maps *maps_for(struct cw_run *run, pid_t pid, const struct ann *a, struct maps *tmp, bool *fresh)
{
	const struct cw_proc *o = run ? image_owner(run, pid) : NULL;
	*fresh = false;
	memset(tmp, 0, sizeof(*tmp));
	if (o) {
		struct maps_cache *victim = &maps_cache[0];
		for (size_t i = 0; i < MAPS_CACHE; i++) {
			struct maps_cache *c = &maps_cache[i];
			if (c->use && c->owner == o->pid && c->start == o->start && frames_mapped(&c->m, a)) {
				c->use = ++maps_clock;
				return &c->m;
			}
		}
		for (size_t i = 0; i < MAPS_CACHE; i++) {
			if (maps_cache[i].use && maps_cache[i].owner == o->pid) {
				victim = &maps_cache[i]; /* the same owner: newer maps */
				break;
			}
			if (maps_cache[i].use < victim->use)
				victim = &maps_cache[i];
		}
		if (maps_read(o->pid, tmp) == 0) {
			if (tmp->len < MAPS_CACHE_MAX_TEXT) {
				maps_free(&victim->m);
				victim->m = *tmp; /* ownership moves to the cache */
				memset(tmp, 0, sizeof(*tmp));
				victim->owner = o->pid;
				victim->start = o->start;
				victim->use = ++maps_clock;
				if (o->pid == pid || frames_mapped(&victim->m, a))
					return &victim->m;
			} else if (o->pid == pid) {
				*fresh = true;
				return tmp;
			} else {
				maps_free(tmp);
			}
		}
	}
	if (maps_read(pid, tmp) < 0)
		return NULL;
	*fresh = true;
	return tmp;
}

static void symbolize(struct cw_run *run, pid_t pid, const struct ann *a, struct cw_annot_view *out)
{
	struct maps tmp;
	bool fresh = false;
	const struct maps *m = maps_for(run, pid, a, &tmp, &fresh);
	size_t k = 0;
	loads_left = LOADS_PER_EVENT;
	for (unsigned i = 0; i < a->nframes && k < CW_ANNOT_MAX_FRAMES; i++) {
		if (frame_format(pid, m, a->frames[i], true, frame_text[k], sizeof(frame_text[k])))
			frame_ptrs[k] = frame_text[k], k++;
	}
	frame_ptrs[k] = NULL;
	if (fresh)
		maps_free(&tmp);
	if (k) {
		out->backtrace = frame_ptrs;
		out->site = frame_ptrs[0];
	}
}

/* ---- lookups ---- */

static bool addr_match(const struct cw_annot_addr *a, const struct sockaddr *sa, size_t len, bool port)
{
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in) && a->family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
		return memcmp(a->addr, &s->sin_addr, 4) == 0 && (!port || a->port == s->sin_port);
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6) && a->family == AF_INET6) {
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

static struct ann *find_ann(pid_t tgid, pid_t tid, const struct cw_event *ev)
{
	/* Newest first; the annotation was sent just before the call, so it
	 * is among the last ones of this thread. */
	for (size_t k = 0; k < RING && k < ring_next; k++) {
		struct ann *a = &ring[(ring_next - 1 - k) % RING];
		if (!a->valid || a->used || a->tgid != tgid || a->tid != tid)
			continue;
		if (ann_matches(a, ev))
			return a;
	}
	return NULL;
}

/* posix_spawn, system, popen: the exec happens in a child the library
 * runs; the annotation came from the parent, moments before. */
static struct ann *find_spawn(pid_t ppid, const struct cw_event *ev, double now)
{
	for (size_t k = 0; k < RING && k < ring_next; k++) {
		struct ann *a = &ring[(ring_next - 1 - k) % RING];
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
static const char *find_host(pid_t tgid, pid_t ppid, const struct sockaddr *sa, size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		pid_t who = pass ? ppid : tgid;
		if (who <= 0)
			continue;
		for (size_t k = 0; k < NAMES && k < names_next; k++) {
			const struct name_rec *r = &names[(names_next - 1 - k) % NAMES];
			if (r->tgid == who && addr_match(&r->a, sa, len, false))
				return r->name;
		}
	}
	return NULL;
}

static void lookup(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid,
		   const struct cw_event *ev, struct cw_annot_view *out)
{
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
		a = find_ann(tgid, tid, ev);
	if (!a) {
		cw_annot_drain(run);
		a = find_ann(tgid, tid, ev);
	}

	if (!a && k == CW_OP_EXEC && ppid > 0)
		a = find_spawn(ppid, ev, cw_run_time(run));
	if (a) {
		a->used = true;
		if (net && a->name[0]) {
			memcpy(host_buf, a->name, sizeof(host_buf));
			out->host = host_buf;
		}
		if (frames)
			symbolize(run, a->tgid, a, out);
	}
	if (net && !out->host) {
		const char *h = find_host(tgid, ppid, ev->op.addr, ev->op.addrlen);
		if (h) {
			snprintf(host_buf, sizeof(host_buf), "%s", h);
			out->host = host_buf;
		}
	}
	if (out->host || out->site)
		out->source = "preload";
}

/* The view looked up while the target was still blocked in its call. */
static struct {
	const struct cw_event *ev;
	pid_t tid;
	struct cw_annot_view view;
} prepared;

void cw_annot_prepare(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid, const struct cw_event *ev)
{
	prepared.ev = NULL;
	/* Only for an operation that will not go ahead: an allowed one is
	 * answered with CONTINUE and the kernel re-reads its arguments, so any
	 * time spent here would widen that window (kernel-notes K11). Its
	 * annotations are looked up after the answer, in cw_annot_attach(). */
	if (!enabled || ev->allowed)
		return;
	lookup(run, tgid, tid, ppid, ev, &prepared.view);
	prepared.ev = ev;
	prepared.tid = tid;
}

void cw_annot_attach(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid,
		     struct cw_event *ev, struct cw_annot_view *out)
{
	memset(out, 0, sizeof(*out));
	if (!enabled)
		return;
	if (prepared.ev == ev && prepared.tid == tid)
		*out = prepared.view;
	else
		lookup(run, tgid, tid, ppid, ev, out);
	prepared.ev = NULL;
	if (out->host && !ev->op.host)
		ev->op.host = out->host;
	if (out->source)
		stats.attached++;
}

/* ---- exec ---- */

static bool env_has_preload(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* The environment can be large: scan it in chunks for our entry,
	 * keeping a tail so an entry split across reads is still seen. */
	char want[PATH_MAX + 16];
	int wl = snprintf(want, sizeof(want), "LD_PRELOAD=%s", lib_path);
	static char buf[65536 + PATH_MAX + 16];
	size_t keep = 0;
	bool found = false;
	for (int rounds = 0; rounds < 64 && !found; rounds++) {
		ssize_t r = read(fd, buf + keep, sizeof(buf) - keep - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t len = keep + (size_t)r;
		for (size_t i = 0; i + (size_t)wl <= len && !found; i++)
			if ((i == 0 ? keep == 0 : buf[i - 1] == '\0') && memcmp(buf + i, want, (size_t)wl) == 0)
				found = true;
		keep = len < (size_t)wl + 1 ? len : (size_t)wl + 1;
		memmove(buf, buf + len - keep, keep);
	}
	return found;
}

/* Has the new image a program interpreter (the dynamic loader)? AT_BASE
 * is its load address, 0 for a static (or static-pie) executable. */
static int has_interp_auxv(pid_t pid)
{
	char path[64];
	/* The whole vector in one read (about 20 pairs; it was one read per
	 * pair): the kernel copies it from the saved copy in one go. */
	uint64_t av[128];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, av, sizeof(av))) < 0 && errno == EINTR)
		;
	for (ssize_t i = 0; n > 0 && (i + 2) * (ssize_t)sizeof(av[0]) <= n; i += 2) {
		if (av[i] == AT_NULL)
			break;
		if (av[i] == AT_BASE)
			return av[i + 1] != 0;
	}
	return -1;
}

/* Whether a file has an interpreter is a property of the file: the answer
 * is kept per executable, keyed by its identity (device, inode, size,
 * mtime, ctime: a rewritten or replaced file is another key, never by
 * path), so that a shell running the same programs over and over costs
 * one stat of /proc/PID/exe per exec instead of an open, read and close
 * of /proc/PID/auxv. */
#define INTERP_CACHE 64
static struct interp_ent {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	int8_t result; /* 0 static, 1 dynamic; unused when ino == 0 */
} interp_cache[INTERP_CACHE];

static bool same_file(const struct interp_ent *e, const struct stat *st)
{
	return e->ino && e->ino == st->st_ino && e->dev == st->st_dev && e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       e->ctime.tv_sec == st->st_ctim.tv_sec && e->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static int has_interp(pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return has_interp_auxv(pid);
	/* Slot by a keyed hash: a command cannot pick files that all evict
	 * each other (a miss costs a read of auxv, no more). */
	uint64_t id[2] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino };
	struct interp_ent *e = &interp_cache[cw_siphash13(&hkey, id, sizeof(id)) % INTERP_CACHE];
	if (same_file(e, &st))
		return e->result;
	int r = has_interp_auxv(pid);
	if (r >= 0) {
		*e = (struct interp_ent){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
					  .mtime = st.st_mtim, .ctime = st.st_ctim, .result = (int8_t)r };
	}
	return r;
}

const char *cw_annot_exec(struct cw_run *run, pid_t pid)
{
	if (!enabled)
		return "absent";
	/* What the old image sent before its exec belongs to it. */
	cw_annot_drain(run);
	maps_cache_drop(pid); /* its maps are gone with it */
	if (has_interp(pid) == 0)
		return "absent"; /* static: no loader, no LD_PRELOAD */
	if (!env_has_preload(pid))
		return "absent"; /* LD_PRELOAD cleared by a raw execve */
	return "unknown";    /* expected; "present" once it says hello */
}
