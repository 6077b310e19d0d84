/* Approvals while the run goes on (approval.h).
 *
 * A deferred notification stays unanswered: its thread sleeps in the
 * kernel while the loop goes on. The pending record keeps the notification
 * and what the question is about (capability, scope, rule, reason), not
 * the event: whatever the answer, the syscall's handler runs again on the
 * saved notification and decides afresh, and its decision meets the
 * answer (cw_approval_remembered), see complete(). Every pending record
 * ends exactly once: answered (allow or deny), timed out (deny), its client
 * gone (deny), capwatch exiting (deny), or its thread gone (ID_VALID
 * fails: nothing to answer, nothing recorded).
 *
 * Approvers: the terminal (when capwatch's stdin is one, /dev/tty is
 * opened; prompts are written there, never on the command's stdout or
 * stderr; answers are read a line at a time without blocking) and the
 * approval socket (--approval-socket PATH, --approval-fd N; newline-
 * delimited JSON, docs/agents.md). With a socket configured, asks go
 * there and not to the terminal. */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "supervisor/approval.h"
#include "path.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/log.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/util.h"

#define MAX_PENDING 256
#define MAX_CLIENTS 8
#define LINE_MAX_BYTES 4096
#define DEFAULT_TIMEOUT 60.0

enum { TAG_TTY = 1, TAG_LISTEN, TAG_TIMER, TAG_CLIENT /* + index */ };

enum answer { ANS_ALLOW_ONCE, ANS_ALLOW_RUN, ANS_DENY_ONCE, ANS_DENY_RUN };

struct pending {
	uint64_t id;                  /* ours, in socket requests; not the kernel's */
	struct seccomp_notif req;     /* copy of the notification */
	pid_t tid, tgid, ppid;
	uint64_t proc;                /* the caller's process entry (cw_notif.proc) */
	const char *syscall;          /* static, from the dispatch table */
	/* the question: the decision the ask was */
	cw_cap_kind cap;
	char *scope;                  /* owned */
	char rule[CW_RULE_MAX], reason[CW_REASON_MAX];
	cw_source source;
	int err;                      /* the errno its denial answers */
	double deadline;
	int client;                   /* socket client index it was sent to, -1: tty / none yet */
	bool to_socket;               /* routed to the socket approvers */
};

/* The answer for one notification, met by the decisions of the handler
 * that runs again for it (complete()): an allow only while the operation
 * is still the one asked about, a deny (or no answer) whatever it now is. */
struct once {
	uint64_t notif_id;
	const struct pending *q;      /* the question; alive while the handler runs */
	bool allow;
	const char *how, *span, *why; /* HOW NULL: nobody answered */
	bool used;
};

struct remembered {
	cw_cap_kind cap;
	char *scope;
	bool allow;
	const char *how;              /* "tty" | "socket" */
};

struct client {
	int fd;                       /* -1: free slot */
	bool broken;                  /* a send failed: dropped from the loop (drop_broken) */
	char buf[LINE_MAX_BYTES];
	size_t len;
	bool overlong;
};

/* The approvers' state (run->approval), from cw_approval_init to
 * cw_approval_shutdown: the event loop's and the notification thread's,
 * under run_lock. */
struct cw_approval {
	bool active;
	int ep, timer, tty, listen_fd;
	char *sock_path;
	double timeout;
	struct pending *pend[MAX_PENDING];
	size_t npend;
	uint64_t next_id;
	struct remembered *rem;
	size_t nrem;
	struct once once;             /* at most one handler runs again at a time */
	bool once_set;
	struct client cl[MAX_CLIENTS];
	bool use_socket;
	/* the terminal: one question at a time, the oldest pending first */
	struct pending *asking;
	bool tty_watched;             /* the terminal is in the epoll set */
	char tbuf[256];
	size_t tlen;
};

/* ---- helpers ---- */

static bool deferrable(const struct cw_event *ev)
{
	/* An allowed answer runs the handler again (complete()), so any
	 * family can wait; exec cannot: the exec stop re-checks the program
	 * against the policy, outside the notification. */
	switch (ev->op.kind) {
	case CW_OP_EXEC:
	case CW_OP_ENV:
		return false;
	default:
		return true;
	}
}

static void pending_free(struct pending *p)
{
	if (!p)
		return;
	free(p->scope);
	free(p);
}

/* Keep N's request and the question EV's decision asks. */
static struct pending *pending_new(struct cw_notif *n, const struct cw_event *ev)
{
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->req = *n->req;
	p->tid = n->tid;
	p->tgid = n->tgid;
	p->ppid = n->ppid;
	p->proc = n->proc;
	p->syscall = n->syscall;
	p->client = -1;
	p->cap = ev->d.cap;
	p->source = ev->d.source;
	p->err = ev->d.err > 0 ? ev->d.err : EPERM;
	p->scope = strndup(ev->d.scope, sizeof(ev->d.scope) - 1);
	snprintf(p->rule, sizeof(p->rule), "%s", ev->d.rule);
	snprintf(p->reason, sizeof(p->reason), "%s", ev->d.reason);
	if (!p->scope) {
		free(p);
		return NULL;
	}
	return p;
}

static const char *program_of(struct cw_run *run, pid_t tgid)
{
	struct cw_proc *pr = cw_tracker_find(run, tgid);
	return pr && pr->exe ? pr->exe : "?";
}

/* Scopes and names from the target go to the terminal: no control bytes. */
static void printable(char *dst, size_t n, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(dst + o, n - o, "\\x%02x", c);
		else
			dst[o++] = (char)c;
	}
	dst[o] = '\0';
}

/* Is a client to be dropped (client.broken)? */
static bool any_broken(const struct cw_approval *A)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (A->cl[i].fd >= 0 && A->cl[i].broken)
			return true;
	return false;
}

static void arm_timer(struct cw_approval *A)
{
	double next = 0;
	for (size_t i = 0; i < A->npend; i++)
		if (!next || A->pend[i]->deadline < next)
			next = A->pend[i]->deadline;
	struct itimerspec its = { 0 };
	if (any_broken(A))
		next = cw_now(); /* drop_broken() from the loop */
	if (next) {
		/* at least once a second: questions whose thread is gone are
		 * withdrawn (expire()) */
		if (next > cw_now() + 1)
			next = cw_now() + 1;
		double d = next - cw_now();
		if (d < 0.001)
			d = 0.001;
		its.it_value.tv_sec = (time_t)d;
		its.it_value.tv_nsec = (long)((d - (double)(time_t)d) * 1e9);
	}
	if (A->timer >= 0)
		timerfd_settime(A->timer, 0, &its, NULL);
}

/* ---- the terminal ---- */

/* The terminal is read only while a question is on it: at other times its
 * input belongs to the command. */
static void tty_sync(struct cw_approval *A)
{
	bool want = A->tty >= 0 && A->asking;
	if (want == A->tty_watched)
		return;
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = TAG_TTY };
	if (want)
		A->tty_watched = epoll_ctl(A->ep, EPOLL_CTL_ADD, A->tty, &e) == 0;
	else
		A->tty_watched = !(A->tty < 0 || epoll_ctl(A->ep, EPOLL_CTL_DEL, A->tty, NULL) == 0);
	if (A->tty < 0)
		A->tty_watched = false;
}

static void tty_write(struct cw_approval *A, const char *s)
{
	size_t n = strlen(s);
	while (A->tty >= 0 && n) {
		ssize_t w = write(A->tty, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return; /* a terminal that went away: answers time out */
		}
		s += w;
		n -= (size_t)w;
	}
}

static void tty_ask_next(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	if (A->tty < 0 || A->asking)
		return;
	for (size_t i = 0; i < A->npend; i++) {
		struct pending *p = A->pend[i];
		if (p->to_socket)
			continue;
		char prog[256], scope[512], msg[2048];
		printable(prog, sizeof prog, program_of(run, p->tgid));
		printable(scope, sizeof scope, p->scope);
		snprintf(msg, sizeof msg,
			 "\r\ncapwatch: %s (pid %d) wants %s: %s %s\r\n"
			 "capwatch: [o] allow once  [r] allow %s for this run  [d] deny  [n] deny for this run"
			 " (%gs, then deny): ",
			 prog, (int)p->tgid, p->syscall, cw_cap_name(p->cap), scope, scope,
			 A->timeout);
		tty_write(A, msg);
		A->asking = p;
		A->tlen = 0;
		tty_sync(A);
		return;
	}
}

/* ---- the socket ---- */

static int client_send(struct cw_approval *A, int ci, const char *line)
{
	struct client *c = &A->cl[ci];
	size_t n = strlen(line);
	const char *s = line;
	while (n) {
		ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno; /* a client that does not read is dropped */
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static void client_drop(struct cw_run *run, int ci);

static int first_client(struct cw_approval *A)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (A->cl[i].fd >= 0 && !A->cl[i].broken)
			return i;
	return -1;
}

static void socket_send(struct cw_run *run, struct pending *p)
{
	struct cw_approval *A = run->approval;
	int ci = first_client(A);
	if (ci < 0)
		return; /* sent when a client connects */
	cJSON *o = cJSON_CreateObject();
	char *line = NULL;
	if (o) {
		cJSON_AddNumberToObject(o, "id", (double)p->id);
		cJSON_AddNumberToObject(o, "pid", p->tgid);
		cJSON_AddNumberToObject(o, "tid", p->tid);
		cJSON_AddStringToObject(o, "program", program_of(run, p->tgid));
		cJSON_AddStringToObject(o, "operation", p->syscall);
		cJSON_AddStringToObject(o, "capability", cw_cap_name(p->cap));
		cJSON_AddStringToObject(o, "scope", p->scope);
		cJSON_AddStringToObject(o, "rule", p->rule);
		cJSON_AddStringToObject(o, "reason", p->reason);
		cJSON_AddNumberToObject(o, "timeout", A->timeout);
		line = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
	}
	if (!line) {
		cw_err("approval request: out of memory");
		return; /* times out */
	}
	/* cJSON escapes control characters; one line per request. */
	size_t n = strlen(line);
	char *nl = realloc(line, n + 2);
	if (nl) {
		line = nl;
		line[n] = '\n';
		line[n + 1] = '\0';
		p->client = ci;
		if (client_send(A, ci, line) < 0) {
			/* Dropped from the loop, not here: this may run inside a
			 * handler (cw_approval_defer), and a drop denies the
			 * client's questions, which runs their handlers again
			 * on the scratch this handler still uses. */
			A->cl[ci].broken = true;
			arm_timer(A);
		}
	}
	free(line);
}

/* ---- completing a pending record ---- */

static void remember(struct cw_approval *A, cw_cap_kind cap, const char *scope, bool allow, const char *how)
{
	struct remembered *r = realloc(A->rem, (A->nrem + 1) * sizeof(*r));
	if (!r)
		return;
	A->rem = r;
	r[A->nrem].cap = cap;
	r[A->nrem].scope = strdup(scope);
	r[A->nrem].allow = allow;
	r[A->nrem].how = how;
	if (r[A->nrem].scope)
		A->nrem++;
}

static void set_approval(struct cw_decision *d, bool allow, const char *how, const char *span,
			 const char *why)
{
	d->source = CW_SOURCE_APPROVAL;
	snprintf(d->rule, sizeof d->rule, "approval:%s:%s", how, span);
	if (allow) {
		d->verdict = CW_ALLOW;
		d->next_action = CW_NEXT_NONE;
		d->err = 0;
	} else {
		d->verdict = CW_DENY;
		d->next_action = CW_NEXT_NONE;
	}
	char r[CW_REASON_MAX];
	snprintf(r, sizeof r, "%s %.160s %s: %.60s", cw_cap_name(d->cap), d->scope,
		 allow ? "allowed" : "denied", why);
	memcpy(d->reason, r, sizeof d->reason);
}

static void pending_remove(struct cw_approval *A, struct pending *p)
{
	for (size_t i = 0; i < A->npend; i++)
		if (A->pend[i] == p) {
			A->pend[i] = A->pend[--A->npend];
			break;
		}
	if (A->asking == p) {
		A->asking = NULL;
		tty_sync(A);
	}
}

/* No handler for a pending call's number (cannot happen: it was
 * handled once): refused. */
static void refuse(struct cw_notif *n)
{
	cw_answer_error(n, EPERM);
}

/* End P: the syscall's handler runs again on the saved notification (the
 * thread is still blocked, its memory as it was, unless another thread
 * rewrote it) and decodes, resolves and decides afresh. An allow meets
 * the decision (A->once, or the remembered run-wide one) only if the
 * operation is still the one asked about: the handler performs it with
 * its own state, as for any notification; a changed one is decided on its
 * own (an ask is asked anew). A deny, or no answer, meets every decision
 * of the notification (cw_approval_refused): it is denied and recorded as
 * the question's denial, whatever the bytes say now, and not asked again.
 * ALLOW is the answer; HOW and SPAN name it in the rule ("tty", "once"),
 * WHY says it in the reason. A NULL HOW: no one answered (timeout,
 * dropped client, exit), the ask stays a deny of the configured policy
 * with nextAction request_approval. */
static void complete(struct cw_run *run, struct pending *p, bool allow, const char *how,
		     const char *span, const char *why)
{
	struct cw_approval *A = run->approval;
	struct cw_notif n = { .run = run, .req = &p->req, .tid = p->tid, .tgid = p->tgid,
			      .ppid = p->ppid, .proc = p->proc, .syscall = p->syscall, .call = run->call_scratch };
	n.fs = cw_fs_scratch_of(run);

	pending_remove(A, p);
	if (allow || cw_notif_valid(&n)) {
		/* (a denied thread that is gone: nothing happened) */
		cw_handler_fn handle = cw_syscall_handler(p->req.data.nr);
		A->once = (struct once){ .notif_id = p->req.id, .q = p, .allow = allow, .how = how,
					 .span = span, .why = why };
		/* a run-wide allow is remembered: its reason says so */
		A->once_set = !allow || strcmp(span, "once") == 0;
		cw_notif_dispatch(&n, handle ? handle : refuse);
		A->once_set = false;
		cw_record_trace_flush(run);
	}
	pending_free(p);
	arm_timer(A);
}

/* Apply ANSWER to P; a "for this run" answer also ends every other pending
 * record of the same capability and scope. */
static void answer(struct cw_run *run, struct pending *p, enum answer a, const char *how)
{
	struct cw_approval *A = run->approval;
	bool allow = a == ANS_ALLOW_ONCE || a == ANS_ALLOW_RUN;
	bool run_wide = a == ANS_ALLOW_RUN || a == ANS_DENY_RUN;
	const char *who = strcmp(how, "tty") == 0 ? "answered on the terminal" :
						    "answered on the approval socket";
	cw_cap_kind cap = p->cap;
	char *scope = strdup(p->scope); /* P is freed by complete() */
	if (!scope) {
		complete(run, p, false, NULL, NULL, "out of memory");
		return;
	}

	if (run_wide)
		remember(A, cap, scope, allow, how);
	complete(run, p, allow, how, run_wide ? "run" : "once", who);
	for (size_t i = 0; run_wide && i < A->npend;) {
		struct pending *q = A->pend[i];
		if (q->cap == cap && strcmp(q->scope, scope) == 0) {
			complete(run, q, allow, how, "run", who);
			i = 0;
		} else {
			i++;
		}
	}
	free(scope);
}

static struct pending *find_id(struct cw_approval *A, uint64_t id)
{
	for (size_t i = 0; i < A->npend; i++)
		if (A->pend[i]->id == id)
			return A->pend[i];
	return NULL;
}

static void client_drop(struct cw_run *run, int ci)
{
	struct cw_approval *A = run->approval;
	struct client *c = &A->cl[ci];
	if (c->fd < 0)
		return;
	epoll_ctl(A->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->len = 0;
	c->broken = false;
	/* A dropped client means deny for what it was asked. */
	for (size_t i = 0; i < A->npend;) {
		struct pending *p = A->pend[i];
		if (p->to_socket && p->client == ci) {
			complete(run, p, false, NULL, NULL, "the approval client went away");
			i = 0;
		} else {
			i++;
		}
	}
	cw_info("approval client disconnected");
}

static void client_line(struct cw_run *run, int ci, const char *line)
{
	struct cw_approval *A = run->approval;
	cJSON *o = cJSON_Parse(line);
	const cJSON *id = o ? cJSON_GetObjectItemCaseSensitive(o, "id") : NULL;
	const cJSON *dec = o ? cJSON_GetObjectItemCaseSensitive(o, "decision") : NULL;
	const cJSON *rem = o ? cJSON_GetObjectItemCaseSensitive(o, "remember") : NULL;
	struct pending *p;

	if (!cJSON_IsNumber(id) || !cJSON_IsString(dec) ||
	    (strcmp(dec->valuestring, "allow") && strcmp(dec->valuestring, "deny")) ||
	    (rem && !cJSON_IsBool(rem))) {
		cw_warn("approval socket: malformed response ignored (want {\"id\":N,"
			"\"decision\":\"allow\"|\"deny\",\"remember\":bool})");
		client_send(A, ci, "{\"error\":\"malformed response\"}\n");
		goto out;
	}
	p = find_id(A, (uint64_t)id->valuedouble);
	if (!p || !p->to_socket || p->client != ci) {
		client_send(A, ci, "{\"error\":\"unknown id\"}\n");
		goto out;
	}
	bool allow = strcmp(dec->valuestring, "allow") == 0;
	bool run_wide = rem && cJSON_IsTrue(rem);
	answer(run, p, allow ? (run_wide ? ANS_ALLOW_RUN : ANS_ALLOW_ONCE) :
			       (run_wide ? ANS_DENY_RUN : ANS_DENY_ONCE), "socket");
out:
	cJSON_Delete(o);
}

static void client_read(struct cw_run *run, int ci)
{
	struct cw_approval *A = run->approval;
	struct client *c = &A->cl[ci];
	for (;;) {
		ssize_t r = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			client_drop(run, ci);
			return;
		}
		c->len += (size_t)r;
		char *nl;
		while (c->fd >= 0 && (nl = memchr(c->buf, '\n', c->len))) {
			*nl = '\0';
			if (!c->overlong)
				client_line(run, ci, c->buf);
			c->overlong = false;
			size_t used = (size_t)(nl - c->buf) + 1;
			memmove(c->buf, nl + 1, c->len - used);
			c->len -= used;
		}
		if (c->fd < 0)
			return;
		if (c->len == sizeof(c->buf) - 1) {
			c->overlong = true; /* skipped to the next newline */
			c->len = 0;
		}
	}
}

static int client_add(struct cw_run *run, int fd)
{
	struct cw_approval *A = run->approval;
	int ci = -1;
	for (int i = 0; i < MAX_CLIENTS && ci < 0; i++)
		if (A->cl[i].fd < 0)
			ci = i;
	if (ci < 0) {
		close(fd);
		return -EMFILE;
	}
	A->cl[ci].fd = fd;
	A->cl[ci].len = 0;
	A->cl[ci].overlong = false;
	struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP, .data.u32 = (uint32_t)(TAG_CLIENT + ci) };
	if (epoll_ctl(A->ep, EPOLL_CTL_ADD, fd, &e) < 0) {
		int err = -errno;
		close(fd);
		A->cl[ci].fd = -1;
		return err;
	}
	cw_info("approval client connected");
	/* Requests that waited for a client. */
	for (size_t i = 0; i < A->npend; i++)
		if (A->pend[i]->to_socket && (A->pend[i]->client < 0 || A->cl[A->pend[i]->client].fd < 0))
			socket_send(run, A->pend[i]);
	return 0;
}

/* ---- the interface ---- */

/* The socket is protected metadata for the run: the command may not
 * unlink or replace it (a fake listener at PATH would fool the client). */
static void protect(struct cw_run *run, const char *path)
{
	char abs[PATH_MAX];
	if (cw_path_normalize(run->cwd, path, abs, sizeof abs) < 0)
		return;
	char **np = realloc(run->protected_files, (run->nprotected + 2) * sizeof(*np));
	if (!np)
		return;
	run->protected_files = np;
	if (!(np[run->nprotected] = strdup(abs)))
		return;
	np[++run->nprotected] = NULL;
	run->ctx.protected_files = (const char *const *)np;
	run->ctx.nprotected = run->nprotected;
}

int cw_approval_fd(const struct cw_run *run)
{
	const struct cw_approval *A = run->approval;
	return A && A->active ? A->ep : -1;
}

int cw_approval_init(struct cw_run *run)
{
	struct cw_approval *A = calloc(1, sizeof(*A));
	if (!A)
		return -ENOMEM;
	A->ep = A->timer = A->tty = A->listen_fd = -1;
	run->approval = A;
	const struct cw_options *o = run->opts;
	A->timeout = o->approval_timeout > 0 ? o->approval_timeout : DEFAULT_TIMEOUT;
	for (int i = 0; i < MAX_CLIENTS; i++)
		A->cl[i].fd = -1;
	A->use_socket = o->approval_socket || o->approval_fd >= 0;
	if (run->observe)
		return 0; /* nothing is denied: nothing to ask */
	A->ep = epoll_create1(EPOLL_CLOEXEC);
	A->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (A->ep < 0 || A->timer < 0)
		return -errno;
	struct epoll_event e = { .events = EPOLLIN, .data.u32 = TAG_TIMER };
	if (epoll_ctl(A->ep, EPOLL_CTL_ADD, A->timer, &e) < 0)
		return -errno;

	if (A->use_socket) {
		if (o->approval_socket) {
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			if (strlen(o->approval_socket) >= sizeof(sa.sun_path)) {
				cw_err("--approval-socket %s: name too long", o->approval_socket);
				return -ENAMETOOLONG;
			}
			strcpy(sa.sun_path, o->approval_socket);
			A->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (A->listen_fd < 0)
				return -errno;
			mode_t old = umask(077); /* only this user may answer */
			int r = bind(A->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
			umask(old);
			if (r < 0 || listen(A->listen_fd, 4) < 0) {
				int err = -errno;
				cw_err("--approval-socket %s: %s", o->approval_socket, strerror(errno));
				return err;
			}
			A->sock_path = strdup(o->approval_socket);
			protect(run, o->approval_socket);
			e.data.u32 = TAG_LISTEN;
			if (epoll_ctl(A->ep, EPOLL_CTL_ADD, A->listen_fd, &e) < 0)
				return -errno;
		}
		if (o->approval_fd >= 0) {
			int fd = fcntl(o->approval_fd, F_DUPFD_CLOEXEC, 3);
			if (fd < 0) {
				cw_err("--approval-fd %d: %s", o->approval_fd, strerror(errno));
				return -EBADF;
			}
			close(o->approval_fd); /* the command must not inherit it */
			int r = client_add(run, fd);
			if (r < 0)
				return r;
		}
	} else if (isatty(STDIN_FILENO)) {
		/* The terminal the user runs capwatch from; the command's
		 * stdout and stderr may go anywhere else. */
		A->tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (A->tty >= 0 && tcgetpgrp(A->tty) != getpgrp()) {
			/* A background job cannot read the terminal: asks
			 * are denied at once, as with no terminal. */
			cw_debug("not the terminal's foreground process group: no approval prompts");
			close(A->tty);
			A->tty = -1;
		}
		/* watched only while a question is on it (tty_sync) */
	}
	A->active = A->tty >= 0 || A->use_socket;
	return 0;
}

bool cw_approval_refused(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_approval *A = n->run->approval;
	if (!A || !A->once_set || A->once.allow || A->once.notif_id != n->req->id)
		return false;
	const struct once *o = &A->once;
	const struct pending *q = o->q;
	struct cw_decision *d = &ev->d;
	/* the question's decision, as it was asked */
	d->cap = q->cap;
	snprintf(d->scope, sizeof(d->scope), "%s", q->scope);
	snprintf(d->rule, sizeof(d->rule), "%s", q->rule);
	memcpy(d->reason, q->reason, sizeof(d->reason));
	d->source = q->source;
	d->profile_verdict = CW_ASK;
	d->err = q->err;
	if (o->how) {
		set_approval(d, false, o->how, o->span, o->why);
	} else {
		/* nobody answered: still the policy's deny, asking for approval */
		char r[CW_REASON_MAX];
		snprintf(r, sizeof r, "%.*s; not approved: %s", (int)(sizeof r - 64), q->reason, o->why);
		memcpy(d->reason, r, sizeof d->reason);
		d->verdict = CW_DENY;
		d->next_action = CW_NEXT_REQUEST_APPROVAL;
	}
	return true;
}

bool cw_approval_remembered(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_approval *A = n->run->approval;
	struct once *o = A ? &A->once : NULL;
	if (o && A->once_set && o->allow && !o->used && o->notif_id == n->req->id &&
	    o->q->cap == ev->d.cap && strcmp(o->q->scope, ev->d.scope) == 0) {
		o->used = true;
		set_approval(&ev->d, true, o->how, o->span, o->why);
		return true;
	}
	for (size_t i = 0; A && i < A->nrem; i++) {
		struct remembered *r = &A->rem[i];
		if (r->cap == ev->d.cap && strcmp(r->scope, ev->d.scope) == 0) {
			set_approval(&ev->d, r->allow, r->how, "run",
				     strcmp(r->how, "tty") == 0 ?
				     "answered on the terminal for this run" :
				     "answered on the approval socket for this run");
			return r->allow;
		}
	}
	/* Not settled: deny, and tell the caller to request approval. */
	ev->d.verdict = CW_DENY; /* what happened; profile_verdict keeps "ask" */
	ev->d.next_action = CW_NEXT_REQUEST_APPROVAL;
	return false;
}

bool cw_approval_defer(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_approval *A = n->run->approval;
	struct cw_run *run = n->run;
	if (!A || !A->active || run->observe || ev->d.profile_verdict != CW_ASK ||
	    ev->d.next_action != CW_NEXT_REQUEST_APPROVAL || !deferrable(ev) ||
	    run->timed_out || run->cancelled)
		return false;
	/* The answer for this very notification was a denial (or nobody's):
	 * it is not asked again. */
	if (A->once_set && !A->once.allow && A->once.notif_id == n->req->id)
		return false;
	if (A->npend >= MAX_PENDING) {
		cw_warn("too many operations waiting for approval: denied");
		return false;
	}
	struct pending *p = pending_new(n, ev);
	if (!p)
		return false;
	p->id = ++A->next_id;
	p->deadline = cw_now() + A->timeout;
	p->to_socket = A->use_socket;
	A->pend[A->npend++] = p;
	cw_record_note(run, p->tgid, "info", "waiting for approval (%s): %s %s %s",
		    p->to_socket ? "approval socket" : "terminal", p->syscall,
		    cw_cap_name(p->cap), p->scope);
	if (p->to_socket)
		socket_send(run, p);
	else
		tty_ask_next(run);
	arm_timer(A);
	return true;
}

static void tty_read(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	char buf[128];
	/* Only while a question is open: what is typed afterwards is the
	 * command's (a canonical-mode read returns one line at most). */
	while (A->tty >= 0 && A->asking) {
		ssize_t r = read(A->tty, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				/* The terminal is gone (hangup) or cannot be read
				 * (capwatch was put in the background): no more
				 * prompts; what waits for one is denied. */
				A->asking = NULL;
				tty_sync(A);
				close(A->tty);
				A->tty = -1;
				for (size_t i = 0; i < A->npend;) {
					if (!A->pend[i]->to_socket) {
						complete(run, A->pend[i], false, NULL, NULL,
							 "the terminal cannot be read");
						i = 0;
					} else {
						i++;
					}
				}
				if (!A->use_socket)
					A->active = false;
			}
			return;
		}
		for (ssize_t i = 0; i < r; i++) {
			char c = buf[i];
			if (c != '\n' && c != '\r') {
				if (A->tlen < sizeof(A->tbuf) - 1)
					A->tbuf[A->tlen++] = c;
				continue;
			}
			A->tbuf[A->tlen] = '\0';
			A->tlen = 0;
			struct pending *p = A->asking;
			if (!p)
				continue; /* typed ahead with nothing asked */
			const char *s = A->tbuf;
			while (*s == ' ')
				s++;
			enum answer a;
			if (*s == 'o' || *s == 'y')
				a = ANS_ALLOW_ONCE;
			else if (*s == 'r' || *s == 'a')
				a = ANS_ALLOW_RUN;
			else if (*s == 'd')
				a = ANS_DENY_ONCE;
			else if (*s == 'n')
				a = ANS_DENY_RUN;
			else {
				tty_write(A, "capwatch: answer o, r, d or n: ");
				continue;
			}
			A->asking = NULL;
			tty_sync(A);
			tty_write(A, a == ANS_ALLOW_ONCE || a == ANS_ALLOW_RUN ? "capwatch: allowed\r\n" :
									 "capwatch: denied\r\n");
			answer(run, p, a, "tty");
			tty_ask_next(run);
		}
	}
}

static void expire(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	double now = cw_now();
	for (size_t i = 0; i < A->npend;) {
		struct pending *p = A->pend[i];
		struct cw_notif n = { .run = run, .req = &p->req };
		if (!cw_notif_valid(&n)) {
			/* Killed, or interrupted by a signal (a restarted call
			 * comes back as a new question): nothing to answer. */
			if (A->asking == p)
				tty_write(A, "\r\ncapwatch: the operation was interrupted; question withdrawn\r\n");
			pending_remove(A, p);
			pending_free(p);
			i = 0;
		} else if (p->deadline <= now) {
			if (A->asking == p)
				tty_write(A, "\r\ncapwatch: no answer in time: denied\r\n");
			complete(run, p, false, NULL, NULL, "no answer in time");
			i = 0;
		} else {
			i++;
		}
	}
	tty_ask_next(run);
	arm_timer(A);
}

/* Drop the clients a send failed on (socket_send), from the loop. */
static void drop_broken(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (A->cl[i].fd >= 0 && A->cl[i].broken)
			client_drop(run, i);
}

void cw_approval_dispatch(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	drop_broken(run);
	struct epoll_event evs[8];
	int k = epoll_wait(A->ep, evs, CW_ARRAY_SIZE(evs), 0);
	for (int i = 0; i < k; i++) {
		uint32_t tag = evs[i].data.u32;
		if (tag == TAG_TIMER) {
			uint64_t x;
			if (read(A->timer, &x, sizeof x) < 0) {
				/* EAGAIN: re-armed meanwhile */
			}
			expire(run);
		} else if (tag == TAG_TTY) {
			if (A->tty >= 0)
				tty_read(run);
		} else if (tag == TAG_LISTEN) {
			int fd = accept4(A->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			struct ucred uc;
			socklen_t ul = sizeof(uc);
			if (fd < 0)
				continue;
			/* The supervised command must not answer its own asks;
			 * capwatch itself performs the tree's unix connects
			 * (net.c), so a peer that is capwatch is the tree too
			 * (e146). */
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0 ||
			    uc.pid == getpid() || cw_tracker_in_tree(run, uc.pid)) {
				cw_warn("approval socket: a connection from the supervised tree (pid %d) refused",
					(int)uc.pid);
				close(fd);
				continue;
			}
			client_add(run, fd);
		} else if (tag >= TAG_CLIENT && tag < TAG_CLIENT + MAX_CLIENTS) {
			int ci = (int)(tag - TAG_CLIENT);
			if (A->cl[ci].fd >= 0)
				client_read(run, ci);
		}
	}
	/* Deadlines pass while the loop is busy too. */
	for (size_t i = 0; i < A->npend; i++)
		if (A->pend[i]->deadline <= cw_now()) {
			expire(run);
			break;
		}
}

void cw_approval_shutdown(struct cw_run *run)
{
	struct cw_approval *A = run->approval;
	if (!A)
		return;
	drop_broken(run);
	while (A->npend) {
		if (A->asking == A->pend[0])
			tty_write(A, "\r\ncapwatch: run over: denied\r\n");
		complete(run, A->pend[0], false, NULL, NULL, "capwatch is exiting");
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (A->cl[i].fd >= 0) {
			close(A->cl[i].fd);
			A->cl[i].fd = -1;
		}
	if (A->listen_fd >= 0) {
		close(A->listen_fd);
		A->listen_fd = -1;
		if (A->sock_path)
			unlink(A->sock_path);
	}
	free(A->sock_path);
	A->sock_path = NULL;
	if (A->tty >= 0)
		close(A->tty);
	if (A->timer >= 0)
		close(A->timer);
	if (A->ep >= 0)
		close(A->ep);
	A->tty = A->timer = A->ep = -1;
	for (size_t i = 0; i < A->nrem; i++)
		free(A->rem[i].scope);
	free(A->rem);
	free(A);
	run->approval = NULL;
}
