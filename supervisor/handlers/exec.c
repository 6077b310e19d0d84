/* The exec family: execve, execveat. The decision here reads memory the
 * target can rewrite, so it is advisory; the authoritative record and check
 * is the PTRACE_EVENT_EXEC stop in ptrace.c (kernel-notes K21). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/state.h"
#include "supervisor/ptrace.h"
#include "supervisor/kernel.h"
#include "supervisor/util.h"

/* The path, its resolution and argv are copied into the call's scratch
 * (n->call->exec, handlers/scratch.h). */
#define PAGE_SIZE_ CW_EXEC_PAGE
#define ARGV_MAX CW_EXEC_ARGV_MAX

/* The pointer array as far as one read gets: up to ARGV_MAX + 1 slots,
 * not past the end of the page the array starts in (the next page may be
 * unmapped although the array ends before it). Returns the slots read. */
static size_t read_ptrs(pid_t tid, uint64_t addr, uint64_t *p, size_t max)
{
	size_t to_end = (PAGE_SIZE_ - (size_t)(addr % PAGE_SIZE_)) / sizeof(*p);
	size_t want = max < to_end ? max : to_end;
	if (want == 0)
		want = 1; /* a slot straddling the page end: cw_mem_read below */
	struct iovec local = { p, want * sizeof(*p) };
	struct iovec remote = { (void *)(uintptr_t)addr, want * sizeof(*p) };
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < (ssize_t)sizeof(*p))
		return cw_mem_read(tid, addr, p, sizeof(*p)) == 0 ? 1 : 0;
	return (size_t)n / sizeof(*p);
}

/* argv[k] at P: from the window (the last stretch of target memory
 * read, up to the end of its page: the strings of one argv are mostly
 * next to each other, and argv[0] is often the path itself, so most of
 * them come out of it without another read) when it holds the whole
 * string, else read to the end of P's page (and kept as the window), else
 * (a string that runs into the next page) read the usual way. The window
 * is valid for one notification only. */
static ssize_t read_arg(struct cw_exec_scratch *x, pid_t tid, uint64_t p, char *out, size_t cap)
{
	struct cw_exec_window *win = &x->win;
	if (p < win->addr || p >= win->addr + win->len) {
		size_t want = PAGE_SIZE_ - (size_t)(p % PAGE_SIZE_);
		struct iovec local = { win->buf, want };
		struct iovec remote = { (void *)(uintptr_t)p, want };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		win->len = 0;
		if (n <= 0)
			return cw_mem_read_string(tid, p, out, cap);
		win->addr = p;
		win->len = (size_t)n;
	}
	size_t off = (size_t)(p - win->addr);
	const char *nul = memchr(win->buf + off, '\0', win->len - off);
	if (!nul)
		return cw_mem_read_string(tid, p, out, cap);
	size_t len = (size_t)(nul - (win->buf + off));
	if (len + 1 > cap)
		return -ENAMETOOLONG;
	memcpy(out, win->buf + off, len + 1);
	return (ssize_t)len;
}

/* Best effort: a failure leaves a shorter argv in the record only. The
 * pointer array is read a page at a time rather than a slot at a time,
 * and the strings through the window above: for /bin/true from a shell,
 * one read for the whole argv (it was 2 reads per argument plus one for
 * the terminator). */
static void read_argv(struct cw_notif *n, uint64_t addr)
{
	struct cw_exec_scratch *x = &n->call->exec;
	size_t used = 0, k = 0;
	uint64_t ptrs[ARGV_MAX + 1];
	x->argv_complete = addr == 0;
	size_t have = 0, at = 0;
	while (addr && k < ARGV_MAX) {
		if (at == have) {
			have = read_ptrs(n->tid, addr + k * sizeof(uint64_t), ptrs, ARGV_MAX + 1 - k);
			at = 0;
			if (have == 0)
				break;
		}
		uint64_t p = ptrs[at++];
		if (!p)
			x->argv_complete = true;
		if (!p || used >= sizeof(x->argv_buf))
			break;
		ssize_t len = read_arg(x, n->tid, p, x->argv_buf + used, sizeof(x->argv_buf) - used);
		if (len < 0)
			break;
		x->argv_ptrs[k++] = x->argv_buf + used;
		used += (size_t)len + 1;
	}
	x->argv_ptrs[k] = NULL;
}

/* The whole argv at ADDR for the record (the kernel back end's exec
 * record when the process is gone before /proc could be read): whole
 * strings within CW_ARGV_READ_BYTES and CW_ARGV_READ_ARGS (ptrace.h).
 * Each argument counts as its pointer plus its bytes and NUL, so that
 * empty ones (0 bytes of text) cannot make this loop a million reads on
 * the event loop (red team 24, F4). *CUT: something was left unread.
 * NULL when nothing could be read. */
static char **read_full_argv(struct cw_notif *n, uint64_t addr, bool *cut)
{
	const struct cw_exec_scratch *x = &n->call->exec;
	*cut = false;
	if (x->argv_complete) {
		/* The usual case: the first read had it all. */
		size_t k = 0;
		while (x->argv_ptrs[k])
			k++;
		char **v = calloc(k + 1, sizeof(*v));
		for (size_t i = 0; v && i < k; i++)
			if (!(v[i] = strdup(x->argv_ptrs[i]))) {
				cw_tracker_free_argv(v);
				return NULL;
			}
		return v;
	}
	size_t cap = 256, k = 0, bytes = 0;
	char **v = calloc(cap + 1, sizeof(*v));
	char *s = malloc(PATH_MAX * 4);
	uint64_t ptrs[512];
	size_t have = 0, at = 0;
	while (v && s && addr) {
		if (at == have) {
			have = read_ptrs(n->tid, addr + k * sizeof(uint64_t), ptrs, CW_ARRAY_SIZE(ptrs));
			at = 0;
			if (have == 0) {
				*cut = true;
				break;
			}
		}
		uint64_t p = ptrs[at++];
		if (!p)
			break;
		if (bytes >= CW_ARGV_READ_BYTES || k >= CW_ARGV_READ_ARGS) {
			*cut = true;
			break;
		}
		ssize_t len = cw_mem_read_string(n->tid, p, s, PATH_MAX * 4);
		if (len < 0) {
			*cut = true;
			break;
		}
		if (k == cap) {
			char **nv = realloc(v, (cap * 2 + 1) * sizeof(*nv));
			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		if (!(v[k] = strdup(s)))
			break;
		v[++k] = NULL;
		bytes += (size_t)len + 1 + sizeof(uint64_t);
	}
	free(s);
	if (v && k == 0) {
		free(v);
		v = NULL;
	}
	return v;
}

/* An allowed exec: remember what the decided path names now (device and
 * inode), for the exec stop, which identifies the image the kernel loaded
 * by these when its name cannot be read back (ptrace.c), or for the
 * kernel back end's first fanotify event of the exec, held open (O_PATH)
 * so that no other file can take its number meanwhile (kernel.c). The
 * decided path first; else the name as the target gave it, looked up
 * from its own cwd or descriptor (a memfd or deleted file has no path to
 * stat). */
static void prepare_exec(struct cw_notif *n, struct cw_event *ev)
{
	const char *raw = n->call->exec.raw;
	struct cw_run *run = n->run;
	struct stat st;
	char alt[PATH_MAX + 64];
	const char *look = NULL;
	if (ev->op.path && ev->op.path[0] == '/')
		look = ev->op.path;
	int pin = -1;
	bool ok = false;
	for (int pass = 0; pass < 2 && !ok; pass++) {
		if (pass == 1) {
			int dirfd = ev->has_dirfd ? ev->dirfd : AT_FDCWD;
			int k;
			if (raw[0] == '/')
				k = snprintf(alt, sizeof(alt), "%s", raw);
			else if (raw[0] == '\0' && (ev->flags & AT_EMPTY_PATH) && dirfd >= 0)
				k = snprintf(alt, sizeof(alt), "/proc/%d/fd/%d", (int)n->tid, dirfd);
			else if (dirfd == AT_FDCWD)
				k = snprintf(alt, sizeof(alt), "/proc/%d/cwd/%s", (int)n->tid, raw);
			else
				k = snprintf(alt, sizeof(alt), "/proc/%d/fd/%d/%s", (int)n->tid, dirfd, raw);
			look = k > 0 && (size_t)k < sizeof(alt) ? alt : NULL;
		}
		if (!look)
			continue;
		if (run->kernel) {
			pin = open(look, O_PATH | O_CLOEXEC);
			ok = pin >= 0 && fstat(pin, &st) == 0;
			if (!ok && pin >= 0) {
				close(pin);
				pin = -1;
			}
		} else {
			ok = stat(look, &st) == 0;
		}
	}
	bool image = ok && S_ISREG(st.st_mode);
	if (run->kernel) {
		/* The kernel back end hears of the exec after the fact: what
		 * an earlier exec of this process left queued is read first,
		 * then this one's argv is kept for its record. Only what the
		 * profile allowed is approved (not observe's "would deny"). */
		cw_kernel_sync(run);
		bool allowed = image && ev->d.verdict == CW_ALLOW;
		cw_kernel_exec_allowed(run, n->tid, n->tgid, allowed ? pin : -1, allowed ? &st : NULL);
		if (!allowed && pin >= 0)
			close(pin);
		bool cut;
		char **argv = read_full_argv(n, n->call->exec.argv_addr, &cut);
		cw_tracker_pending_argv(run, n->tgid, argv, cut);
	} else if (image) {
		cw_tracker_approve_image(run, n->tgid, st.st_dev, st.st_ino);
	}
}

static void enforce_exec(struct cw_notif *n, struct cw_event *ev)
{
	/* Exec cannot be emulated. CONTINUE is checked afterwards: the exec
	 * stop compares /proc/PID/exe with the policy before the new image
	 * runs and kills it if needed. */
	enforce_continue(n, ev);
}

/* The walk's shortcut for the common exec (execve, or execveat from
 * AT_FDCWD or with an absolute name, no flags: a shell's and a
 * compiler driver's probes of each PATH entry, the build's tools): the
 * name joined to the cwd, as fs_open.c's open_lexically takes it, proven
 * free of symlinks by an O_PATH openat2 with RESOLVE_NO_SYMLINKS and
 * RESOLVE_NO_MAGICLINKS. True when RES is filled: the name exists, or a
 * component is missing (ENOENT, as the kernel's) and no ".." comes after
 * (cw_has_dotdot); false, the walk resolves it. What the notification decides on it is checked
 * again on the file the kernel runs (fanotify in the kernel back end,
 * the exec stop in the portable one), as any exec decision. */
static bool exec_lexically(struct cw_notif *n, int dirfd, int flags, const char *raw, struct cw_resolved *res)
{
	if (raw[0] == '\0' || (dirfd != AT_FDCWD && raw[0] != '/') || flags != 0)
		return false;
	char full[PATH_MAX];
	if (cw_resolve_lexical(n->run->links, n->tid, raw, true, res, full, sizeof(full)) < 0)
		return false;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, full, &how, sizeof(how));
	if (fd >= 0) {
		close(fd);
		res->exists = true;
		return true;
	}
	if (errno == ENOENT && !cw_has_dotdot(full)) {
		res->exists = false;
		return true;
	}
	return false; /* ELOOP: a symlink on the way; ENOTDIR and the rest: the walk's errno */
}

void cw_handle_exec(struct cw_notif *n)
{
	struct cw_exec_scratch *x = &n->call->exec;
	char *raw = x->raw;
	struct cw_resolved *res = &x->res;
	struct cw_event ev;
	bool at = n->req->data.nr == __NR_execveat;
	int dirfd = at ? arg_int(n, 0) : AT_FDCWD;
	int flags = at ? arg_int(n, 4) : 0;
	int rflags = CW_RES_WANT_READ;

	cw_event_init(&ev, n->syscall);
	if (flags & AT_SYMLINK_NOFOLLOW)
		rflags |= CW_RES_NOFOLLOW;
	if (flags & AT_EMPTY_PATH)
		rflags |= CW_RES_EMPTY_PATH; /* fexecve */
	uint64_t path_addr = arg_u64(n, at ? 1 : 0);
	ssize_t len = cw_mem_read_string(n->tid, path_addr, raw, sizeof(x->raw));
	if (len < 0) {
		answer_unreadable(n, (int)-len);
		return;
	}
	/* The path's first read went to the end of its page (resolve.h):
	 * that stretch is the window argv[0] is usually found in. */
	size_t chunk0 = PAGE_SIZE_ - (size_t)(path_addr % PAGE_SIZE_);
	x->win.len = 0;
	if (chunk0 <= sizeof(x->raw) && (size_t)len < chunk0) {
		memcpy(x->win.buf, raw, chunk0);
		x->win.addr = path_addr;
		x->win.len = chunk0;
	}
	int e = exec_lexically(n, dirfd, flags, raw, res)
			? 0
			: cw_resolve_path(n->run->links, n->tid, n->tgid, dirfd, raw, rflags, res);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	/* A name that is not there (a shell or execvp trying each PATH
	 * entry): the kernel's ENOENT, nothing to decide or record, so that
	 * learn does not turn probes into rules. Made since we looked: a
	 * race the exec lost. */
	if (!res->exists && res->path[0] == '/' && strncmp(res->path, "/dev/fd/", 8) != 0 &&
	    !n->run->observe) {
		cw_answer_error(n, ENOENT);
		return;
	}
	x->argv_addr = arg_u64(n, at ? 2 : 1);
	read_argv(n, x->argv_addr);

	ev.op.kind = CW_OP_EXEC;
	ev.op.path = res->path;
	ev.raw_path = raw;
	ev.raw_path_len = (size_t)len;
	ev.argv = x->argv_ptrs;
	if (at) {
		ev.dirfd = dirfd;
		ev.has_dirfd = true;
		ev.flags = flags;
		ev.has_flags = true;
	}
	cw_event_finish(n, &ev, prepare_exec, enforce_exec);
}
