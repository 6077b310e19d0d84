/* Target memory and path resolution in the target's context. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "supervisor/resolve.h"
#include "supervisor/util.h"
#include "path.h"

#define PAGE 4096u

int cw_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;

	if (len == 0)
		return 0;
	if (addr == 0)
		return -EFAULT;
	while (done < len) {
		struct iovec local = { (char *)buf + done, len - done };
		struct iovec remote = { (void *)(uintptr_t)(addr + done), len - done };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == ESRCH ? -ESRCH : -EFAULT;
		}
		if (n == 0)
			return -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

ssize_t cw_mem_read_string(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t done = 0;

	if (addr == 0)
		return -EFAULT;
	while (done < size) {
		/* Never read across a page boundary in one go: the next page
		 * may be unmapped although the string ends before it. */
		uint64_t a = addr + done;
		size_t chunk = PAGE - (size_t)(a % PAGE);
		if (chunk > size - done)
			chunk = size - done;
		struct iovec local = { buf + done, chunk };
		struct iovec remote = { (void *)(uintptr_t)a, chunk };
		ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == ESRCH ? -ESRCH : -EFAULT;
		}
		if (n == 0)
			return -EFAULT;
		char *nul = memchr(buf + done, '\0', (size_t)n);
		if (nul)
			return nul - buf;
		done += (size_t)n;
	}
	return -ENAMETOOLONG;
}

/* readlink into OUT with NUL; -errno on failure, -ENAMETOOLONG if cut. */
static int readlink_str(const char *link, char *out, size_t outsz)
{
	ssize_t n = readlink(link, out, outsz - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= outsz - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

static void strip_deleted(char *p)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(p), s = sizeof(suffix) - 1;
	if (n > s && strcmp(p + n - s, suffix) == 0)
		p[n - s] = '\0';
}

/* ---- paths longer than PATH_MAX ----
 *
 * The kernel refuses a path argument of PATH_MAX bytes or more, but a tree
 * can be deeper than that, and a process whose cwd is down there names
 * its files relative to it. capwatch decides on the absolute name (up to
 * CW_PATH_LONG_MAX) and acts on it in steps, each shorter than PATH_MAX,
 * relative to the directory the previous step opened (resolve.h). */

/* The step core: openat2 of the first LEN bytes of the absolute PATH,
 * from ROOT: AT_FDCWD (capwatch's "/"), or a directory taken as "/"
 * (RESOLVE_IN_ROOT: the tree's root, cw_openat2_tree). */
static int openat2_long_n(int root, const char *path, size_t len, const struct open_how *how)
{
	char step[PATH_MAX];
	int dfd = AT_FDCWD, fd;
	struct open_how first = *how;
	if (root != AT_FDCWD)
		first.resolve |= RESOLVE_IN_ROOT;

	if (len < PATH_MAX) {
		memcpy(step, path, len);
		step[len] = '\0';
		fd = (int)syscall(SYS_openat2, root, step, &first, sizeof(first));
		return fd < 0 ? -errno : fd;
	}
	if (path[0] != '/' || len >= CW_PATH_LONG_MAX)
		return -ENAMETOOLONG;
	/* Beneath each step's directory: with symlinks refused nothing but
	 * a ".." could leave it, and a decided name has none. */
	unsigned long long beneath = (how->resolve & RESOLVE_NO_SYMLINKS) ? RESOLVE_BENEATH : 0;
	const char *p = path, *end = path + len;
	while ((size_t)(end - p) >= PATH_MAX) {
		size_t cut = PATH_MAX - 1;
		while (cut > 0 && p[cut] != '/')
			cut--;
		if (cut == 0) {
			/* One component of PATH_MAX bytes: no name has one. */
			if (dfd != AT_FDCWD)
				close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(step, p, cut);
		step[cut] = '\0';
		struct open_how dh = {
			.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			.resolve = dfd != AT_FDCWD ? how->resolve | beneath : first.resolve,
		};
		int nfd = (int)syscall(SYS_openat2, dfd != AT_FDCWD ? dfd : root, step, &dh, sizeof(dh));
		int e = errno;
		if (dfd != AT_FDCWD)
			close(dfd);
		if (nfd < 0)
			return -e;
		dfd = nfd;
		p += cut;
		while (p < end && *p == '/')
			p++;
	}
	size_t rest = (size_t)(end - p);
	if (rest == 0) {
		step[0] = '.';
		rest = 1;
	} else {
		memcpy(step, p, rest);
	}
	step[rest] = '\0';
	struct open_how last = *how;
	last.resolve |= beneath;
	fd = (int)syscall(SYS_openat2, dfd, step, &last, sizeof(last));
	int e = errno;
	close(dfd);
	return fd < 0 ? -e : fd;
}

int cw_openat2_long(const char *path, const struct open_how *how)
{
	return openat2_long_n(AT_FDCWD, path, strlen(path), how);
}

int cw_openat2_tree(int root, const char *path, const struct open_how *how)
{
	if (root < 0)
		root = AT_FDCWD;
	return openat2_long_n(root, path, strlen(path), how);
}

int cw_open_parent_long(const char *path, unsigned long long resolve, char *base, size_t basesz)
{
	const char *slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || !slash[1])
		return -EINVAL;
	const char *b = slash + 1;
	if (strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
		return -EINVAL;
	if (strlen(b) >= basesz)
		return -ENAMETOOLONG;
	strcpy(base, b);
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC, .resolve = resolve };
	size_t dlen = (size_t)(slash - path);
	return dlen ? openat2_long_n(AT_FDCWD, path, dlen, &how) : openat2_long_n(AT_FDCWD, "/", 1, &how);
}

int cw_stat_long(const char *path, struct stat *st, bool follow)
{
	if (strlen(path) < PATH_MAX)
		return (follow ? stat(path, st) : lstat(path, st)) < 0 ? -errno : 0;
	char base[NAME_MAX + 1];
	int d = cw_open_parent_long(path, RESOLVE_NO_MAGICLINKS, base, sizeof(base));
	if (d < 0)
		return d;
	int r = fstatat(d, base, st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
	int e = errno;
	close(d);
	return r < 0 ? -e : 0;
}

/* readlink of an absolute PATH of any length, as readlink_str(). */
static int readlink_long(const char *path, char *out, size_t outsz)
{
	if (strlen(path) < PATH_MAX)
		return readlink_str(path, out, outsz);
	char base[NAME_MAX + 1];
	int d = cw_open_parent_long(path, RESOLVE_NO_MAGICLINKS, base, sizeof(base));
	if (d < 0)
		return d;
	ssize_t n = readlinkat(d, base, out, outsz - 1);
	int e = errno;
	close(d);
	if (n < 0)
		return -e;
	if ((size_t)n >= outsz - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	return 0;
}

/* The name of directory FD when the kernel cannot say it (its magic
 * link's readlink is ENAMETOOLONG: deeper than a page). Walked up with
 * "..": at each step the child's name is the entry of the parent with the
 * child's device and inode (d_ino first; then a stat of every directory
 * entry, for a mount point, whose d_ino is the covered directory's), until
 * an ancestor's own name fits the kernel's readlink. Bounded by OUTSZ and
 * by the number of directory entries looked at. The name is what the
 * decision rests on, and capwatch then acts on that name (in steps, every
 * step resolved again), not on FD: a directory renamed meanwhile makes
 * the name miss, never lands elsewhere than what was decided. */
#define LONG_NAME_ENTRIES 200000
static int long_dir_name(int fd, char *out, size_t outsz)
{
	char link[PATH_MAX], self[64];
	size_t tail = outsz - 1; /* the name grows leftwards from the end */
	long budget = LONG_NAME_ENTRIES;
	int e = 0;
	int cur = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (cur < 0)
		return -errno;
	out[tail] = '\0';
	for (;;) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", cur);
		e = readlink_str(self, link, sizeof(link));
		if (e == 0) {
			size_t have = outsz - 1 - tail;
			size_t l = strcmp(link, "/") == 0 ? 0 : strlen(link);
			if (link[0] != '/' || strstr(link, " (deleted)"))
				e = -ENOENT;
			else if (l + have + 1 > outsz)
				e = -ENAMETOOLONG;
			else {
				memmove(out + l, out + tail, have + 1);
				memcpy(out, link, l);
				if (l + have == 0)
					strcpy(out, "/");
			}
			break;
		}
		if (e != -ENAMETOOLONG)
			break;
		e = 0;
		struct stat cst, pst, st;
		int par = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (par < 0 || fstat(cur, &cst) < 0 || fstat(par, &pst) < 0) {
			e = -errno;
			if (par >= 0)
				close(par);
			break;
		}
		if (pst.st_dev == cst.st_dev && pst.st_ino == cst.st_ino) {
			close(par);
			e = -ENOENT; /* a root whose name is too long: no name */
			break;
		}
		int dd = fcntl(par, F_DUPFD_CLOEXEC, 0);
		DIR *d = dd >= 0 ? fdopendir(dd) : NULL;
		if (!d) {
			e = -errno;
			if (dd >= 0)
				close(dd);
			close(par);
			break;
		}
		const char *name = NULL;
		for (int pass = 0; pass < 2 && !name && budget > 0; pass++) {
			struct dirent *de;
			rewinddir(d);
			while (budget > 0 && (de = readdir(d))) {
				budget--;
				if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
					continue;
				if (pass == 0 ? de->d_ino != cst.st_ino
					      : de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
					continue;
				if (fstatat(par, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    st.st_dev == cst.st_dev && st.st_ino == cst.st_ino) {
					name = de->d_name;
					break;
				}
			}
		}
		size_t nl = name ? strlen(name) : 0;
		if (!name)
			e = budget > 0 ? -ENOENT : -ENAMETOOLONG;
		else if (nl + 1 > tail)
			e = -ENAMETOOLONG;
		else {
			tail -= nl;
			memcpy(out + tail, name, nl);
			out[--tail] = '/';
		}
		closedir(d);
		close(cur);
		cur = par;
		if (e < 0)
			break;
	}
	close(cur);
	return e;
}

/* ---- merged /usr ----
 *
 * On merged-/usr systems "/bin", "/lib", "/lib64" and "/sbin" are symlinks
 * into /usr, and nearly every exec ("/bin/sh") and library load
 * ("/lib/x86_64-linux-gnu/libc.so.6", the loader cache's names) goes
 * through one: the lexical open fails ELOOP and the walk lstat()s and
 * readlink()s its way along, about a dozen system calls where one open
 * does for any other name. These links are read once per run, into the
 * run's struct cw_resolve_links (cw_resolve_links_new); a name through one
 * is rewritten to the link's target, after one lstat() proves the link is
 * still the one read: a symlink's text cannot change in place, so the same
 * inode (device, number, size, change time) means the same text, and a
 * link replaced since is another inode and is dropped for the run.
 *
 * Only first components that are links to a path without "." or ".."
 * components, and only when a component follows (the final component's
 * rules, O_NOFOLLOW, stay with the walk). The rewritten name is what the
 * kernel would resolve next, and it is then resolved as any other name
 * (the lexical open proves it has no further symlink, or the walk runs),
 * so the decision still rests on the object opened. */
struct toplink {
	char name[8];      /* "lib" */
	char target[64];   /* "/usr/lib" */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime;
	atomic_bool dropped; /* any handling thread may drop it */
};

/* The run's links (resolve.h), read once by cw_resolve_links_new. */
struct cw_resolve_links {
	struct toplink l[6];
	size_t n;
};

static bool plain_target(const char *t)
{
	/* absolute or relative to "/", no empty, "." or ".." component */
	const char *p = t[0] == '/' ? t + 1 : t;
	if (!*p)
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		if (*p == '/' && !*++p)
			return false; /* trailing slash */
	}
	return true;
}

static void toplinks_read(struct cw_resolve_links *links)
{
	static const char *const names[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
	for (size_t i = 0; i < CW_ARRAY_SIZE(names) && links->n < CW_ARRAY_SIZE(links->l); i++) {
		struct toplink *l = &links->l[links->n];
		char path[16], text[64];
		struct stat st;
		snprintf(path, sizeof(path), "/%s", names[i]);
		if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode) ||
		    readlink_str(path, text, sizeof(text) - 1) < 0 || !plain_target(text))
			continue;
		struct stat again;
		if (lstat(path, &again) < 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev ||
		    again.st_ctim.tv_sec != st.st_ctim.tv_sec || again.st_ctim.tv_nsec != st.st_ctim.tv_nsec)
			continue; /* replaced while read */
		size_t tl = strlen(text), lead = text[0] != '/';
		if (lead + tl + 1 > sizeof(l->target))
			continue;
		snprintf(l->name, sizeof(l->name), "%s", names[i]);
		l->target[0] = '/';
		memcpy(l->target + lead, text, tl + 1);
		l->dev = st.st_dev;
		l->ino = st.st_ino;
		l->size = st.st_size;
		l->ctime = st.st_ctim;
		atomic_init(&l->dropped, false);
		links->n++;
	}
}

int cw_resolve_links_new(struct cw_resolve_links **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	toplinks_read(*out);
	return 0;
}

void cw_resolve_links_free(struct cw_resolve_links *links)
{
	free(links);
}

size_t cw_resolve_toplinks(const struct cw_resolve_links *links, char *buf, size_t size)
{
	size_t used = 0;
	if (size)
		buf[0] = '\0';
	if (!links)
		return 0;
	for (size_t i = 0; i < links->n && used < size; i++) {
		int k = snprintf(buf + used, size - used, "%s/%s -> %s", i ? ", " : "",
				 links->l[i].name, links->l[i].target);
		if (k < 0)
			break;
		used += (size_t)k;
	}
	return links->n;
}

/* PATH (absolute) with a first component that is one of the links and is
 * followed by another component: the same name through the link's target,
 * in OUT. False (OUT untouched) for any other name or a link that changed. */
static bool toplink_rewrite(struct cw_resolve_links *links, const char *path, char *out, size_t outsz)
{
	if (!links || path[0] != '/')
		return false;
	const char *c = path + 1;
	size_t n = strcspn(c, "/");
	if (!c[n] || !c[n + strspn(c + n, "/")])
		return false; /* the last component: its own rules apply */
	for (size_t i = 0; i < links->n; i++) {
		struct toplink *l = &links->l[i];
		if (strlen(l->name) != n || memcmp(l->name, c, n) != 0)
			continue;
		if (atomic_load(&l->dropped))
			return false;
		/* "/" + NAME, built by hand: N < sizeof(l->name) (strlen
		 * matched), which snprintf's checker cannot see at -O1. */
		char lp[sizeof(l->name) + 1];
		struct stat st;
		lp[0] = '/';
		memcpy(lp + 1, l->name, n);
		lp[n + 1] = '\0';
		if (lstat(lp, &st) < 0 || !S_ISLNK(st.st_mode) || st.st_ino != l->ino ||
		    st.st_dev != l->dev || st.st_size != l->size ||
		    st.st_ctim.tv_sec != l->ctime.tv_sec || st.st_ctim.tv_nsec != l->ctime.tv_nsec) {
			atomic_store(&l->dropped, true);
			return false;
		}
		int k = snprintf(out, outsz, "%s%s", l->target, c + n);
		return k > 0 && (size_t)k < outsz;
	}
	return false;
}

/* Access mode of descriptor FD of PID from /proc/PID/fdinfo/FD ("flags:"
 * octal). Returns O_RDONLY/O_WRONLY/O_RDWR, or -1 when unknown. */
static int fd_accmode(const char *pid, const char *fd)
{
	char p[96], buf[512];
	snprintf(p, sizeof(p), "/proc/%s/fdinfo/%s", pid, fd);
	int f = open(p, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	ssize_t n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *fl = strstr(buf, "flags:");
	if (!fl)
		return -1;
	unsigned long fflags = strtoul(fl + 6, NULL, 8);
	/* An O_PATH descriptor reads as O_RDONLY but grants no access: a
	 * reopen of it is decided on its object (E17g). */
	if (fflags & O_PATH)
		return -1;
	return (int)(fflags & O_ACCMODE);
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Is OUT (a resolved prefix) exactly "/proc/<digits>/fd" or
 * "/proc/<digits>/task/<digits>/fd"? Then the next component is a magic
 * descriptor link. On success PIDOUT receives "<pid>" or "<pid>/task/<tid>". */
static bool is_proc_fd_dir(const char *out, char *pidout, size_t pidsz)
{
	if (strncmp(out, "/proc/", 6) != 0)
		return false;
	const char *p = out + 6;
	size_t n = strcspn(p, "/");
	if (!all_digits(p, n))
		return false;
	const char *q = p + n;
	if (strncmp(q, "/task/", 6) == 0) {
		size_t m = strcspn(q + 6, "/");
		if (!all_digits(q + 6, m))
			return false;
		q += 6 + m;
	}
	if (strcmp(q, "/fd") != 0)
		return false;
	size_t len = (size_t)(q - p);
	if (len >= pidsz)
		return false;
	memcpy(pidout, p, len);
	pidout[len] = '\0';
	return true;
}

static int append(char *out, size_t outsz, const char *comp, size_t n)
{
	size_t len = strlen(out);
	size_t need = len + (len > 1 ? 1 : 0) + n + 1;
	if (need > outsz)
		return -ENAMETOOLONG;
	if (len > 1)
		out[len++] = '/';
	memcpy(out + len, comp, n);
	out[len + n] = '\0';
	return 0;
}

static void pop(char *out)
{
	char *s = strrchr(out, '/');
	if (!s || s == out)
		strcpy(out, "/");
	else
		*s = '\0';
}

/* The walk's steps, below. A component appended to OUT is looked at and
 * then either walked past (STEP_NEXT), followed as a symlink whose text
 * is in LINK (STEP_FOLLOW), or it ends the walk with OUT as the answer
 * (STEP_DONE); -errno ends it with an error. */
enum { STEP_NEXT = 0, STEP_FOLLOW = 1, STEP_DONE = 2 };

/* The component being walked: its length N (its text is the end of OUT
 * once appended), whether it is the last one and a symlink there is
 * followed, and FDPID when OUT was /proc/PID/fd and it is a number. */
struct comp {
	size_t n;
	bool last;
	bool follow;
	const char *fdpid;
};

/* /proc/self and /proc/thread-self name the supervisor when we look them
 * up: the target's own name for the component R (N bytes) under OUT, in
 * BUF, or NULL. */
static const char *proc_self_subst(const char *out, const char *r, size_t n, pid_t tid, pid_t tgid,
				   char *buf, size_t size)
{
	if (strcmp(out, "/proc") != 0)
		return NULL;
	if (n == 4 && memcmp(r, "self", 4) == 0) {
		snprintf(buf, size, "/proc/%d", (int)tgid);
		return buf;
	}
	if (n == 11 && memcmp(r, "thread-self", 11) == 0) {
		snprintf(buf, size, "/proc/%d/task/%d", (int)tgid, (int)tid);
		return buf;
	}
	return NULL;
}

/* OUT is a symlink to follow: its text into LINK (LINKSZ bytes). A
 * descriptor of the target reopened by path, and the magic links to
 * objects that are no path, are not followed: STEP_DONE (OUT renamed
 * /dev/fd/N) or STEP_NEXT (the name is the link). */
static int read_link(char *out, size_t outsz, const struct comp *c, int flags, char *link, size_t linksz)
{
	int e = readlink_long(out, link, linksz);
	if (e < 0)
		return e;
	strip_deleted(link);
	if (c->fdpid) {
		/* A descriptor of the target reopened by path. If it already
		 * grants the access asked for, the open gains nothing: name
		 * it /dev/fd/N (no capability). Otherwise decide on the
		 * object behind it. */
		const char *fdnum = out + strlen(out) - c->n;
		int acc = fd_accmode(c->fdpid, fdnum);
		bool wr = flags & CW_RES_WANT_WRITE, rd = flags & CW_RES_WANT_READ;
		bool covered = acc >= 0 && c->last && !(flags & CW_RES_NO_COVER) &&
			(!wr || acc == O_WRONLY || acc == O_RDWR) &&
			(!rd || acc == O_RDONLY || acc == O_RDWR);
		if (link[0] != '/' && !c->last)
			return -ENOTDIR; /* a pipe, a socket: no directory */
		if (link[0] != '/' || covered) {
			char num[16];
			snprintf(num, sizeof(num), "%.*s", (int)c->n, fdnum);
			snprintf(out, outsz, "/dev/fd/%s", num);
			return STEP_DONE;
		}
	} else if (link[0] != '/' && strncmp(out, "/proc/", 6) == 0 &&
		   (strstr(out, "/cwd") || strstr(out, "/root") || strstr(out, "/exe") || strchr(link, ':'))) {
		/* Other magic links to non-path objects: a namespace
		 * ("net:[4026531840]"), an anonymous inode. Their text is no
		 * path to follow; the name is the link (/proc's plain
		 * symlinks, "self/mounts", have no ':'). Nor is it a
		 * directory to walk through. */
		if (!c->last)
			return -ENOTDIR;
		return STEP_NEXT;
	}
	return STEP_FOLLOW;
}

/* Look at the component C just appended to OUT (its stat FAST when the
 * walk is lexical, see walk()). A missing one sets *GONE, the errno the
 * kernel fails with if another component follows. */
static int look_at(char *out, size_t outsz, const struct comp *c, int flags, const struct stat *fast,
		   struct cw_resolved *res, int *gone, char *link, size_t linksz)
{
	struct stat st;
	int e;
	if (fast && fast->st_mode == 0) {
		res->exists = false; /* the parent was there, this is not */
		return STEP_NEXT;
	}
	if (fast)
		st = *fast;
	else if ((e = cw_stat_long(out, &st, false)) < 0) {
		/* Not there (ENOENT, ENOTDIR), or not to be looked at
		 * (EACCES and friends): as the last component, a name to
		 * create or to fail on; followed by another, the kernel's
		 * errno. */
		res->exists = false;
		*gone = -e;
		return STEP_NEXT;
	}
	if (!S_ISLNK(st.st_mode)) {
		/* Something follows: only a directory is walked through
		 * ("file/..", "file/x"). */
		if (!c->last && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
		res->mode = st.st_mode;
		return STEP_NEXT;
	}
	if (!c->follow) {
		res->is_symlink = true;
		res->mode = st.st_mode;
		return STEP_NEXT;
	}
	return read_link(out, outsz, c, flags, link, linksz);
}

/* Follow the symlink whose text is LINK, met just before NEXT (a part of
 * REST, RESTSZ bytes): REST becomes the text + "/" + what followed, and
 * OUT goes back to ROOT (absolute text) or to the link's directory. */
static int follow_link(char *rest, size_t restsz, const char *link, const char *next, char *out,
		       const char *root, int flags, int *hops)
{
	if (++*hops > 40)
		return -ELOOP;
	if (flags & CW_RES_NO_SYMLINKS)
		return -ELOOP;
	if (link[0] == '/' && (flags & CW_RES_BENEATH))
		return -EXDEV;
	char tmp[PATH_MAX * 2];
	int k = snprintf(tmp, sizeof(tmp), "%s%s%s", link, *next ? "/" : "", next);
	if (k < 0 || (size_t)k >= sizeof(tmp) || (size_t)k >= restsz)
		return -ENAMETOOLONG;
	memcpy(rest, tmp, (size_t)k + 1);
	if (link[0] == '/')
		strcpy(out, root);
	else if (strcmp(out, root) != 0)
		pop(out);
	return 0;
}

/* The walk. OUT holds the resolved prefix (absolute, no trailing slash);
 * REST is what is left to resolve. Each symlink replaces the component by
 * its text in REST (absolute text restarts at "/").
 * FAST: the whole path was just opened (O_PATH) with RESOLVE_NO_SYMLINKS,
 * so no component but a final not-followed one is a symlink and all
 * exist: the walk is lexical and FAST is the final object's stat (no lstat
 * per component); st_mode 0: all but the final component exist, and it
 * does not. Anything that would need more returns -EAGAIN: the
 * caller walks again the ordinary way. */
static int walk(pid_t tid, pid_t tgid, char *out, size_t outsz, const char *path, int flags,
		const char *root, struct cw_resolved *res, const struct stat *fast)
{
	char rest[PATH_MAX * 2];
	char link[PATH_MAX];
	int hops = 0;

	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	strcpy(rest, path);
	res->exists = true;
	res->is_symlink = false;
	res->mode = 0;

	char *r = rest;
	int gone = 0; /* why the component just looked at is not there */
	for (;;) {
		while (*r == '/')
			r++;
		if (!*r)
			break;
		/* Another component after one that is not there: the kernel
		 * walks every component but the last, so "nodir/x",
		 * "nodir/.." and "nodir/." fail here (ENOENT), for creations
		 * too. Never apply the ".." lexically: "nodir/../f" would
		 * name "f", which the kernel never reaches. */
		if (gone)
			return -gone;
		struct comp c = { .n = strcspn(r, "/") };
		char *next = r + c.n;
		while (*next == '/')
			next++;
		c.last = *next == '\0';
		bool trailing_slash = c.last && r[c.n] == '/';

		res->mode = 0; /* set again below by the lstat of this component */
		if (c.n == 1 && r[0] == '.') {
			r = next;
			continue;
		}
		if (c.n == 2 && r[0] == '.' && r[1] == '.') {
			if (strcmp(out, root) == 0) {
				/* At the root: "/.." is "/"; beneath a dirfd it
				 * is an escape the kernel refuses. */
				if (flags & CW_RES_BENEATH)
					return -EXDEV;
			} else {
				pop(out);
			}
			r = next;
			continue;
		}
		char subst_buf[64];
		const char *subst = proc_self_subst(out, r, c.n, tid, tgid, subst_buf, sizeof(subst_buf));

		char fdpid[48];
		if (!subst && is_proc_fd_dir(out, fdpid, sizeof(fdpid)) && all_digits(r, c.n))
			c.fdpid = fdpid;

		int e = append(out, outsz, r, c.n);
		if (e < 0)
			return e;

		c.follow = !c.last || trailing_slash || !(flags & CW_RES_NOFOLLOW);
		if (fast && (subst || (c.last && S_ISLNK(fast->st_mode) && c.follow)))
			return -EAGAIN;
		if (fast && !c.last) {
			r = next; /* a directory, not a symlink: openat2 went through it */
			continue;
		}
		if (subst) {
			if (strlen(subst) >= sizeof(link))
				return -ENAMETOOLONG;
			strcpy(link, subst);
		} else {
			e = look_at(out, outsz, &c, flags, fast, res, &gone, link, sizeof(link));
			if (e < 0)
				return e;
			if (e == STEP_DONE)
				return 0;
			if (e == STEP_NEXT) {
				r = next;
				continue;
			}
		}
		e = follow_link(rest, sizeof(rest), link, next, out, root, flags, &hops);
		if (e < 0)
			return e;
		r = rest;
	}
	return 0;
}

/* readlink of the magic link P (/proc/TID/cwd, /proc/TID/fd/N) into OUT;
 * a directory whose name is longer than the kernel says (ENAMETOOLONG)
 * is named by long_dir_name() when OUT has room for more than PATH_MAX. */
static int magic_name(const char *p, char *out, size_t outsz, bool need_dir)
{
	int e = readlink_str(p, out, outsz);
	if (e != -ENAMETOOLONG || outsz <= PATH_MAX)
		return e;
	int fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR && !need_dir ? -ENAMETOOLONG : -errno;
	e = long_dir_name(fd, out, outsz);
	close(fd);
	return e;
}

static int base_of(pid_t tid, int dirfd, char *out, size_t outsz, bool need_dir)
{
	char p[64];
	int e;
	if (dirfd == AT_FDCWD) {
		snprintf(p, sizeof(p), "/proc/%d/cwd", (int)tid);
		e = magic_name(p, out, outsz, true);
		if (e < 0)
			return e == -ENOENT ? -ESRCH : e;
	} else {
		if (dirfd < 0)
			return -EBADF;
		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)tid, dirfd);
		e = magic_name(p, out, outsz, need_dir);
		if (e < 0)
			return e == -ENOENT ? -EBADF : e;
		if (need_dir) {
			struct stat st;
			if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
				return -ENOTDIR;
		}
	}
	strip_deleted(out);
	if (out[0] != '/')
		return need_dir ? -ENOTDIR : 1; /* 1: not a path object */
	return 0;
}

/* One openat2(O_PATH, RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS) of the
 * whole path instead of one lstat per component: when it succeeds nothing
 * on the way was a symlink (or a magic link), every component existed, and
 * the lexical walk gives what the lstat walk gives. Missing components,
 * symlinks, rooted lookups: -EAGAIN, OUT untouched, and the caller walks.
 * An O_PATH open has no side effect on the object (no device open). */
static int fast_walk(pid_t tid, pid_t tgid, char *out, size_t outsz, const char *path, int flags,
		     const char *root, struct cw_resolved *res)
{
	if (flags & (CW_RES_IN_ROOT | CW_RES_BENEATH))
		return -EAGAIN;
	/* Longer than PATH_MAX under a deep cwd: opened in steps
	 * (cw_openat2_long), the name on the heap. */
	size_t need = (path[0] == '/' ? 0 : strlen(out) + 1) + strlen(path) + 1;
	if (need > CW_PATH_LONG_MAX)
		return -EAGAIN;
	_cleanup_free_ char *full = malloc(need);
	_cleanup_free_ char *saved = strdup(out);
	if (!full || !saved)
		return -EAGAIN;
	size_t pl = strlen(path);
	if (path[0] == '/') {
		memcpy(full, path, pl + 1);
	} else {
		size_t ol = strlen(out);
		memcpy(full, out, ol);
		full[ol] = '/';
		memcpy(full + ol + 1, path, pl + 1);
	}
	bool nofollow = (flags & CW_RES_NOFOLLOW) && pl && path[pl - 1] != '/';
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd = cw_openat2_long(full, &how);
	if (fd < 0) {
		/* ENOENT without a symlink on the way (that would be ELOOP
		 * first): if the parent is there, only the final name is
		 * missing, as for most creations and failed probes. */
		char *slash = strrchr(full, '/');
		const char *lastc = slash ? slash + 1 : "";
		if (fd != -ENOENT || !slash || slash == full || !*lastc ||
		    strcmp(lastc, ".") == 0 || strcmp(lastc, "..") == 0)
			return -EAGAIN;
		*slash = '\0';
		how.flags = O_PATH | O_CLOEXEC | O_DIRECTORY;
		fd = cw_openat2_long(full, &how);
		if (fd < 0)
			return -EAGAIN;
		close(fd);
		memset(&st, 0, sizeof(st));
	} else {
		int se = fstat(fd, &st);
		close(fd);
		if (se < 0)
			return -EAGAIN;
	}
	int e = walk(tid, tgid, out, outsz, path, flags, root, res, &st);
	if (e == -EAGAIN)
		strcpy(out, saved);
	return e;
}

int cw_resolve_path(struct cw_resolve_links *links, pid_t tid, pid_t tgid, int dirfd, const char *path,
		    int flags, struct cw_resolved *res)
{
	char *out = res->path;
	size_t outsz = sizeof(res->path);

	if (!*path) {
		if (!(flags & CW_RES_EMPTY_PATH))
			return -ENOENT;
		if (dirfd == AT_FDCWD) {
			int e = base_of(tid, AT_FDCWD, out, outsz, false);
			res->exists = true;
			return e < 0 ? e : 0;
		}
		return cw_resolve_fd(tid, dirfd, res);
	}
	/* openat2's RESOLVE_IN_ROOT and RESOLVE_BENEATH: the dirfd is the
	 * root; absolute names and symlinks start there (IN_ROOT) or are
	 * refused (BENEATH), and ".." stops there. */
	bool rooted = flags & (CW_RES_IN_ROOT | CW_RES_BENEATH);
	_cleanup_free_ char *root_long = NULL;
	const char *root = "/";
	if (path[0] == '/' && (flags & CW_RES_BENEATH))
		return -EXDEV;
	if (path[0] == '/' && !rooted) {
		strcpy(out, "/");
	} else {
		/* A cwd or dirfd deeper than PATH_MAX: its name on the heap,
		 * up to CW_PATH_LONG_MAX (base_of). */
		char sbase[PATH_MAX];
		_cleanup_free_ char *lbase = NULL;
		char *base = sbase;
		int e = base_of(tid, dirfd, sbase, sizeof(sbase), true);
		if (e == -ENAMETOOLONG) {
			if (!(base = lbase = malloc(CW_PATH_LONG_MAX)))
				return -ENOMEM;
			e = base_of(tid, dirfd, base, CW_PATH_LONG_MAX, true);
		}
		if (e < 0)
			return e;
		/* The base came from the kernel and is already resolved. */
		e = cw_path_normalize(NULL, base, out, outsz);
		if (e < 0)
			return e;
		if (rooted) {
			if (!(root_long = strdup(out)))
				return -ENOMEM;
			root = root_long;
		}
	}
	/* "/lib/..." on merged /usr: the name the link leads to (above). */
	char through[PATH_MAX];
	if (path[0] == '/' && !rooted && !(flags & CW_RES_NO_SYMLINKS) &&
	    toplink_rewrite(links, path, through, sizeof(through)))
		path = through;
	int e = fast_walk(tid, tgid, out, outsz, path, flags, root, res);
	if (e == -EAGAIN)
		e = walk(tid, tgid, out, outsz, path, flags, root, res, NULL);
	if (e < 0)
		return e;
	if (strncmp(out, "/dev/fd/", 8) == 0)
		return 0;
	char norm[sizeof(res->path)];
	e = cw_path_normalize(NULL, out, norm, sizeof(norm));
	if (e < 0)
		return e;
	strcpy(out, norm);
	return 0;
}

static bool special_tree(const char *p)
{
	static const char *const trees[] = { "/proc", "/dev", "/sys" };
	for (size_t i = 0; i < CW_ARRAY_SIZE(trees); i++) {
		size_t l = strlen(trees[i]);
		if (strncmp(p, trees[i], l) == 0 && (p[l] == '\0' || p[l] == '/'))
			return true;
	}
	return false;
}

int cw_resolve_lexical(struct cw_resolve_links *links, pid_t tid, const char *path, bool through_links,
		       struct cw_resolved *res, char *full, size_t fullsz)
{
	char base[PATH_MAX], through[PATH_MAX];

	if (!*path)
		return -ENOENT;
	if (through_links && toplink_rewrite(links, path, through, sizeof(through)))
		path = through;
	/* Any trouble with the cwd: the walk finds the errno to answer. */
	if (path[0] != '/' && base_of(tid, AT_FDCWD, base, sizeof(base), true) != 0)
		return -EAGAIN;
	int k = path[0] == '/' ? snprintf(full, fullsz, "%s", path) : snprintf(full, fullsz, "%s/%s", base, path);
	if (k < 0 || (size_t)k >= fullsz || (size_t)k >= PATH_MAX)
		return -EAGAIN;
	int e = cw_path_normalize(NULL, full, res->path, sizeof(res->path));
	if (e < 0 || special_tree(res->path))
		return -EAGAIN;
	res->exists = true;
	res->is_symlink = false;
	res->mode = 0;
	return 0;
}

bool cw_has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

int cw_resolve_fd(pid_t tid, int fd, struct cw_resolved *res)
{
	int e = base_of(tid, fd, res->path, sizeof(res->path), false);
	res->exists = true;
	res->is_symlink = false;
	if (e < 0)
		return e;
	if (e == 1) {
		snprintf(res->path, sizeof(res->path), "/dev/fd/%d", fd);
		return 0;
	}
	char norm[sizeof(res->path)];
	e = cw_path_normalize(NULL, res->path, norm, sizeof(norm));
	if (e < 0)
		return e;
	strcpy(res->path, norm);
	return 0;
}
