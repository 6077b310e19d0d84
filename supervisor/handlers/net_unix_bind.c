/* bind() of a pathname unix socket, performed by capwatch in the
 * directory it decided on, under the name the caller gave (issue 17).
 *
 * The kernel records the name as bind() was given it: getsockname(),
 * getpeername() and accept() give it back, and a client connects to it.
 * capwatch must bind in the directory it resolved and holds (never look up
 * again a name the target can change), but binding the basename from that
 * directory records the basename ("tmpXXXX", not "/tmp/tmpXXXX/sock").
 * So the bind is performed in a short-lived helper process with a private
 * view of the file system in which the caller's own string leads, by
 * lexical steps, to the held directory:
 *
 *   fchdir(held dir); unshare(CLONE_NEWNS) (with CLONE_NEWUSER when
 *   capwatch has no CAP_SYS_ADMIN; probed, not assumed), which gives the
 *   cwd on the new namespace's copy of its mount (copy_mnt_ns): the very
 *   dentry decided on, held as an O_PATH descriptor; every mount
 *   private; a tmpfs as a scratch root; in it the chain of directories
 *   the caller's path walks through (a fake cwd deep enough for its
 *   ".."); the held directory bind-mounted at the last one from
 *   /proc/self/fd/N; chroot there; the target's umask and capabilities;
 *   bind() with the caller's exact bytes and length.
 *
 * The scratch tree has no symlinks, so the kernel's walk there is the
 * lexical one (plan_view computes it), except at the mounted directory:
 * a name looked up while the walk stands on it would be looked up in the
 * held directory ("x/../s" with "." the held directory). Such a path is
 * not bound this way: the caller falls back to the basename.
 *
 * The helper is started and its report waited for on the event loop
 * thread, bounded (VIEW_WAIT_MS): a few system calls on memory-only file
 * systems, well under a millisecond; its exit, which takes the namespace
 * down, is not waited for (run_helper). Not from a worker thread: the
 * back ends reap with waitpid(-1) on this thread, and a child reaped
 * there would be taken for a tracee; the only child, the short-lived
 * parent of the helper, is reaped here before the loop runs again. After
 * fork() the processes make system calls only (no allocation: another
 * thread may hold malloc's lock). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "supervisor/handlers/net_impl.h"
#include "supervisor/privs.h"
#include "supervisor/util.h"
#include "policy/addr.h"

#define VIEW_WAIT_MS 5000
/* Directories of the chain: a sun_path of 108 bytes has at most 54
 * components, and the fake cwd as many again. */
#define VIEW_MAX_DIRS 112
#define VIEW_PATH_MAX 512

struct view_job {
	int sock, dir, umask;
	const struct sockaddr_storage *raw;
	socklen_t rawlen;
	struct cw_caps caps;      /* the thread's (lowered to the command's) */
	bool absolute;
	bool cwd_is_leaf;         /* relative names: the fake cwd is the leaf */
	char dirs[VIEW_MAX_DIRS][VIEW_PATH_MAX]; /* to create, in order */
	unsigned ndirs;
	char leaf[VIEW_PATH_MAX]; /* where the held directory is mounted */
	char cwd[VIEW_PATH_MAX];  /* relative names: the fake cwd */
	char root[VIEW_PATH_MAX]; /* the chroot */
	char uid_map[64], gid_map[64];
};

struct view_result {
	int stage; /* VIEW_*: what failed */
	int err;
};

enum { VIEW_OK, VIEW_BUILD, VIEW_BIND };

/* The scratch root is mounted on a directory that exists in every
 * system capwatch runs on and that nothing below needs (not /proc: the
 * bind-mount source is a /proc/self/fd link). */
static const char *scratch_mountpoint(void)
{
	static const char *const cand[] = { "/tmp", "/mnt", "/dev", "/run", "/var/tmp" };
	struct stat st;
	for (size_t i = 0; i < CW_ARRAY_SIZE(cand); i++)
		if (lstat(cand[i], &st) == 0 && S_ISDIR(st.st_mode))
			return cand[i];
	return NULL;
}

/* Position of the walk: components below the scratch root, as a path
 * relative to it ("" is the root). */
struct walk {
	char p[VIEW_PATH_MAX];
	size_t len;
};

static int walk_down(struct walk *w, const char *name, size_t l)
{
	if (w->len + 1 + l >= sizeof(w->p))
		return -ENAMETOOLONG;
	if (w->len)
		w->p[w->len++] = '/';
	memcpy(w->p + w->len, name, l);
	w->len += l;
	w->p[w->len] = '\0';
	return 0;
}

static void walk_up(struct walk *w)
{
	char *s = memrchr(w->p, '/', w->len);
	w->len = s ? (size_t)(s - w->p) : 0;
	w->p[w->len] = '\0';
}

static int add_dir(struct view_job *j, const char *mnt, const struct walk *w)
{
	if (j->ndirs >= VIEW_MAX_DIRS)
		return -E2BIG;
	int l = snprintf(j->dirs[j->ndirs], VIEW_PATH_MAX, "%s/%s", mnt, w->p);
	if (l < 0 || l >= VIEW_PATH_MAX)
		return -ENAMETOOLONG;
	j->ndirs++;
	return 0;
}

/* One pass over the directory part DIRP (LEN bytes) of the caller's name
 * from START: the positions it visits (added to J when J), the last one
 * in *END. With LEAF: -ELOOP when a name is looked up while standing on
 * LEAF (see above). */
static int walk_dirs(const char *dirp, size_t len, const struct walk *start, struct walk *end,
		     struct view_job *j, const char *mnt, const char *leaf)
{
	*end = *start;
	size_t i = 0;
	while (i < len) {
		size_t k = i;
		while (k < len && dirp[k] != '/')
			k++;
		size_t l = k - i;
		const char *c = dirp + i;
		i = k + 1;
		if (l == 0 || (l == 1 && c[0] == '.'))
			continue;
		if (l == 2 && c[0] == '.' && c[1] == '.') {
			walk_up(end); /* at the root: stays, as the kernel's */
			continue;
		}
		if (leaf && strcmp(end->p, leaf) == 0)
			return -ELOOP;
		int e = walk_down(end, c, l);
		if (e < 0)
			return e;
		if (j && (e = add_dir(j, mnt, end)) < 0)
			return e;
	}
	return 0;
}

/* The plan for NAME (the caller's path, with a '/'): 0, or -ELOOP /
 * -ENAMETOOLONG / -E2BIG when it cannot be bound this way. */
static int plan_view(struct view_job *j, const char *name, const char *mnt)
{
	const char *slash = strrchr(name, '/');
	size_t dlen = (size_t)(slash - name);
	struct walk start = { .p = "", .len = 0 }, end;
	j->ndirs = 0;
	j->absolute = name[0] == '/';
	if (!j->absolute) {
		/* A fake cwd one level deeper than the name's ".." can climb:
		 * the walk never reaches the scratch root, which stays the
		 * chroot. */
		unsigned ups = 0;
		for (const char *p = name; p < slash; p++)
			if (p[0] == '.' && p[1] == '.' && (p == name || p[-1] == '/') &&
			    (p + 2 == slash || p[2] == '/'))
				ups++;
		for (unsigned u = 0; u <= ups; u++) {
			int e = walk_down(&start, "c", 1);
			if (e < 0 || (e = add_dir(j, mnt, &start)) < 0)
				return e < 0 ? e : -E2BIG;
		}
	}
	int e = walk_dirs(name, dlen, &start, &end, NULL, NULL, NULL);
	if (e < 0)
		return e;
	char leaf[VIEW_PATH_MAX];
	memcpy(leaf, end.p, end.len + 1);
	e = walk_dirs(name, dlen, &start, &end, j, mnt, leaf);
	if (e < 0)
		return e;
	/* A walk that starts on the leaf must stand in the mounted
	 * directory: it is reached through the mount (the chroot for an
	 * absolute name, the fake cwd for a relative one). */
	j->cwd_is_leaf = !j->absolute && strcmp(start.p, leaf) == 0;
	if (snprintf(j->leaf, sizeof(j->leaf), "%s/%s", mnt, leaf) >= (int)sizeof(j->leaf) ||
	    snprintf(j->cwd, sizeof(j->cwd), "%s/%s", mnt, start.p) >= (int)sizeof(j->cwd) ||
	    snprintf(j->root, sizeof(j->root), "%s", mnt) >= (int)sizeof(j->root))
		return -ENAMETOOLONG;
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t l = (ssize_t)strlen(text);
	ssize_t w = write(fd, text, (size_t)l);
	close(fd);
	return w == l ? 0 : -1;
}

/* N in decimal at OUT (room for 11 bytes): no snprintf after fork. */
static void fd_text(char *out, int n)
{
	char t[12];
	int l = 0;
	do
		t[l++] = (char)('0' + n % 10);
	while ((n /= 10) > 0 && l < 11);
	while (l)
		*out++ = t[--l];
	*out = '\0';
}

static __attribute__((noreturn)) void child_report(int wfd, int stage, int err)
{
	struct view_result r = { stage, err };
	ssize_t w = write(wfd, &r, sizeof(r));
	_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
}

/* Close every descriptor but the three of KEEP (the helper holds nothing
 * else of capwatch's: above all not the seccomp listener). */
static void close_others(int keep[3])
{
	for (int a = 0; a < 3; a++) /* sort three */
		for (int b = a + 1; b < 3; b++)
			if (keep[b] < keep[a]) {
				int t = keep[a];
				keep[a] = keep[b];
				keep[b] = t;
			}
	unsigned lo = 0;
	for (int a = 0; a < 3; a++) {
		if (keep[a] > (int)lo)
			syscall(SYS_close_range, lo, (unsigned)keep[a] - 1, 0);
		lo = (unsigned)keep[a] + 1;
	}
	syscall(SYS_close_range, lo, ~0u, 0);
}

/* Write the user namespace's maps. The files of a process that is not
 * dumpable (capwatch is not: run.c) belong to root, even for the process
 * itself, so the helper is dumpable for these three writes only. Who
 * could attach meanwhile: a process of the same uid; the tree cannot
 * (ptrace and /proc/PID/mem of a process outside the tree are decided as
 * process_control), and the helper holds only the target's socket, the
 * directory it may bind in and the pipe (close_others). */
static int write_maps(const struct view_job *j)
{
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		return -1;
	int r = 0;
	if ((write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) ||
	    write_file("/proc/self/uid_map", j->uid_map) < 0 || write_file("/proc/self/gid_map", j->gid_map) < 0)
		r = -1;
	int e = errno;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	errno = e;
	return r;
}

/* The helper, after fork(): system calls only. */
static __attribute__((noreturn)) void view_child(const struct view_job *j, int wfd)
{
	int keep[3] = { j->sock, j->dir, wfd }; /* distinct: ours, ours, the pipe's */
	close_others(keep);
	struct cw_caps up = j->caps;
	up.eff = up.perm; /* CAP_SYS_ADMIN when capwatch has it */
	cw_caps_set(&up);
	/* The cwd is the held directory: unshare gives it in the new
	 * namespace on the copy of its mount (copy_mnt_ns). */
	if (fchdir(j->dir) < 0)
		child_report(wfd, VIEW_BUILD, errno);
	bool userns = false;
	if (unshare(CLONE_NEWNS) < 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			child_report(wfd, VIEW_BUILD, errno);
		userns = true;
		if (write_maps(j) < 0)
			child_report(wfd, VIEW_BUILD, errno);
	}
	/* The held directory in this namespace (the cwd's copy), as a
	 * source that stays reachable whatever the cwd becomes: a magic
	 * link to the descriptor, not a name. */
	int h = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (h < 0)
		child_report(wfd, VIEW_BUILD, errno);
	char src[32] = "/proc/self/fd/";
	fd_text(src + 14, h);
	/* Nothing of this view reaches another namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("capwatch", j->root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700,size=64k") < 0)
		child_report(wfd, VIEW_BUILD, errno);
	for (unsigned i = 0; i < j->ndirs; i++)
		if (mkdir(j->dirs[i], 0700) < 0 && errno != EEXIST)
			child_report(wfd, VIEW_BUILD, errno);
	/* A fake cwd below the leaf is entered before the held directory
	 * covers the way there; a fake cwd that is the leaf, after, through
	 * the mount. */
	if (!j->absolute && !j->cwd_is_leaf && chdir(j->cwd) < 0)
		child_report(wfd, VIEW_BUILD, errno);
	if (mount(src, j->leaf, NULL, MS_BIND | MS_REC, NULL) < 0)
		child_report(wfd, VIEW_BUILD, errno);
	if (!j->absolute && j->cwd_is_leaf && chdir(j->cwd) < 0)
		child_report(wfd, VIEW_BUILD, errno);
	if (chroot(j->root) < 0 || (j->absolute && chdir("/") < 0))
		child_report(wfd, VIEW_BUILD, errno);
	if (j->umask >= 0)
		umask((mode_t)j->umask);
	/* The bind's permission checks are the command's: in a user
	 * namespace of our own, capabilities would bypass the modes of files
	 * we own; without one, the command's set (enforce_net lowered it). */
	struct cw_caps down = j->caps;
	if (userns)
		down.eff = down.perm = down.inh = 0;
	if (cw_caps_set(&down) < 0)
		child_report(wfd, VIEW_BUILD, errno);
	if (bind(j->sock, (const struct sockaddr *)j->raw, j->rawlen) < 0)
		child_report(wfd, VIEW_BIND, errno);
	child_report(wfd, VIEW_OK, 0);
}

/* Fork the helper and wait for its report. 0 or -errno of the bind;
 * *BUILT false when the view could not be built (nothing was bound).
 *
 * The helper is a grandchild: its exit takes the private mount namespace
 * down (milliseconds: the kernel waits for RCU readers of its mounts),
 * which the event loop must not wait for. The child forks it, writes its
 * pid and exits at once; only that child is reaped here, and the
 * grandchild, orphaned, goes to init or to the nearest subreaper (the
 * kernel back end's capwatch, whose reaper ignores pids it does not
 * track). Its report on the pipe is what is waited for, bounded. */
static int run_helper(const struct view_job *j, bool *built)
{
	int p[2], q[2]; /* the report; the helper's pid */
	*built = false;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(q, O_CLOEXEC) < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		close(q[0]);
		pid_t g = fork();
		if (g == 0) {
			close(q[1]);
			view_child(j, p[1]);
		}
		ssize_t w = write(q[1], &g, sizeof(g));
		_exit(g > 0 && w == (ssize_t)sizeof(g) ? 0 : 1);
	}
	int e = pid < 0 ? -errno : 0;
	close(p[1]);
	close(q[1]);
	pid_t g = -1;
	if (pid > 0) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (read(q[0], &g, sizeof(g)) != (ssize_t)sizeof(g) || g <= 0)
			e = -EAGAIN; /* no helper: nothing was bound */
	}
	close(q[0]);
	if (e < 0) {
		close(p[0]);
		return e;
	}
	struct view_result r = { VIEW_BUILD, EIO };
	struct pollfd pf = { p[0], POLLIN, 0 };
	int pr;
	while ((pr = poll(&pf, 1, VIEW_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (pr > 0 && read(p[0], &r, sizeof(r)) != (ssize_t)sizeof(r))
		r = (struct view_result){ VIEW_BUILD, EIO }; /* died before a word */
	if (pr <= 0) {
		kill(g, SIGKILL); /* alive: it has not written (an exit is POLLHUP) */
		r = (struct view_result){ VIEW_BIND, EINTR };
	}
	close(p[0]);
	if (r.stage == VIEW_BUILD)
		return -r.err;
	*built = true; /* bound, or it may have been: never bound twice */
	return r.stage == VIEW_OK ? 0 : -r.err;
}

int cw_net_bind_in_view(int sock, int dir, const struct sockaddr_storage *raw, socklen_t rawlen, int umask,
			bool *built)
{
	char name[CW_UNIX_PATH_MAX + 1];
	*built = false;
	if (cw_addr_unix_path((const struct sockaddr *)raw, rawlen, name) < 0 || !strchr(name, '/'))
		return -EINVAL;
	const char *mnt = scratch_mountpoint();
	if (!mnt)
		return -ENOENT;
	struct view_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	*j = (struct view_job){ .sock = sock, .dir = dir, .umask = umask, .raw = raw, .rawlen = rawlen };
	int e = plan_view(j, name, mnt);
	if (e == 0)
		e = cw_caps_get(&j->caps);
	if (e == 0) {
		snprintf(j->uid_map, sizeof(j->uid_map), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
		snprintf(j->gid_map, sizeof(j->gid_map), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
		e = run_helper(j, built);
	}
	free(j);
	return e;
}
