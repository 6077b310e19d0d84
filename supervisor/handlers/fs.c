/* The file family: opens (read and write intent) and the path-mutating
 * calls. decode -> resolve -> decide -> enforce. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <linux/limits.h>
#include <sys/time.h>
#include <utime.h>
#include <sys/xattr.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/handlers/keys.h"
#include "supervisor/run.h"
#include "supervisor/ptrace.h"
#include "supervisor/secret_ids.h"
#include "supervisor/util.h"
#include "path.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
/* The kernel's own O_TMPFILE bit (glibc's __O_TMPFILE also has
 * O_DIRECTORY in it, which every directory open sets). */
#define CW_O_TMPFILE_BIT 020000000
/* The status flags F_SETFL sets that an open also sets (O_ASYNC is
 * ignored by open and would take effect through F_SETFL). */
#define CW_O_SETFL_KEEP (O_APPEND | O_DIRECT | O_NOATIME)

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif


/* ---- the family's state ---- */

int cw_fs_init(struct cw_run *run)
{
	struct cw_fs_state *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->scratch.open.fd = -1;
	fs->scratch.xattr_len = -1;
	fs->scratch.fd = -1;
	fs->euid = (uid_t)-1;
	run->fs_state = fs;
	return 0;
}

void cw_fs_free(struct cw_run *run)
{
	struct cw_fs_state *fs = run->fs_state;
	if (!fs)
		return;
	free(fs->linked);
	for (size_t i = 0; i < CW_FS_LONG_NAMES; i++)
		free(fs->long_names[i].name);
	for (size_t i = 0; i < fs->ntree_ptys; i++)
		close(fs->tree_ptys[i].fd);
	free(fs);
	run->fs_state = NULL;
}

struct cw_fs_scratch *cw_fs_scratch_of(struct cw_run *run)
{
	return &run->fs_state->scratch;
}

static bool write_intent(long long flags)
{
	if (flags & O_PATH)
		return false; /* O_PATH ignores every other flag (K18) */
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | CW_O_TMPFILE_BIT));
}

static bool in_workspace(struct cw_notif *n, const char *path)
{
	cw_path_class c = cw_path_classify(&n->run->ctx, path);
	return c == CW_PATH_WORKSPACE || c == CW_PATH_PROTECTED;
}

/* Before an allowed write goes ahead: remember the state of what it
 * touches (outcome.changes is computed from it at the end). */
static void note_change(struct cw_notif *n, const struct cw_event *ev, enum cw_change_kind kind)
{
	if (kind == CW_CHANGE_RENAME) {
		if (in_workspace(n, ev->op.path) || in_workspace(n, ev->op.path2))
			cw_run_change(n->run, kind, ev->op.path, ev->op.path2);
	} else if (ev->op.kind == CW_OP_RENAME) {
		/* link: only the new name is created. */
		if (in_workspace(n, ev->op.path2))
			cw_run_change(n->run, kind, ev->op.path2, NULL);
	} else if (in_workspace(n, ev->op.path)) {
		cw_run_change(n->run, kind, ev->op.path, NULL);
	}
}

static void prepare_open(struct cw_notif *n, struct cw_event *ev)
{
	if (ev->op.kind == CW_OP_OPEN_WRITE)
		note_change(n, ev, CW_CHANGE_WRITE);
}

static enum cw_change_kind fs_change_kind(int nr);

/* Hard links made during the run (both names were decided writable). A
 * file with more than one name that is not among them may have a name
 * outside the workspace: writing it through the workspace name would
 * change that file too (kernel-notes E14). */
static void remember_link_source(struct cw_fs_state *fs, const char *path, bool follow)
{
	struct stat st;
	if (cw_stat_long(path, &st, follow) < 0 || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < fs->nlinked; i++)
		if (fs->linked[i].dev == st.st_dev && fs->linked[i].ino == st.st_ino)
			return;
	if (fs->nlinked == fs->caplinked) {
		size_t ncap = fs->caplinked ? fs->caplinked * 2 : 16;
		struct cw_fs_linked *nl = realloc(fs->linked, ncap * sizeof(*nl));
		if (!nl)
			return;
		fs->linked = nl;
		fs->caplinked = ncap;
	}
	fs->linked[fs->nlinked++] = (struct cw_fs_linked){ st.st_dev, st.st_ino };
}

/* Files deeper than PATH_MAX that capwatch opened for the tree, by device
 * and inode. The kernel cannot name such a file from a descriptor
 * (readlink of /proc/PID/fd/N is ENAMETOOLONG, and a file has no ".." to
 * walk up from): a metadata call on the descriptor (fchmod, fchown,
 * futimens, fsetxattr) is decided on the name it was opened by, once a
 * stat of that name shows it still is that file. The last
 * CW_FS_LONG_NAMES (each at most CW_PATH_LONG_MAX); any other such
 * descriptor fails closed (ENAMETOOLONG). */
static void remember_long_name(struct cw_fs_state *fs, const char *path, const struct stat *st)
{
	if (strlen(path) < PATH_MAX || !S_ISREG(st->st_mode))
		return;
	struct cw_fs_long_name *l = NULL;
	for (size_t i = 0; i < CW_FS_LONG_NAMES && !l; i++)
		if (fs->long_names[i].name && fs->long_names[i].dev == st->st_dev &&
		    fs->long_names[i].ino == st->st_ino)
			l = &fs->long_names[i];
	if (!l)
		l = &fs->long_names[fs->long_next++ % CW_FS_LONG_NAMES];
	char *copy = strdup(path);
	if (!copy)
		return;
	free(l->name);
	*l = (struct cw_fs_long_name){ st->st_dev, st->st_ino, copy };
}

static const char *long_name_of(struct cw_fs_state *fs, int fd)
{
	struct stat st, now;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	for (size_t i = 0; i < CW_FS_LONG_NAMES; i++) {
		struct cw_fs_long_name *l = &fs->long_names[i];
		if (l->name && l->dev == st.st_dev && l->ino == st.st_ino &&
		    cw_stat_long(l->name, &now, false) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
			return l->name;
	}
	return NULL;
}

static bool foreign_hardlink(const struct cw_fs_state *fs, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
		return false;
	for (size_t i = 0; i < fs->nlinked; i++)
		if (fs->linked[i].dev == st->st_dev && fs->linked[i].ino == st->st_ino)
			return false;
	return true;
}

static void prepare_fs(struct cw_notif *n, struct cw_event *ev)
{
	int nr = n->req->data.nr;
	note_change(n, ev, fs_change_kind(nr));
	/* A name of a known secret goes away (unlink, or a rename over it;
	 * RENAME_EXCHANGE keeps both names). */
	if (nr == __NR_unlink || nr == __NR_unlinkat)
		cw_secret_ids_unlinking(ev->op.path);
	else if ((nr == __NR_rename || nr == __NR_renameat || nr == __NR_renameat2) && !ev->op.exchange)
		cw_secret_ids_unlinking(ev->op.path2);
	if (nr == __NR_link || nr == __NR_linkat)
		remember_link_source(n->run->fs_state, ev->op.path, nr == __NR_linkat && (arg_int(n, 4) & AT_SYMLINK_FOLLOW));
}

/* The file just opened for reading (ST) is the same inode as a secret
 * capwatch knows under another name (secret_ids.h): a hard link made
 * before the run, or the one name left of a secret whose name the tree
 * removed. Returns the text for op.alias, or NULL. */
static const char *secret_alias(struct cw_notif *n, const struct cw_event *ev, const struct stat *st)
{
	const char *name = cw_secret_ids_find(n->run, st);
	if (!name || cw_path_is_secret(&n->run->ctx, ev->op.path))
		return NULL;
	snprintf(n->fs->secret_alias, sizeof(n->fs->secret_alias), "the same file as the secret %s", name);
	return n->fs->secret_alias;
}

/* Read the path at ARG into BUF; -errno on failure. NULL is EFAULT. */
static int read_path(struct cw_notif *n, int arg, char *buf, size_t *len)
{
	ssize_t r = cw_mem_read_string(n->tid, arg_u64(n, arg), buf, PATH_MAX);
	if (r < 0)
		return (int)r;
	*len = (size_t)r;
	return 0;
}

/* ---- open, openat, openat2, creat ---- */

static bool refuse_privilege(struct cw_notif *n, const char *what);

/* The flags open(2)/openat(2) keep (the kernel drops the others silently,
 * openat2 would refuse them). */
#define CW_VALID_OPEN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
			     O_NONBLOCK | O_DSYNC | O_SYNC | FASYNC | O_DIRECT | O_LARGEFILE | \
			     O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | \
			     CW_O_TMPFILE_BIT)


/* Only regular files and directories (or a file about to be created) are
 * opened by capwatch: a device's open has side effects and /dev/tty would
 * be capwatch's terminal; /proc would be opened with capwatch's ptrace
 * rights over the target (kernel-notes K18). */
/* Character devices whose open has no side effect and means the same for
 * capwatch as for the target, so capwatch may open them itself: the most
 * common opens of all (/dev/null) get the same protection as files. */
static const struct {
	const char *path;
	unsigned major, minor;
} plain_devices[] = {
	{ "/dev/null", 1, 3 }, { "/dev/zero", 1, 5 }, { "/dev/full", 1, 7 },
	{ "/dev/random", 1, 8 }, { "/dev/urandom", 1, 9 },
};

static int plain_device(const char *path)
{
	for (size_t i = 0; i < CW_ARRAY_SIZE(plain_devices); i++)
		if (strcmp(path, plain_devices[i].path) == 0)
			return (int)i;
	return -1;
}

static bool emulable_object(const char *path, const struct cw_resolved *res)
{
	if (plain_device(path) >= 0)
		return true;
	if (strncmp(path, "/proc/", 6) == 0 || strcmp(path, "/proc") == 0 ||
	    strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/sys/", 5) == 0)
		return false;
	mode_t mode = res->mode; /* what the resolution saw, when it knows */
	if (!mode) {
		struct stat st;
		if (cw_stat_long(path, &st, false) < 0)
			return true; /* capwatch's open fails the same way (ENOENT creates) */
		mode = st.st_mode;
	}
	return S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode);
}

/* Emulation (kernel-notes K18): capwatch opens the path it decided on,
 * with RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS so that a symlink swapped
 * in after the decision makes the open fail (ELOOP) instead of landing
 * elsewhere, then installs the descriptor in the target and answers in one
 * step (ADDFD|SEND). The bytes the target can still rewrite are never read
 * again. capwatch runs with the target's uid and gids (the command inherits
 * them and set*id changes are denied), so the open is checked with the
 * same credentials; the target's umask is applied to creations. */
static int dup_target_fd(struct cw_notif *n, int fd);

/* Is the file open on FD (at PATH) mounted over its name, i.e. on another
 * mount than its directory? */
static bool file_is_mount_point(int fd, const char *path)
{
	struct statx a, b;
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (slash && (size_t)(slash - path) >= sizeof(dir)) {
		/* Deeper than PATH_MAX: the directory through descriptors. */
		char base[NAME_MAX + 1];
		_cleanup_close_ int d = cw_open_parent_long(path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
							    base, sizeof(base));
		return d >= 0 && statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) == 0 &&
		       statx(d, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) == 0 && (a.stx_mask & STATX_MNT_ID) &&
		       (b.stx_mask & STATX_MNT_ID) && a.stx_mnt_id != b.stx_mnt_id;
	}
	if (!slash)
		return false;
	if (slash == path) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) < 0 ||
	    statx(AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &b) < 0 ||
	    !(a.stx_mask & STATX_MNT_ID) || !(b.stx_mask & STATX_MNT_ID))
		return false;
	return a.stx_mnt_id != b.stx_mnt_id;
}

/* Install FD in the target as the answer, or answer the error. Returns
 * -ENOENT when the target went away (nothing installed), else 0. */
static int answer_with_fd(struct cw_notif *n, struct cw_event *ev, int fd)
{
	int r = cw_notif_addfd_send(n, fd, n->fs->open.flags & O_CLOEXEC);
	close(fd);
	if (r >= 0) {
		ev->err = 0;
	} else if (r == -ENOENT) {
		n->answered = true; /* the target went away: nothing installed */
		return r;
	} else {
		ev->err = -r; /* EMFILE...: the target still waits for us */
		cw_notif_error(n, ev->err);
	}
	return 0;
}

/* "/dev/fd/N": the target reopens its own descriptor N (/dev/stdout,
 * /proc/self/fd/N), decided as granting nothing new. capwatch takes a
 * duplicate of N (pidfd_getfd: the object cannot be swapped any more),
 * checks again that it covers the access asked for (or is no file at
 * all), and opens a new description of it through its own magic link, as
 * the kernel would for the target. */
static void reopen_target_fd(struct cw_notif *n, struct cw_event *ev, int tfd)
{
	_cleanup_close_ int d = dup_target_fd(n, tfd);
	ev->verified = true;
	if (d < 0) {
		ev->err = d == -EBADF ? EBADF : EACCES;
		cw_notif_error(n, ev->err);
		return;
	}
	char self[64], target[16];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", d);
	bool is_path = readlink(self, target, 1) == 1 && target[0] == '/';
	int acc = fcntl(d, F_GETFL);
	int want = (int)(n->fs->open.flags & O_ACCMODE);
	bool wr = write_intent((long long)n->fs->open.flags);
	bool rd = want == O_RDONLY || want == O_RDWR;
	if (is_path && (acc < 0 || (wr && (acc & O_ACCMODE) == O_RDONLY) ||
			(rd && (acc & O_ACCMODE) == O_WRONLY))) {
		/* It was swapped for a file this access was not decided on. */
		ev->err = EACCES;
		cw_notif_error(n, ev->err);
		return;
	}
	struct stat st;
	bool fifo = fstat(d, &st) == 0 && S_ISFIFO(st.st_mode);
	/* A pipe without a reader would block capwatch: ENXIO instead. */
	int fl = (int)(n->fs->open.flags & ~(unsigned long long)O_CREAT) | O_NOCTTY | O_CLOEXEC |
		 (fifo ? O_NONBLOCK : 0);
	int fd = open(self, fl, 0);
	if (fd < 0) {
		ev->err = errno;
		cw_notif_error(n, ev->err);
		return;
	}
	if (fifo && !(n->fs->open.flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	answer_with_fd(n, ev, fd);
}

static void enforce_open(struct cw_notif *n, struct cw_event *ev)
{
	if (n->fs->open.lexical) {
		/* Opened already, on exactly the name decided on. The answer
		 * proves the bytes were the asker's (open_lexically): when it
		 * finds the notification gone, the event is not recorded. */
		int fd = steal_fd(&n->fs->open.fd);
		ev->verified = true;
		if (fd >= 0) {
			ev->vanished = answer_with_fd(n, ev, fd) == -ENOENT;
		} else {
			ev->err = n->fs->open.open_err;
			ev->vanished = cw_notif_error(n, ev->err) == -ENOENT;
		}
		return;
	}
	if (ev->enforced && n->fs->open.emulable && !(n->fs->open.flags & O_PATH) &&
	    strncmp(ev->op.path, "/dev/fd/", 8) == 0) {
		reopen_target_fd(n, ev, atoi(ev->op.path + 8));
		return;
	}
	if (ev->enforced == false || !n->fs->open.emulable || ev->op.path[0] != '/' ||
	    (n->fs->open.flags & O_PATH) || !emulable_object(ev->op.path, &n->fs->res1)) {
		/* --observe: see enforce_continue(). Devices, /proc, /sys,
		 * FIFOs, O_PATH and openat2 forms not emulated here:
		 * fs_special.c opens them itself (or says why not). */
		if (ev->enforced)
			cw_open_special(n, ev, n->fs->open.flags, n->fs->open.mode, n->fs->open.emulable);
		else
			enforce_continue(n, ev);
		return;
	}
	/* A trailing slash asks for a directory; the decided path lost it.
	 * With O_CREAT the kernel says EISDIR before it looks at the name
	 * (open_last_lookups), whatever is there. */
	size_t rl = strlen(n->fs->raw1);
	if (rl > 1 && n->fs->raw1[rl - 1] == '/') {
		struct stat st;
		int e = 0;
		if (n->fs->open.flags & O_CREAT)
			e = EISDIR;
		else if (cw_stat_long(ev->op.path, &st, false) < 0)
			e = ENOENT;
		else if (!S_ISDIR(st.st_mode))
			e = ENOTDIR;
		if (e) {
			ev->verified = true;
			ev->err = e;
			cw_notif_error(n, e);
			return;
		}
	}
	/* O_TRUNC waits for the alias check below: opened with it, a file
	 * that a hard link made before the run also names outside the
	 * workspace was emptied before its denial. The open asks for the
	 * access O_TRUNC needs (write: O_RDONLY|O_TRUNC opens read-write and
	 * is reopened read-only), and the truncation follows the check
	 * (ftruncate: the same effect on a regular file; other objects ignore
	 * O_TRUNC). O_ACCMODE 3 has no write mode to truncate through: it
	 * keeps O_TRUNC in the open. */
	unsigned long long acc = n->fs->open.flags & O_ACCMODE;
	bool late_trunc = (n->fs->open.flags & O_TRUNC) && acc != O_ACCMODE;
	bool reopen_rd = late_trunc && acc == O_RDONLY;
	unsigned long long oflags = n->fs->open.flags;
	if (late_trunc)
		oflags &= ~(unsigned long long)O_TRUNC;
	if (reopen_rd)
		oflags = (oflags & ~(unsigned long long)O_ACCMODE) | O_RDWR;
	/* O_NONBLOCK until the descriptor's type is checked: the name was a
	 * regular file or a directory when resolved, and a FIFO or device
	 * renamed over it since must not block (or act in) capwatch's event
	 * loop; it goes to fs_special.c, which opens such objects safely. */
	bool nb_added = !(n->fs->open.flags & O_NONBLOCK);
	struct open_how how = {
		.flags = oflags | O_NOCTTY | O_CLOEXEC | O_NONBLOCK,
		.mode = n->fs->open.mode,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	/* O_CREAT of a regular file that was there when resolved creates
	 * nothing: tried first without O_CREAT, it needs no umask (reading it
	 * costs an open and read of /proc/PID/status, ~10 us). ENOENT: it went
	 * away meanwhile, and the creating open below runs. So does it for a
	 * file capwatch (the target's uid) does not own: O_CREAT of those is
	 * refused in sticky world-writable directories (fs.protected_regular),
	 * which only the kernel's own O_CREAT applies. */
	bool existing = (n->fs->open.flags & O_CREAT) && n->fs->res1.exists && S_ISREG(n->fs->res1.mode) &&
			!(n->fs->open.flags & (O_EXCL | O_DIRECTORY | CW_O_TMPFILE_BIT));
	int fd = -1;
	struct stat st;
	ev->verified = true;
	if (existing) {
		struct open_how plain = how;
		plain.flags &= ~(unsigned long long)O_CREAT;
		plain.mode = 0;
		fd = cw_openat2_long(ev->op.path, &plain);
		if (fd < 0) {
			errno = -fd;
			fd = -1;
		}
		struct cw_fs_state *fs = n->run->fs_state;
		if (fs->euid == (uid_t)-1)
			fs->euid = geteuid(); /* capwatch's euid does not change */
		if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != fs->euid)) {
			close(fd);
			fd = -1;
			errno = ENOENT; /* the creating open decides */
		}
	}
	if (!existing || (fd < 0 && errno == ENOENT)) {
		/* Creations get the target's umask, applied by the kernel as
		 * for the target itself (a directory's default ACL then wins,
		 * as it would). */
		int um = -1;
		if (n->fs->open.flags & (O_CREAT | CW_O_TMPFILE_BIT)) {
			um = cw_target_umask(n->tid);
			if (um < 0) {
				/* Not continued: the path would be read again
				 * from the target's memory. */
				ev->err = um == -ESRCH ? EPERM : -um;
				cw_notif_error(n, ev->err);
				return;
			}
		}
		mode_t saved_umask = um >= 0 ? umask((mode_t)um) : 0;
		fd = cw_openat2_long(ev->op.path, &how);
		int open_errno = fd < 0 ? -fd : 0;
		if (fd < 0)
			fd = -1;
		if (um >= 0)
			umask(saved_umask);
		errno = open_errno;
		existing = false;
	}
	if (fd < 0) {
		ev->err = errno;
		cw_notif_error(n, ev->err);
		return;
	}
	if (!existing && fstat(fd, &st) < 0) {
		ev->err = errno; /* no check, no write */
		close(fd);
		cw_notif_error(n, ev->err);
		return;
	}
	int dev = plain_device(ev->op.path);
	if (dev >= 0) {
		/* Make sure it is that device (not something mounted over it). */
		if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != plain_devices[dev].major ||
		    minor(st.st_rdev) != plain_devices[dev].minor) {
			close(fd);
			ev->err = EACCES;
			cw_notif_error(n, ev->err);
			return;
		}
	} else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		/* Swapped since resolved (see O_NONBLOCK above). */
		close(fd);
		cw_open_special(n, ev, n->fs->open.flags, n->fs->open.mode, n->fs->open.emulable);
		return;
	}
	if (nb_added && fcntl(fd, F_SETFL, (int)(n->fs->open.flags & CW_O_SETFL_KEEP)) < 0) {
		ev->err = errno;
		close(fd);
		cw_notif_error(n, ev->err);
		return;
	}
	bool reads = acc == O_RDONLY || acc == O_RDWR;
	if (ev->op.key_free && (st.st_dev != n->fs->open.key_dev || st.st_ino != n->fs->open.key_ino)) {
		/* Not the certificate read before the decision: decide on
		 * the name alone. */
		ev->op.key_free = false;
		if (!cw_event_decide(n, ev)) {
			close(fd);
			cw_event_deny(n, ev);
			return;
		}
	}
	const char *sa = reads && !ev->op.alias ? secret_alias(n, ev, &st) : NULL;
	/* A private key under any name is a secret (keys.h). */
	if (!sa && reads && !ev->op.alias && S_ISREG(st.st_mode) &&
	    cw_keys_worth_scanning(ev->op.path, st.st_size) &&
	    !cw_path_is_secret(&n->run->ctx, ev->op.path) && cw_keys_scan_fd(fd, cw_keys_scan_size(st.st_size)) == 1)
		sa = "a file holding a private key";
	if (sa) {
		/* The same inode as a secret known under another name: a
		 * secret read, whatever this name is. */
		cw_op_kind kind = ev->op.kind;
		ev->op.kind = CW_OP_OPEN_READ;
		ev->op.alias = sa;
		if (!cw_event_decide(n, ev)) {
			close(fd);
			cw_event_deny(n, ev);
			return;
		}
		/* Allowed (observe, or a profile that allows it): a write is
		 * still decided as one below. */
		if (kind != CW_OP_OPEN_READ) {
			ev->op.kind = kind;
			ev->op.alias = NULL;
		}
	}
	if (write_intent((long long)n->fs->open.flags)) {
		/* The decision was on this name. A file with hard links made
		 * before the run, or one mounted over this name, has other
		 * names we did not see: decide again, as the policy says for
		 * such objects (a write outside the workspace). */
		if (existing && S_ISDIR(st.st_mode)) {
			/* Swapped for a directory since resolved: O_CREAT
			 * says EISDIR. */
			ev->err = EISDIR;
			close(fd);
			cw_notif_error(n, ev->err);
			return;
		}
		/* A name that was missing when resolved had no mount over it
		 * before the run (the tree cannot mount): no statx pair. */
		if (foreign_hardlink(n->run->fs_state, &st))
			ev->op.alias = "hard link";
		else if (S_ISREG(st.st_mode) && n->fs->res1.exists && file_is_mount_point(fd, ev->op.path))
			ev->op.alias = "mount";
		if (ev->op.alias && !cw_event_decide(n, ev)) {
			close(fd);
			cw_event_deny(n, ev);
			return;
		}
		/* An empty file that was missing when resolved was just made
		 * (by this open, or within microseconds): nothing to cut, and
		 * its times are now already. */
		if (late_trunc && S_ISREG(st.st_mode) && (n->fs->res1.exists || st.st_size > 0) &&
		    ftruncate(fd, 0) < 0) {
			ev->err = errno;
			close(fd);
			cw_notif_error(n, ev->err);
			return;
		}
		if (reopen_rd) {
			/* The same object, with the access asked for. */
			char self[64];
			snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
			int rfd = open(self, (int)(n->fs->open.flags & ~(unsigned long long)(O_TRUNC | O_CREAT | O_EXCL |
						O_NOFOLLOW | CW_O_TMPFILE_BIT)) | O_NOCTTY | O_CLOEXEC);
			int rerr = errno;
			close(fd);
			if (rfd < 0) {
				ev->err = rerr;
				cw_notif_error(n, ev->err);
				return;
			}
			fd = rfd;
		}
	}
	remember_long_name(n->run->fs_state, ev->op.path, &st);
	answer_with_fd(n, ev, fd);
}

/* Files of /proc/PID that reach into the process itself: its memory,
 * environment, mappings, stack, credentials maps, namespaces (a descriptor
 * of one is what setns joins). (stat, status, comm and
 * cmdline are ordinary reads; procps' ps does read every environ, and is
 * denied those under the built-in profiles.) */
static const char *const proc_private[] = {
	"environ", "mem", "auxv", "syscall", "stack", "pagemap", "maps", "smaps", "smaps_rollup",
	"numa_maps", "personality", "timerslack_ns", "clear_refs", "oom_adj", "oom_score_adj",
	"uid_map", "gid_map", "setgroups", "attr", "coredump_filter", "ns",
};

/* Reading /proc/PID/<private file> is process access: process_control when
 * PID is outside the tree (capwatch itself included: its environment holds
 * what the sanitizer dropped). Writing any of /proc is a write outside every
 * workspace already (unrestricted), in the tree too: writing a sibling's
 * memory is how a blocked target's arguments get rewritten. */
static void proc_file_target(struct cw_notif *n, struct cw_event *ev, bool wr)
{
	const char *p = ev->op.path;
	if (strncmp(p, "/proc/", 6) != 0)
		return;
	char *end;
	long pid = strtol(p + 6, &end, 10);
	if (end == p + 6 || pid <= 0 || *end != '/')
		return;
	const char *rest = end + 1;
	if (strncmp(rest, "task/", 5) == 0) {
		/* /proc/PID/task/TID/<file>: the thread's view of the same. */
		char *e2;
		strtol(rest + 5, &e2, 10);
		if (e2 == rest + 5 || *e2 != '/')
			return;
		rest = e2 + 1;
	}
	size_t nlen = strcspn(rest, "/");
	bool private_file = false;
	for (size_t i = 0; i < CW_ARRAY_SIZE(proc_private); i++)
		if (strlen(proc_private[i]) == nlen && memcmp(rest, proc_private[i], nlen) == 0)
			private_file = true;
	if (!private_file)
		return;
	if (wr)
		return; /* a write to /proc is outside every workspace: unrestricted */
	ev->op.target_pid = (int)pid;
	ev->op.target_in_tree = cw_tracker_in_tree(n->run, (pid_t)pid);
	if (!ev->op.target_in_tree)
		ev->op.kind = CW_OP_PROC_ACCESS;
}

/* Does PATH have a ".." component? Then its lexical name is the
 * kernel's only when every component before the ".." is a directory: an
 * ENOENT or ENOTDIR of the open may come from one that is not, and the
 * lexical name (".../nodir/../.env" as ".../.env") is one the kernel never
 * reached. The walk finds the errno (resolve.h) and nothing is recorded
 * under that name. */
static bool has_dotdot(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

/* The hot path (most opens of a build: headers, libraries, sources): a
 * plain read-only open is decided on its lexical name and opened at once,
 * by the name as the target wrote it (joined to its cwd), with
 * RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS. That open succeeds (or fails
 * with anything but ELOOP) only when no component was a symlink, i.e.
 * when the lexical name is the one the walk would have resolved, so
 * the decision rests on the object opened, as in enforce_open, without the
 * walk's openat2(O_PATH), fstat and close, and without ID_VALID (see the
 * end). A decision that does not allow, or one --observe lets the kernel
 * carry out, is not acted on here: an O_PATH
 * open with the same resolve rules (no access, no effect) proves the name
 * first, as the walk's own shortcut does, and cw_event_finish answers it
 * as usual. An ELOOP, an ENOENT or ENOTDIR of a name with ".."
 * (has_dotdot()), or an object that is not a regular file or a
 * directory (a device's open has effects, a FIFO's blocks), goes back to
 * the walk and is decided again (returns false, nothing answered). On
 * true, EV is decided; allowed, it is also checked and opened: n->fs->open
 * holds the descriptor or the errno for enforce_open. */
static bool open_lexically(struct cw_notif *n, struct cw_event *ev, int dirfd,
			   unsigned long long resolve)
{
	struct cw_run *run = n->run;
	unsigned long long f = n->fs->open.flags;

	if (!n->fs->open.emulable || (resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH)) ||
	    (dirfd != AT_FDCWD && n->fs->raw1[0] != '/') || (f & O_ACCMODE) != O_RDONLY ||
	    (f & (O_PATH | O_CREAT | O_TRUNC | CW_O_TMPFILE_BIT)))
		return false;
	char full[PATH_MAX];
	/* openat2's RESOLVE_NO_SYMLINKS refuses "/lib/..." itself: no
	 * shortcut through the merged-/usr links then. */
	if (cw_resolve_lexical(n->tid, n->fs->raw1, !(resolve & RESOLVE_NO_SYMLINKS), &n->fs->res1, full, sizeof(full)) < 0)
		return false;
	/* A *.pem or *.key is decided on what it holds: the walk reads it
	 * first (cw_handle_open). */
	if (cw_path_secret_by_key_name(&run->ctx, n->fs->res1.path))
		return false;
	ev->op.kind = CW_OP_OPEN_READ;
	ev->op.path = n->fs->res1.path;
	cw_policy_decide(run->profile, &run->ctx, &ev->op, &ev->d);
	if (run->observe || ev->d.verdict != CW_ALLOW) {
		struct open_how ph = {
			.flags = O_PATH | O_CLOEXEC,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		int pfd = (int)syscall(SYS_openat2, AT_FDCWD, full, &ph, sizeof(ph));
		if (pfd >= 0)
			close(pfd);
		else if ((errno == ENOENT || errno == ENOTDIR) && !has_dotdot(full))
			n->fs->res1.exists = false; /* no symlink before the missing part */
		else
			return false;
		ev->decided = true;
		return true;
	}
	/* Only a regular file or a directory is opened here. The type is
	 * checked on the descriptor, after the open, and the open adds
	 * O_NONBLOCK meanwhile: a FIFO or device renamed over the name
	 * would otherwise block (or act) in capwatch's event loop. Anything
	 * else goes back to the walk, and from there to fs_special.c.
	 * O_DIRECTORY (opendir) needs neither: the kernel refuses any other
	 * object (ENOTDIR) before its open runs. */
	bool look = !(f & O_DIRECTORY);
	struct open_how how = {
		.flags = f | O_NOCTTY | O_CLOEXEC | (look ? O_NONBLOCK : 0),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, full, &how, sizeof(how));
	if (fd < 0 && errno == ELOOP)
		return false; /* a symlink on the way: the walk decides */
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR) && has_dotdot(full))
		return false; /* maybe a name the kernel never reached (above) */
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		n->fs->res1.exists = false;
	if (fd >= 0 && look) {
		struct stat st;
		if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
		    (!(f & O_NONBLOCK) && fcntl(fd, F_SETFL, (int)(f & CW_O_SETFL_KEEP)) < 0)) {
			close(fd);
			return false;
		}
		/* Another name of a known secret: enforce_open decides it
		 * again as a secret read. */
		if (secret_alias(n, ev, &st)) {
			close(fd);
			return false;
		}
		/* A private key under a name that is not a secret's: the
		 * same (keys.h). */
		if (S_ISREG(st.st_mode) && cw_keys_worth_scanning(n->fs->res1.path, st.st_size) &&
		    cw_keys_scan_fd(fd, cw_keys_scan_size(st.st_size)) == 1) {
			close(fd);
			return false;
		}
		n->fs->res1.mode = st.st_mode;
	}
	n->fs->open.lexical = true;
	n->fs->open.fd = fd;
	n->fs->open.open_err = fd < 0 ? errno : 0;
	ev->decided = true;
	/* No ID_VALID between reading the path and the cwd and using them
	 * (K10): its purpose is that nothing happens on bytes of a thread
	 * that is gone, whose tid may name another task by now. Here nothing
	 * has happened yet (an lstat and a read-only open of a regular file
	 * or directory have no effect), and the answer (ADDFD|SEND or SEND)
	 * succeeds only while the notification is pending, i.e. while the
	 * thread that asked is alive and blocked: then it was alive through
	 * the reads, and its tid named it. When the answer finds it gone,
	 * the event is dropped (enforce_open), so the trace never holds an
	 * event decided on another task's bytes. */
	ev->checked = true;
	return true;
}

void cw_handle_open(struct cw_notif *n)
{
	struct cw_event ev;
	int nr = n->req->data.nr;
	int dirfd = AT_FDCWD, patharg;
	long long flags;
	unsigned long long open_how_resolve = 0;

	cw_event_init(&ev, n->syscall);
	memset(&n->fs->open, 0, sizeof(n->fs->open));
	n->fs->open.fd = -1;
	switch (nr) {
	case __NR_open:
		patharg = 0;
		flags = arg_int(n, 1);
		n->fs->open.mode = (uint32_t)arg_u64(n, 2);
		break;
	case __NR_creat:
		patharg = 0;
		flags = O_CREAT | O_WRONLY | O_TRUNC;
		n->fs->open.mode = (uint32_t)arg_u64(n, 1);
		break;
	case __NR_openat:
		dirfd = arg_int(n, 0);
		patharg = 1;
		flags = arg_int(n, 2);
		n->fs->open.mode = (uint32_t)arg_u64(n, 3);
		break;
	case __NR_openat2: {
		struct open_how how;
		uint64_t size = arg_u64(n, 3);
		dirfd = arg_int(n, 0);
		patharg = 1;
		if (size < sizeof(uint64_t) * 3) {
			cw_notif_error(n, EINVAL);
			return;
		}
		if (size > 4096) {
			cw_notif_error(n, E2BIG); /* as copy_struct_from_user */
			return;
		}
		/* Copy the whole struct once, as the kernel does, and decide on
		 * this copy only. A bigger struct is valid when its tail is
		 * zero (E2BIG otherwise); then it is the same request. */
		unsigned char buf[4096];
		int e = cw_mem_read(n->tid, arg_u64(n, 2), buf, (size_t)size);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		for (size_t i = sizeof(how); i < size; i++)
			if (buf[i]) {
				cw_notif_error(n, E2BIG);
				return;
			}
		memcpy(&how, buf, sizeof(how));
		flags = (long long)how.flags;
		n->fs->open.mode = how.mode;
		open_how_resolve = how.resolve;
		break;
	}
	default:
		cw_notif_error(n, ENOSYS);
		return;
	}

	if (nr == __NR_openat2) {
		/* openat2 keeps its flags and resolve rules exactly; they are
		 * only emulated in the plain case. */
		n->fs->open.flags = (unsigned long long)flags;
		/* Emulated with RESOLVE_NO_SYMLINKS|NO_MAGICLINKS on the
		 * resolved path, which is at least as strict as these. */
		/* (RESOLVE_NO_XDEV: the decided path is opened from "/", so
		 * mount crossings are not refused as the target asked; what
		 * is opened is still exactly what was decided on.) */
		n->fs->open.emulable = !(open_how_resolve & ~(unsigned long long)(RESOLVE_IN_ROOT | RESOLVE_BENEATH |
						RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_CACHED |
						RESOLVE_NO_XDEV));
	} else {
		/* As the kernel does for open/openat: unknown bits dropped,
		 * the mode only with O_CREAT/O_TMPFILE, O_PATH keeps few. */
		flags &= CW_VALID_OPEN_FLAGS;
		if (!(flags & (O_CREAT | CW_O_TMPFILE_BIT)))
			n->fs->open.mode = 0;
		n->fs->open.mode &= 07777;
		n->fs->open.flags = (unsigned long long)flags;
		n->fs->open.emulable = true;
	}

	size_t len = 0;
	int e = read_path(n, patharg, n->fs->raw1, &len);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	bool wr = write_intent(flags);
	int rflags = 0;
	if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)))
		rflags |= CW_RES_NOFOLLOW;
	if (!(flags & O_PATH) && ((flags & O_ACCMODE) == O_RDONLY || (flags & O_ACCMODE) == O_RDWR))
		rflags |= CW_RES_WANT_READ;
	if (wr)
		rflags |= CW_RES_WANT_WRITE;
	if (open_how_resolve & RESOLVE_IN_ROOT)
		rflags |= CW_RES_IN_ROOT;
	if (open_how_resolve & RESOLVE_BENEATH)
		rflags |= CW_RES_BENEATH;
	if (open_how_resolve & RESOLVE_NO_SYMLINKS)
		rflags |= CW_RES_NO_SYMLINKS;
	ev.raw_path = n->fs->raw1;
	ev.raw_path_len = len;
	ev.dirfd = dirfd;
	ev.has_dirfd = nr == __NR_openat || nr == __NR_openat2;
	ev.flags = flags;
	ev.has_flags = true;
	if (!open_lexically(n, &ev, dirfd, open_how_resolve)) {
		e = cw_resolve_path(n->tid, n->tgid, dirfd, n->fs->raw1, rflags, &n->fs->res1);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		ev.op.kind = wr ? CW_OP_OPEN_WRITE : CW_OP_OPEN_READ;
		ev.op.path = n->fs->res1.path;
		proc_file_target(n, &ev, wr);
	}
	/* A file created with the setuid bit (or setgid) is a privilege for
	 * later, as a chmod that sets it (privilege_made). */
	if ((flags & O_CREAT) && (n->fs->open.mode & (S_ISUID | S_ISGID)) &&
	    refuse_privilege(n, (n->fs->open.mode & S_ISUID) ? "setuid bit" : "setgid bit")) {
		if (n->fs->open.fd >= 0)
			close(steal_fd(&n->fs->open.fd));
		return;
	}
	/* An open without O_CREAT of a name that does not exist fails with
	 * ENOENT in the kernel whatever the profile says: answered so, with
	 * no denial (a library probing for .env, a write to a missing file). */
	if (!(flags & (O_CREAT | CW_O_TMPFILE_BIT)) && !n->fs->res1.exists && !n->run->observe && ev.op.path &&
	    ev.op.path[0] == '/') {
		if (!ev.decided)
			cw_policy_decide(n->run->profile, &n->run->ctx, &ev.op, &ev.d);
		if (ev.d.verdict != CW_ALLOW) {
			cw_notif_error(n, ENOENT);
			if (n->fs->open.fd >= 0)
				close(steal_fd(&n->fs->open.fd));
			return;
		}
		ev.decided = true;
	}
	/* A *.pem or *.key that holds no private key (a certificate) is not a
	 * secret: capwatch reads it before deciding, and the open that
	 * follows must find the same file (enforce_open). */
	if (ev.op.kind == CW_OP_OPEN_READ && ev.op.path && !n->run->observe &&
	    cw_path_secret_by_key_name(&n->run->ctx, ev.op.path)) {
		if (n->fs->open.lexical) {
			struct stat kst;
			ev.op.key_free = n->fs->open.fd >= 0 && fstat(n->fs->open.fd, &kst) == 0 &&
					 S_ISREG(kst.st_mode) && kst.st_size <= (off_t)(4u << 20) &&
					 cw_keys_scan_fd(n->fs->open.fd, 4u << 20) == 0;
		} else {
			ev.op.key_free = cw_keys_free(ev.op.path, &n->fs->open.key_dev, &n->fs->open.key_ino);
		}
	}
	cw_event_finish(n, &ev, prepare_open, enforce_open);
	if (n->fs->open.fd >= 0)
		close(steal_fd(&n->fs->open.fd)); /* not installed: the target went away */
	/* A secret by its name: remember what it is, so that another name
	 * of it reads as the secret too. */
	if (ev.d.secret && !ev.op.alias && ev.op.path && ev.op.path[0] == '/')
		cw_secret_ids_note(n->run, ev.op.path);
}

/* ---- the path-mutating calls ---- */

enum follow { NOFOLLOW, FOLLOW, FOLLOW_UNLESS_FLAG, NOFOLLOW_UNLESS_FLAG };

struct layout {
	signed char dirfd, path;   /* arg index; dirfd -1: AT_FDCWD */
	signed char dirfd2, path2; /* second path; path2 -1: none */
	signed char flags;         /* AT_* flags arg, -1: none */
	signed char target;        /* symlink: the link text (recorded, not resolved) */
	unsigned char kind;        /* cw_op_kind */
	unsigned char follow;      /* of the first path's last component */
	unsigned char change;
	bool null_path_is_fd;      /* utimensat(fd, NULL, ...) */
};

/* Columns: dirfd, path, dirfd2, path2, flags, symlink text (arg indexes,
 * -1 = none; dirfd -1 = AT_FDCWD), op kind, last-component rule, change,
 * NULL path names the descriptor. A hard link (link*) makes the source
 * writable under a second name, so both ends need the write capability. */
#define R(d, p, d2, p2, f, t, k, fo, ch, nf) \
	{ d, p, d2, p2, f, t, CW_OP_##k, fo, CW_CHANGE_##ch, nf }
static const struct layout layouts[] = {
	[__NR_unlink] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, DELETE, false),
	[__NR_unlinkat] = R(0, 1, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, DELETE, false),
	[__NR_rmdir] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, DELETE, false),
	[__NR_rename] = R(-1, 0, -1, 1, -1, -1, RENAME, NOFOLLOW, RENAME, false),
	[__NR_renameat] = R(0, 1, 2, 3, -1, -1, RENAME, NOFOLLOW, RENAME, false),
	[__NR_renameat2] = R(0, 1, 2, 3, -1, -1, RENAME, NOFOLLOW, RENAME, false),
	[__NR_link] = R(-1, 0, -1, 1, -1, -1, RENAME, NOFOLLOW, CREATE, false),
	[__NR_linkat] = R(0, 1, 2, 3, 4, -1, RENAME, NOFOLLOW_UNLESS_FLAG, CREATE, false),
	[__NR_symlink] = R(-1, 1, -1, -1, -1, 0, SYMLINK, NOFOLLOW, CREATE, false),
	[__NR_symlinkat] = R(1, 2, -1, -1, -1, 0, SYMLINK, NOFOLLOW, CREATE, false),
	[__NR_mkdir] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, CREATE, false),
	[__NR_mkdirat] = R(0, 1, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, CREATE, false),
	[__NR_mknod] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, CREATE, false),
	[__NR_mknodat] = R(0, 1, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, CREATE, false),
	[__NR_truncate] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_chmod] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_fchmodat] = R(0, 1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_fchmodat2] = R(0, 1, -1, -1, 3, -1, FS_WRITE, FOLLOW_UNLESS_FLAG, WRITE, false),
	[__NR_chown] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_lchown] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, WRITE, false),
	[__NR_fchownat] = R(0, 1, -1, -1, 4, -1, FS_WRITE, FOLLOW_UNLESS_FLAG, WRITE, false),
	[__NR_utime] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_utimes] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_utimensat] = R(0, 1, -1, -1, 3, -1, FS_WRITE, FOLLOW_UNLESS_FLAG, WRITE, true),
	[__NR_futimesat] = R(0, 1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, true),
	[__NR_setxattr] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_lsetxattr] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, WRITE, false),
	[__NR_removexattr] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_lremovexattr] = R(-1, 0, -1, -1, -1, -1, FS_WRITE, NOFOLLOW, WRITE, false),
	/* Metadata through a descriptor: ownership suffices, so a read-only
	 * descriptor is enough; path -1 = the object behind the descriptor. */
	[__NR_fchmod] = R(0, -1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_fchown] = R(0, -1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_fsetxattr] = R(0, -1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
	[__NR_fremovexattr] = R(0, -1, -1, -1, -1, -1, FS_WRITE, FOLLOW, WRITE, false),
};
#undef R

static enum cw_change_kind fs_change_kind(int nr)
{
	return (enum cw_change_kind)layouts[nr].change;
}

/* ---- path-changing calls: emulated on directory fds held by capwatch ---- */

/* Open the parent directory of the decided path PATH without following
 * any symlink (one swapped in after the decision makes this fail with
 * ELOOP), and copy the last component to BASE. */
static int open_parent(const char *path, char *base, size_t basesz)
{
	/* Deeper than PATH_MAX too: in steps, each without symlinks. */
	return cw_open_parent_long(path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, base, basesz);
}

/* The decided object itself, as an O_PATH descriptor, no symlink followed. */
static int open_object(const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return cw_openat2_long(path, &how);
}

/* The object of a metadata call: "/dev/fd/N" (a pipe or socket of the
 * target, no path) through a duplicate of the target's descriptor, any
 * other path through an O_PATH open of the decided path. */
static int get_object(struct cw_notif *n, const char *path)
{
	if (strncmp(path, "/dev/fd/", 8) == 0)
		return dup_target_fd(n, atoi(path + 8));
	return open_object(path);
}

/* Timestamps of utime/utimes/utimensat/futimesat at ADDR (NULL = now) as
 * utimensat wants them. Returns 0 (TS filled or *NOW set) or -errno. */
static int read_times(struct cw_notif *n, int nr, uint64_t addr, struct timespec ts[2], bool *now)
{
	*now = addr == 0;
	if (*now)
		return 0;
	if (nr == __NR_utime) {
		struct utimbuf u;
		int e = cw_mem_read(n->tid, addr, &u, sizeof(u));
		if (e < 0)
			return e;
		ts[0] = (struct timespec){ u.actime, 0 };
		ts[1] = (struct timespec){ u.modtime, 0 };
		return 0;
	}
	if (nr == __NR_utimensat)
		return cw_mem_read(n->tid, addr, ts, sizeof(struct timespec) * 2);
	struct timeval tv[2];
	int e = cw_mem_read(n->tid, addr, tv, sizeof(tv));
	if (e < 0)
		return e;
	for (int i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
			return -EINVAL;
		ts[i] = (struct timespec){ tv[i].tv_sec, tv[i].tv_usec * 1000 };
	}
	return 0;
}

/* NAME = the xattr name at args[1]: the decided copy when there is one
 * (cw_fs_scratch.xattr). */
static ssize_t xattr_name(struct cw_notif *n, char name[XATTR_NAME_MAX + 1])
{
	if (n->fs->xattr_read) {
		if (n->fs->xattr_len < 0)
			return n->fs->xattr_len;
		memcpy(name, n->fs->xattr, (size_t)n->fs->xattr_len + 1);
		return n->fs->xattr_len;
	}
	return cw_mem_read_string(n->tid, arg_u64(n, 1), name, XATTR_NAME_MAX + 1);
}

/* Perform the decided operation. Returns 0 or -errno for the answer, or
 * 1 when this case is left to the kernel (CONTINUE). */
static int do_path_op(struct cw_notif *n, const struct cw_event *ev)
{
	int nr = n->req->data.nr;
	const struct layout *l = &layouts[nr];
	char b1[NAME_MAX + 1], b2[NAME_MAX + 1], proc[64];
	_cleanup_close_ int p1 = -1;
	_cleanup_close_ int p2 = -1;
	_cleanup_close_ int obj = -1;
	int r, at = l->flags >= 0 ? arg_int(n, l->flags) : 0;
	int unlink_flags = nr == __NR_unlinkat ? arg_int(n, 2) : 0;

	/* A trailing slash changes what the kernel accepts (unlink("f/") is
	 * ENOTDIR); those rare calls keep the kernel's own semantics. */
	/* A trailing slash asks for a directory (the normalized path lost
	 * it): answer what the kernel would for anything else. */
	struct stat ts1;
	size_t rl = strlen(n->fs->raw1);
	bool slash1 = rl > 1 && n->fs->raw1[rl - 1] == '/';
	bool exists1 = cw_stat_long(ev->op.path, &ts1, false) == 0;
	if (slash1) {
		if (exists1 && !S_ISDIR(ts1.st_mode))
			return -ENOTDIR;
		if (exists1 && (nr == __NR_unlink || (nr == __NR_unlinkat && !(unlink_flags & AT_REMOVEDIR))))
			return -EISDIR;
		if (!exists1 && nr != __NR_mkdir && nr != __NR_mkdirat)
			return -ENOENT;
	}
	if (l->path2 >= 0) {
		size_t rl2 = strlen(n->fs->raw2);
		struct stat ts2;
		if (rl2 > 1 && n->fs->raw2[rl2 - 1] == '/') {
			bool exists2 = cw_stat_long(ev->op.path2, &ts2, false) == 0;
			if (exists2 && !S_ISDIR(ts2.st_mode))
				return -ENOTDIR;
			/* A new name "x/" only for a directory being renamed. */
			if (!exists2 && !(exists1 && S_ISDIR(ts1.st_mode) && l->change == CW_CHANGE_RENAME))
				return exists1 ? -ENOTDIR : -ENOENT;
		}
	}

	switch (nr) {
	case __NR_unlink:
	case __NR_unlinkat:
	case __NR_rmdir:
		if ((p1 = open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		r = unlinkat(p1, b1, nr == __NR_rmdir ? AT_REMOVEDIR : unlink_flags);
		break;
	case __NR_mkdir:
	case __NR_mkdirat:
	case __NR_mknod:
	case __NR_mknodat: {
		bool md = nr == __NR_mkdir || nr == __NR_mkdirat;
		bool at_form = nr == __NR_mkdirat || nr == __NR_mknodat;
		mode_t mode = (mode_t)(uint32_t)arg_u64(n, at_form ? 2 : 1);
		if (!md && !S_ISREG(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode) && (mode & S_IFMT))
			return -EPERM; /* devices never get here (cw_handle_fs) */
		int um = cw_target_umask(n->tid);
		if (um < 0)
			return 1;
		if ((p1 = open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		mode_t saved = umask((mode_t)um);
		r = md ? mkdirat(p1, b1, mode)
		       : mknodat(p1, b1, mode, (dev_t)arg_u64(n, at_form ? 3 : 2));
		int e = errno;
		umask(saved);
		errno = e;
		break;
	}
	case __NR_rename:
	case __NR_renameat:
	case __NR_renameat2:
	case __NR_link:
	case __NR_linkat:
		if ((p1 = open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		if ((p2 = open_parent(ev->op.path2, b2, sizeof(b2))) < 0)
			return p2;
		if (nr == __NR_link || nr == __NR_linkat)
			/* The source was resolved as asked (AT_SYMLINK_FOLLOW
			 * or not): link exactly that object. */
			r = linkat(p1, b1, p2, b2, 0);
		else
			r = renameat2(p1, b1, p2, b2, nr == __NR_renameat2 ? (unsigned)arg_u64(n, 4) : 0);
		break;
	case __NR_symlink:
	case __NR_symlinkat:
		if ((p1 = open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		r = symlinkat(n->fs->raw2, p1, b1);
		break;
	case __NR_chown:
	case __NR_lchown:
	case __NR_fchownat: {
		int ua = nr == __NR_fchownat ? 2 : 1;
		if ((obj = get_object(n, ev->op.path)) < 0)
			return obj;
		r = fchownat(obj, "", (uid_t)(uint32_t)arg_u64(n, ua), (gid_t)(uint32_t)arg_u64(n, ua + 1),
			     AT_EMPTY_PATH);
		break;
	}
	case __NR_chmod:
	case __NR_fchmodat:
	case __NR_fchmodat2:
	case __NR_truncate:
	case __NR_setxattr:
	case __NR_removexattr:
	case __NR_utime:
	case __NR_utimes:
	case __NR_utimensat:
	case __NR_futimesat: {
		struct stat st;
		if ((obj = get_object(n, ev->op.path)) < 0)
			return obj;
		if (fstat(obj, &st) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode))
			return 1; /* acting on a symlink itself: left to the kernel */
		/* The magic link pins the object we opened. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", obj);
		if (nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmodat2) {
			r = chmod(proc, (mode_t)(uint32_t)arg_u64(n, nr == __NR_chmod ? 1 : 2));
		} else if (nr == __NR_truncate) {
			r = truncate(proc, (off_t)arg_u64(n, 1));
		} else if (nr == __NR_setxattr || nr == __NR_removexattr) {
			char name[XATTR_NAME_MAX + 1];
			ssize_t k = xattr_name(n, name);
			if (k < 0)
				return k == -ENAMETOOLONG ? -ERANGE : (int)k;
			if (nr == __NR_removexattr) {
				r = removexattr(proc, name);
			} else {
				uint64_t size = arg_u64(n, 3);
				if (size > XATTR_SIZE_MAX)
					return -E2BIG;
				_cleanup_free_ char *value = size ? malloc(size) : NULL;
				if (size && !value)
					return -ENOMEM;
				if (size && (r = cw_mem_read(n->tid, arg_u64(n, 2), value, size)) < 0)
					return r;
				r = setxattr(proc, name, value, size, arg_int(n, 4));
			}
		} else {
			struct timespec ts[2];
			bool now;
			uint64_t addr = arg_u64(n, nr == __NR_utime || nr == __NR_utimes ? 1 : 2);
			if (nr == __NR_utimensat && (at & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
				return -EINVAL;
			if ((r = read_times(n, nr, addr, ts, &now)) < 0)
				return r;
			r = utimensat(obj, "", now ? NULL : ts, AT_EMPTY_PATH);
		}
		break;
	}
	default:
		return 1;
	}
	return r < 0 ? -errno : 0;
}

/* Path-changing calls (kernel-notes K19): capwatch performs them itself on
 * directories it opened without following symlinks, using the basename of
 * the path it decided on, so neither rewritten argument memory nor a
 * symlink swapped into a parent directory can redirect them. Calls on an
 * object (chmod, chown, truncate, utimes, xattrs) act on an O_PATH
 * descriptor of the decided object. Same credentials as the target;
 * creations use its umask. */
static void enforce_fs(struct cw_notif *n, struct cw_event *ev)
{
	const char *p = ev->op.path;
	if (!ev->enforced || p[0] != '/' || (ev->op.path2 && ev->op.kind == CW_OP_RENAME && ev->op.path2[0] != '/')) {
		enforce_continue(n, ev); /* --observe: see enforce_continue() */
		return;
	}
	int r = do_path_op(n, ev);
	if (r == 1) {
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_notif_error(n, ev->err);
	else
		cw_notif_value(n, 0);
}

/* ---- metadata through a descriptor: emulated on a duplicate ---- */

/* The target's descriptor is duplicated into capwatch (pidfd_getfd,
 * cw_fs_scratch.fd): what it refers to can no longer be swapped by
 * another thread's dup2 between the decision and the operation
 * (kernel-notes E11, K19). */
static int dup_target_fd(struct cw_notif *n, int fd)
{
	int pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL) /* before 6.9 */
		pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
	if (pfd < 0)
		return -errno;
	int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	int e = errno;
	close(pfd);
	return d < 0 ? -e : d;
}

static int do_fd_op(struct cw_notif *n)
{
	int nr = n->req->data.nr;
	char name[XATTR_NAME_MAX + 1];
	ssize_t k;
	int r;

	switch (nr) {
	case __NR_fchmod:
		r = fchmod(n->fs->fd, (mode_t)(uint32_t)arg_u64(n, 1));
		break;
	case __NR_fchown:
		r = fchown(n->fs->fd, (uid_t)(uint32_t)arg_u64(n, 1), (gid_t)(uint32_t)arg_u64(n, 2));
		break;
	case __NR_fremovexattr:
		k = cw_mem_read_string(n->tid, arg_u64(n, 1), name, sizeof(name));
		if (k < 0)
			return k == -ENAMETOOLONG ? -ERANGE : (int)k;
		r = fremovexattr(n->fs->fd, name);
		break;
	case __NR_fsetxattr: {
		uint64_t size = arg_u64(n, 3);
		k = xattr_name(n, name);
		if (k < 0)
			return k == -ENAMETOOLONG ? -ERANGE : (int)k;
		if (size > XATTR_SIZE_MAX)
			return -E2BIG;
		_cleanup_free_ char *value = size ? malloc(size) : NULL;
		if (size && !value)
			return -ENOMEM;
		if (size && (r = cw_mem_read(n->tid, arg_u64(n, 2), value, size)) < 0)
			return r;
		r = fsetxattr(n->fs->fd, name, value, size, arg_int(n, 4));
		break;
	}
	case __NR_fchownat: /* (fd, "", uid, gid, AT_EMPTY_PATH) */
		r = fchownat(n->fs->fd, "", (uid_t)(uint32_t)arg_u64(n, 2), (gid_t)(uint32_t)arg_u64(n, 3),
			     AT_EMPTY_PATH);
		break;
	case __NR_fchmodat2: { /* (fd, "", mode, AT_EMPTY_PATH) */
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", n->fs->fd);
		r = chmod(self, (mode_t)(uint32_t)arg_u64(n, 2));
		break;
	}
	case __NR_linkat: { /* (fd, "", newdirfd, newpath, AT_EMPTY_PATH): an O_TMPFILE's name */
		char b2[NAME_MAX + 1];
		_cleanup_close_ int p2 = open_parent(n->fs->res2.path, b2, sizeof(b2));
		if (p2 < 0)
			return p2;
		r = linkat(n->fs->fd, "", p2, b2, AT_EMPTY_PATH);
		break;
	}
	case __NR_utimensat: {
		struct timespec ts[2];
		if (arg_u64(n, 1)) {
			/* (fd, "", times, AT_EMPTY_PATH[|AT_SYMLINK_NOFOLLOW]) */
			if (arg_u64(n, 2) && (r = cw_mem_read(n->tid, arg_u64(n, 2), ts, sizeof(ts))) < 0)
				return r;
			r = utimensat(n->fs->fd, "", arg_u64(n, 2) ? ts : NULL, AT_EMPTY_PATH);
			break;
		}
		if (arg_int(n, 3) != 0)
			return -EINVAL; /* no flags without a path */
		if (arg_u64(n, 2) && (r = cw_mem_read(n->tid, arg_u64(n, 2), ts, sizeof(ts))) < 0)
			return r;
		r = futimens(n->fs->fd, arg_u64(n, 2) ? ts : NULL);
		break;
	}
	case __NR_futimesat: {
		struct timeval tv[2];
		struct timespec ts[2];
		if (arg_u64(n, 2)) {
			if ((r = cw_mem_read(n->tid, arg_u64(n, 2), tv, sizeof(tv))) < 0)
				return r;
			for (int i = 0; i < 2; i++) {
				if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
					return -EINVAL;
				ts[i].tv_sec = tv[i].tv_sec;
				ts[i].tv_nsec = tv[i].tv_usec * 1000;
			}
		}
		r = futimens(n->fs->fd, arg_u64(n, 2) ? ts : NULL);
		break;
	}
	default:
		return -ENOSYS;
	}
	return r < 0 ? -errno : 0;
}

/* Performed by capwatch on its duplicate, with the target's credentials
 * (the same uid and gids), and answered with the result: the operation
 * acts on the object that was decided on. */
static void enforce_fd_op(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int r = do_fd_op(n);
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_notif_error(n, ev->err);
	else
		cw_notif_value(n, 0);
}

int cw_dup_target_fd(const struct cw_notif *n, int fd)
{
	return dup_target_fd((struct cw_notif *)n, fd);
}

/* ---- metadata writes that are not system calls of their own (ioctl's
 * FS_IOC_SETFLAGS and friends): decided like fchmod, performed by the
 * caller's OP on the same duplicate ---- */

static void prepare_meta(struct cw_notif *n, struct cw_event *ev)
{
	note_change(n, ev, CW_CHANGE_WRITE);
}

static void enforce_meta(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int r = n->fs->meta_op(n, n->fs->fd, n->fs->meta_arg);
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_notif_error(n, ev->err);
	else
		cw_notif_value(n, 0);
}

void cw_fs_fd_meta(struct cw_notif *n, int fd, long long flags, cw_fd_meta_fn op, void *arg)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_FS_WRITE;
	/* As for fchmod(fd): the object is named by capwatch's duplicate,
	 * taken once; the decision and the operation both use it. */
	int e = n->fs->fd = dup_target_fd(n, fd);
	if (e >= 0) {
		e = cw_resolve_fd(getpid(), n->fs->fd, &n->fs->res1);
		if (e == 0 && strncmp(n->fs->res1.path, "/dev/fd/", 8) == 0)
			snprintf(n->fs->res1.path, sizeof(n->fs->res1.path), "/dev/fd/%d", fd);
	}
	if (e < 0) {
		if (n->fs->fd >= 0)
			close(steal_fd(&n->fs->fd));
		answer_unreadable(n, -e);
		return;
	}
	n->fs->raw1[0] = '\0';
	ev.op.path = n->fs->res1.path;
	ev.raw_path = n->fs->raw1;
	ev.raw_path_len = 0;
	ev.dirfd = fd;
	ev.has_dirfd = true;
	ev.flags = flags;
	ev.has_flags = true;
	n->fs->meta_op = op;
	n->fs->meta_arg = arg;
	cw_event_finish(n, &ev, prepare_meta, enforce_meta);
	if (n->fs->fd >= 0)
		close(steal_fd(&n->fs->fd));
}

/* The last component of a path as written ("." or ".." or other), trailing
 * slashes aside: 1 for ".", 2 for "..", 0 otherwise. */
static int dot_last(const char *raw)
{
	size_t l = strlen(raw);
	while (l > 1 && raw[l - 1] == '/')
		l--;
	size_t b = l;
	while (b > 0 && raw[b - 1] != '/')
		b--;
	if (l - b == 1 && raw[b] == '.')
		return 1;
	if (l - b == 2 && raw[b] == '.' && raw[b + 1] == '.')
		return 2;
	return 0;
}

/* A call whose path ends in "." or ".." (the fuzzer's finding): the
 * resolved path names the directory itself, but the kernel never removes,
 * renames or creates it under that name: unlink says EISDIR (ENOTDIR when
 * what precedes is no directory), rmdir EINVAL or ENOTEMPTY, rename EBUSY,
 * mkdir/mknod/symlink/link EEXIST. Returns that errno, 0 when the call
 * goes on as usual (metadata calls act on the directory itself). */
static int dot_path_errno(struct cw_notif *n, int nr, const struct layout *l)
{
	int d1 = l->path >= 0 ? dot_last(n->fs->raw1) : 0;
	int d2 = l->path2 >= 0 ? dot_last(n->fs->raw2) : 0;
	if (!d1 && !d2)
		return 0;
	/* What precedes the dot must be a directory (the walk normalized
	 * "f/." to "f"). */
	const char *paths[2] = { d1 ? n->fs->res1.path : NULL, d2 ? n->fs->res2.path : NULL };
	for (int i = 0; i < 2; i++) {
		struct stat st;
		if (!paths[i])
			continue;
		int e = cw_stat_long(paths[i], &st, true);
		if (e < 0)
			return -e == ENOTDIR ? ENOTDIR : ENOENT;
		if (!S_ISDIR(st.st_mode))
			return ENOTDIR;
	}
	switch (nr) {
	case __NR_unlink:
		return EISDIR;
	case __NR_unlinkat:
		if (arg_int(n, 2) & AT_REMOVEDIR)
			return d1 == 1 ? EINVAL : ENOTEMPTY;
		return EISDIR;
	case __NR_rmdir:
		return d1 == 1 ? EINVAL : ENOTEMPTY;
	case __NR_rename:
	case __NR_renameat:
	case __NR_renameat2:
		return EBUSY;
	case __NR_mkdir:
	case __NR_mkdirat:
	case __NR_mknod:
	case __NR_mknodat:
	case __NR_symlink:
	case __NR_symlinkat:
	case __NR_link:
	case __NR_linkat:
		return EEXIST;
	default:
		return 0;
	}
}

/* A write that makes a privilege for later (red team e130): the setuid
 * bit, the setgid bit on a file, file capabilities (security.capability).
 * no_new_privs keeps them from the tree, not from whoever runs the file
 * after the run, and capwatch performs the call with root's rights:
 * unrestricted, wherever the file is. Returns what is made, or NULL. */
static const char *privilege_made(struct cw_notif *n, int nr, mode_t obj_mode)
{
	unsigned long long mode;
	switch (nr) {
	case __NR_chmod:
	case __NR_fchmod:
		mode = arg_u64(n, 1);
		break;
	case __NR_fchmodat:
	case __NR_fchmodat2:
		mode = arg_u64(n, 2);
		break;
	case __NR_mknod:
	case __NR_mknodat:
		/* A regular file made with the bits (mknod's S_IFREG). */
		mode = arg_u64(n, nr == __NR_mknod ? 1 : 2);
		obj_mode = (mode_t)(mode & S_IFMT);
		break;
	case __NR_setxattr:
	case __NR_lsetxattr:
	case __NR_fsetxattr:
		n->fs->xattr_len = cw_mem_read_string(n->tid, arg_u64(n, 1), n->fs->xattr, sizeof(n->fs->xattr));
		n->fs->xattr_read = true;
		if (n->fs->xattr_len < 0)
			return NULL; /* the performed call answers this error */
		return strcmp(n->fs->xattr, "security.capability") == 0 ? "file capabilities" : NULL;
	default:
		return NULL;
	}
	if (mode & S_ISUID)
		return "setuid bit";
	if ((mode & S_ISGID) && !S_ISDIR(obj_mode))
		return "setgid bit";
	return NULL;
}

/* Refuse (or, under a profile that grants unrestricted, let the usual
 * decision go on with) a privilege made for later: decided as the escape
 * WHAT (unrestricted, scope WHAT), recorded. True when answered. */
static bool refuse_privilege(struct cw_notif *n, const char *what)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_ESCAPE_SYSCALL;
	ev.op.syscall = what;
	bool allowed = cw_event_decide(n, &ev);
	if (!ev.enforced) {
		/* --observe: what would have been refused is recorded; the
		 * call goes on through the usual decision. */
		if (ev.d.verdict != CW_ALLOW)
			cw_event_record(n, &ev);
		return false;
	}
	if (allowed)
		return false;
	cw_event_deny(n, &ev);
	cw_event_record(n, &ev);
	return true;
}

void cw_handle_fs(struct cw_notif *n)
{
	int nr = n->req->data.nr;
	if (nr < 0 || (size_t)nr >= CW_ARRAY_SIZE(layouts) || layouts[nr].kind == 0) {
		/* kind 0 is OPEN_READ: no row here uses it. */
		cw_notif_error(n, ENOSYS);
		return;
	}
	const struct layout *l = &layouts[nr];
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = (cw_op_kind)l->kind;
	n->fs->xattr_len = -1;
	n->fs->xattr_read = false;
	cw_secret_ids_start(n->run); /* before any name changes (secret_ids.h) */
	if (nr == __NR_renameat2 && (arg_u64(n, 4) & RENAME_EXCHANGE))
		ev.op.exchange = true;
	if (nr == __NR_mknod || nr == __NR_mknodat) {
		/* A device node is access to whatever it names (a disk, a
		 * loop device of a file outside): unrestricted, decided on the
		 * mode register. */
		mode_t m = (mode_t)(uint32_t)arg_u64(n, nr == __NR_mknodat ? 2 : 1);
		if (S_ISCHR(m) || S_ISBLK(m)) {
			ev.op.kind = CW_OP_ESCAPE_SYSCALL;
			ev.flags = m;
			ev.has_flags = true;
			cw_event_finish(n, &ev, NULL, enforce_continue);
			return;
		}
	}

	int at_flags = l->flags >= 0 ? arg_int(n, l->flags) : 0;
	int dirfd = l->dirfd >= 0 ? arg_int(n, l->dirfd) : AT_FDCWD;
	int rflags = CW_RES_WANT_WRITE | CW_RES_NO_COVER;
	switch (l->follow) {
	case NOFOLLOW: rflags |= CW_RES_NOFOLLOW; break;
	case FOLLOW: break;
	case FOLLOW_UNLESS_FLAG:
		if (at_flags & AT_SYMLINK_NOFOLLOW)
			rflags |= CW_RES_NOFOLLOW;
		break;
	case NOFOLLOW_UNLESS_FLAG:
		if (!(at_flags & AT_SYMLINK_FOLLOW))
			rflags |= CW_RES_NOFOLLOW;
		break;
	}
	if (at_flags & AT_EMPTY_PATH)
		rflags |= CW_RES_EMPTY_PATH;

	int e;
	size_t len = 0, len2 = 0;
	bool fd_op = l->path < 0 || (l->null_path_is_fd && arg_u64(n, l->path) == 0);
	if (!fd_op && (at_flags & AT_EMPTY_PATH)) {
		/* fchownat(fd, "", ..., AT_EMPTY_PATH) and friends: the
		 * descriptor itself when the path is empty. */
		e = read_path(n, l->path, n->fs->raw1, &len);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		fd_op = len == 0;
	}
	if (fd_op) {
		/* fchmod(fd), utimensat(fd, NULL, ...): the descriptor itself,
		 * named by capwatch's own duplicate of it. */
		e = n->fs->fd = dup_target_fd(n, dirfd);
		if (e >= 0) {
			e = cw_resolve_fd(getpid(), n->fs->fd, &n->fs->res1);
			const char *ln = e == -ENAMETOOLONG ? long_name_of(n->run->fs_state, n->fs->fd) : NULL;
			if (ln) {
				/* Deeper than PATH_MAX: the name capwatch opened it by. */
				strcpy(n->fs->res1.path, ln);
				e = 0;
			}
			if (e == 0 && strncmp(n->fs->res1.path, "/dev/fd/", 8) == 0)
				snprintf(n->fs->res1.path, sizeof(n->fs->res1.path), "/dev/fd/%d", dirfd);
		}
		n->fs->raw1[0] = '\0';
	} else {
		e = len ? 0 : read_path(n, l->path, n->fs->raw1, &len);
		if (e == 0)
			e = cw_resolve_path(n->tid, n->tgid, dirfd, n->fs->raw1, rflags, &n->fs->res1);
	}
	if (e < 0) {
		if (n->fs->fd >= 0)
			close(steal_fd(&n->fs->fd));
		answer_unreadable(n, -e);
		return;
	}
	ev.op.path = n->fs->res1.path;
	ev.raw_path = n->fs->raw1;
	ev.raw_path_len = len;
	ev.dirfd = dirfd;
	ev.has_dirfd = l->dirfd >= 0;
	if (l->flags >= 0) {
		ev.flags = at_flags;
		ev.has_flags = true;
	} else if (nr == __NR_unlinkat) {
		/* For the record only (AT_REMOVEDIR: a directory's removal,
		 * not an unlink); do_path_op passes them to the kernel. */
		ev.flags = arg_int(n, 2);
		ev.has_flags = true;
	}

	if (l->path2 >= 0) {
		int dirfd2 = l->dirfd2 >= 0 ? arg_int(n, l->dirfd2) : AT_FDCWD;
		e = read_path(n, l->path2, n->fs->raw2, &len2);
		if (e == 0)
			e = cw_resolve_path(n->tid, n->tgid, dirfd2, n->fs->raw2, CW_RES_NOFOLLOW | CW_RES_WANT_WRITE, &n->fs->res2);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		ev.op.path2 = n->fs->res2.path;
		ev.raw_path2 = n->fs->raw2;
		ev.raw_path2_len = len2;
	} else if (l->target >= 0) {
		/* symlink: the text is stored as is; what it points to is
		 * decided when something opens through it. */
		e = read_path(n, l->target, n->fs->raw2, &len2);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		ev.op.path2 = n->fs->raw2;
		ev.raw_path2 = n->fs->raw2;
		ev.raw_path2_len = len2;
	}
	/* A rename or link decided as a secret read: remember the secret
	 * (before it moves, when it does). */
	if (ev.op.kind == CW_OP_RENAME && !fd_op && cw_path_is_secret(&n->run->ctx, ev.op.path))
		cw_secret_ids_note(n->run, ev.op.path);
	/* A path ending in "." or "..": what the kernel says, nothing done. */
	if (!fd_op && !n->run->observe) {
		int de = dot_path_errno(n, nr, l);
		if (de) {
			cw_notif_error(n, de);
			if (n->fs->fd >= 0)
				close(steal_fd(&n->fs->fd));
			return;
		}
	}
	/* The setuid bit, file capabilities...: a privilege for later. */
	{
		struct stat fst;
		mode_t om = fd_op ? (fstat(n->fs->fd, &fst) == 0 ? fst.st_mode : 0) : (mode_t)n->fs->res1.mode;
		const char *what = privilege_made(n, nr, om);
		if (what && refuse_privilege(n, what)) {
			if (n->fs->fd >= 0)
				close(steal_fd(&n->fs->fd));
			return;
		}
	}
	/* A call on a name that does not exist (unlink, rmdir, chmod,
	 * rename's or link's source...) fails with ENOENT in the kernel
	 * whatever the profile says: answered so, with no denial (`rm -f
	 * nofile` under readonly exits 0 as bare). Something made under
	 * that name since we looked is a race the call lost. */
	/* ... and one that creates a name that is already there (mkdir -p
	 * walking down from /, mknod, symlink) fails with EEXIST. */
	int kernel_err = 0;
	if (!fd_op && !n->run->observe) {
		if (!n->fs->res1.exists && (l->change != CW_CHANGE_CREATE || l->kind == CW_OP_RENAME))
			kernel_err = ENOENT;
		else if (n->fs->res1.exists && l->change == CW_CHANGE_CREATE && l->kind != CW_OP_RENAME)
			kernel_err = EEXIST;
	}
	if (kernel_err) {
		cw_policy_decide(n->run->profile, &n->run->ctx, &ev.op, &ev.d);
		if (ev.d.verdict != CW_ALLOW) {
			cw_notif_error(n, kernel_err);
			if (n->fs->fd >= 0)
				close(steal_fd(&n->fs->fd));
			return;
		}
		ev.decided = true; /* cw_event_decide uses it */
	}
	cw_event_finish(n, &ev, prepare_fs, fd_op ? enforce_fd_op : enforce_fs);
	if (n->fs->fd >= 0)
		close(steal_fd(&n->fs->fd));
}

/* name_to_handle_at: a file handle is metadata (like stat) and reads
 * nothing; its only use, open_by_handle_at, is unrestricted. Recorded in
 * the trace as a note with the resolved path, then let through. */
void cw_handle_fs_note(struct cw_notif *n)
{
	int dirfd = arg_int(n, 0);
	int flags = arg_int(n, 4);
	size_t len = 0;
	int e = read_path(n, 1, n->fs->raw1, &len);
	if (e == 0)
		e = cw_resolve_path(n->tid, n->tgid, dirfd, n->fs->raw1,
				    (flags & AT_SYMLINK_FOLLOW ? 0 : CW_RES_NOFOLLOW) |
				    (flags & AT_EMPTY_PATH ? CW_RES_EMPTY_PATH : 0), &n->fs->res1);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	cw_notif_continue(n);
	cw_run_note(n->run, n->tgid, "info", "%s(%s): a file handle, recorded only", n->syscall, n->fs->res1.path);
}
