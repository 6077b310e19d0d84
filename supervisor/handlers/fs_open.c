/* The file family's opens: open, openat, openat2, creat. A plain read of
 * a file is decided on its lexical name and opened at once
 * (open_lexically, the hot path); every other open is resolved, decided,
 * and performed by capwatch (enforce_open), or handed to fs_special.c for
 * the objects that are not plain files. decode -> resolve -> decide ->
 * enforce. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/handlers/keys.h"
#include "supervisor/state.h"
#include "supervisor/changes.h"
#include "supervisor/ptrace.h"
#include "supervisor/secret_ids.h"
#include "supervisor/util.h"
#include "path.h"

/* The kernel's own O_TMPFILE bit (glibc's __O_TMPFILE also has
 * O_DIRECTORY in it, which every directory open sets). */
#define CW_O_TMPFILE_BIT 020000000
/* The status flags F_SETFL sets that an open also sets (O_ASYNC is
 * ignored by open and would take effect through F_SETFL). */
#define CW_O_SETFL_KEEP (O_APPEND | O_DIRECT | O_NOATIME)

static bool write_intent(long long flags)
{
	if (flags & O_PATH)
		return false; /* O_PATH ignores every other flag (K18) */
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | CW_O_TMPFILE_BIT));
}

static void prepare_open(struct cw_notif *n, struct cw_event *ev)
{
	if (ev->op.kind == CW_OP_OPEN_WRITE)
		cw_fs_note_change(n, ev, CW_CHANGE_WRITE);
}

/* The file just opened for reading (ST) is the same inode as a secret
 * capwatch knows under another name (secret_ids.h): a hard link made
 * before the run, or the one name left of a secret whose name the tree
 * removed; or its path is where a home's secret place leads through a
 * symbolic link (cw_secret_ids_linked). Returns the text for op.alias,
 * or NULL. */
static const char *secret_alias(struct cw_notif *n, const struct cw_event *ev, const struct stat *st)
{
	/* (a *.pem or *.key holding no private key is no secret by its
	 * name: it may still be one by where a link from a home leads, a
	 * key file of gnupg's private-keys-v1.d, e159) */
	if (cw_path_is_secret(&n->run->ctx, ev->op.path) &&
	    !(ev->op.key_free && cw_path_secret_by_key_name(&n->run->ctx, ev->op.path)))
		return NULL;
	const char *name = cw_secret_ids_find(n->run, st);
	if (name) {
		snprintf(n->fs->secret_alias, sizeof(n->fs->secret_alias), "the same file as the secret %s", name);
		return n->fs->secret_alias;
	}
	/* A private key when the tree opened it to write, whatever it holds
	 * now (e167: its markers overwritten). */
	if (S_ISREG(st->st_mode) && cw_secret_ids_key_held(n->run, st->st_dev, st->st_ino))
		return "a file that held a private key";
	/* A home's secret place reached through a symbolic link (e157). */
	name = cw_secret_ids_linked(n->run, ev->op.path);
	if (!name)
		return NULL;
	snprintf(n->fs->secret_alias, sizeof(n->fs->secret_alias), "the secret %s, through a symbolic link", name);
	return n->fs->secret_alias;
}

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

/* Is the file open on FD (at PATH) mounted over its name, i.e. on another
 * mount than its directory? The directory is opened from ROOT, where FD
 * was (cw_openat2_tree): in the same mount namespace. */
static bool file_is_mount_point(int root, int fd, const char *path)
{
	struct statx a, b;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return false;
	size_t dl = slash == path ? 1 : (size_t)(slash - path);
	_cleanup_free_ char *dir = strndup(path, dl);
	if (!dir)
		return false;
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int d = cw_openat2_tree(root, dir, &how);
	if (d < 0 || statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &a) < 0 ||
	    statx(d, "", AT_EMPTY_PATH, STATX_MNT_ID, &b) < 0 || !(a.stx_mask & STATX_MNT_ID) ||
	    !(b.stx_mask & STATX_MNT_ID))
		return false;
	return a.stx_mnt_id != b.stx_mnt_id;
}

/* Install FD (the answer's from here) in the target as the answer. What
 * became of it (installed, or an errno such as EMFILE) is EV's when it is
 * recorded (cw_event_record). */
static void answer_with_fd(struct cw_notif *n, struct cw_event *ev, int fd)
{
	ev->err = 0;
	cw_answer_fd(n, fd, n->fs->open.flags & O_CLOEXEC);
}

/* "/dev/fd/N": the target reopens its own descriptor N (/dev/stdout,
 * /proc/self/fd/N), decided as granting nothing new. capwatch takes a
 * duplicate of N (pidfd_getfd: the object cannot be swapped any more),
 * checks again that it covers the access asked for (or is no file at
 * all), and opens a new description of it through its own magic link, as
 * the kernel would for the target. */
static void reopen_target_fd(struct cw_notif *n, struct cw_event *ev, int tfd)
{
	_cleanup_close_ int d = cw_dup_target_fd(n, tfd);
	ev->verified = true;
	if (d < 0) {
		ev->err = d == -EBADF ? EBADF : EACCES;
		cw_answer_error(n, ev->err);
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
		cw_answer_error(n, ev->err);
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
		cw_answer_error(n, ev->err);
		return;
	}
	if (fifo && !(n->fs->open.flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	answer_with_fd(n, ev, fd);
}

/* Answer the open open_lexically() already performed. */
static void answer_lexical(struct cw_notif *n, struct cw_event *ev)
{
	/* Opened already, on exactly the name decided on. The answer
	 * proves the bytes were the asker's (open_lexically): when it
	 * finds the notification gone, the event is not recorded. */
	int fd = steal_fd(&n->fs->open.fd);
	ev->verified = true;
	ev->quiet_if_gone = true;
	if (fd >= 0) {
		answer_with_fd(n, ev, fd);
	} else {
		ev->err = n->fs->open.open_err;
		cw_answer_error(n, ev->err);
	}
}

/* The open capwatch performed for EV failed with ERR (or was refused):
 * close FD (unless -1) and answer ERR. */
static void open_failed(struct cw_notif *n, struct cw_event *ev, int fd, int err)
{
	if (fd >= 0)
		close(fd);
	ev->err = err;
	cw_answer_error(n, err);
}

/* A trailing slash asks for a directory; the decided path PATH lost it.
 * With O_CREAT the kernel says EISDIR before it looks at the name
 * (open_last_lookups), whatever is there. The errno, or 0. */
static int trailing_slash_errno(struct cw_notif *n, const char *path)
{
	size_t rl = strlen(n->fs->raw1);
	struct stat st;
	if (rl <= 1 || n->fs->raw1[rl - 1] != '/')
		return 0;
	if (n->fs->open.flags & O_CREAT)
		return EISDIR;
	if (cw_stat_long(path, &st, false) < 0)
		return ENOENT;
	return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

/* How enforce_open opens the decided file, and what it opened. */
struct open_plan {
	unsigned long long acc;   /* the access asked for (O_ACCMODE) */
	bool late_trunc;          /* O_TRUNC is done by ftruncate after the checks */
	bool reopen_rd;           /* ... through a read-write open, reopened read-only */
	bool nb_added;            /* O_NONBLOCK is capwatch's, until the type is checked */
	bool existing;            /* opened without O_CREAT: it was there */
	bool created;             /* this open made the file (its name is undone when the
				     descriptor cannot be installed: e144) */
	struct stat st;           /* what was opened */
};

/* O_CREAT of a regular file that was there when resolved creates
 * nothing: tried first without O_CREAT, it needs no umask (reading it
 * costs an open and read of /proc/PID/status, ~10 us). ENOENT: it went
 * away meanwhile, and the creating open runs. So does it for a file
 * capwatch (the target's uid) does not own: O_CREAT of those is refused
 * in sticky world-writable directories (fs.protected_regular), which
 * only the kernel's own O_CREAT applies. The descriptor (P->st filled),
 * or -1 with errno set. */
static int open_existing(struct cw_notif *n, const struct cw_event *ev, const struct open_how *how,
			 struct open_plan *p)
{
	struct open_how plain = *how;
	plain.flags &= ~(unsigned long long)O_CREAT;
	plain.mode = 0;
	int fd = cw_openat2_tree(n->run->tree_root_fd, ev->op.path, &plain);
	if (fd < 0) {
		errno = -fd;
		fd = -1;
	}
	struct cw_fs_state *fs = n->run->fs_state;
	if (fs->euid == (uid_t)-1)
		fs->euid = geteuid(); /* capwatch's euid does not change */
	if (fd >= 0 && (fstat(fd, &p->st) < 0 || p->st.st_uid != fs->euid)) {
		close(fd);
		fd = -1;
		errno = ENOENT; /* the creating open decides */
	}
	return fd;
}

/* Step 1: open the decided path as EV's open asks, planned in P. The
 * descriptor (P->st filled), or -1 when answered. */
static int open_file(struct cw_notif *n, struct cw_event *ev, struct open_plan *p)
{
	const struct cw_fs_open *o = &n->fs->open;
	/* O_TRUNC waits for the alias check (step 4): opened with it, a file
	 * that a hard link made before the run also names outside the
	 * workspace was emptied before its denial. The open asks for the
	 * access O_TRUNC needs (write: O_RDONLY|O_TRUNC opens read-write and
	 * is reopened read-only), and the truncation follows the check
	 * (ftruncate: the same effect on a regular file; other objects ignore
	 * O_TRUNC). O_ACCMODE 3 has no write mode to truncate through: it
	 * keeps O_TRUNC in the open. */
	p->acc = o->flags & O_ACCMODE;
	p->created = false;
	p->late_trunc = (o->flags & O_TRUNC) && p->acc != O_ACCMODE;
	p->reopen_rd = p->late_trunc && p->acc == O_RDONLY;
	unsigned long long oflags = o->flags;
	if (p->late_trunc)
		oflags &= ~(unsigned long long)O_TRUNC;
	if (p->reopen_rd)
		oflags = (oflags & ~(unsigned long long)O_ACCMODE) | O_RDWR;
	/* O_NONBLOCK until the descriptor's type is checked: the name was a
	 * regular file or a directory when resolved, and a FIFO or device
	 * renamed over it since must not block (or act in) capwatch's event
	 * loop; it goes to fs_special.c, which opens such objects safely. */
	p->nb_added = !(o->flags & O_NONBLOCK);
	struct open_how how = {
		.flags = oflags | O_NOCTTY | O_CLOEXEC | O_NONBLOCK,
		.mode = o->mode,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	p->existing = (o->flags & O_CREAT) && n->fs->res1.exists && S_ISREG(n->fs->res1.mode) &&
		      !(o->flags & (O_EXCL | O_DIRECTORY | CW_O_TMPFILE_BIT));
	int fd = -1;
	ev->verified = true;
	if (p->existing)
		fd = open_existing(n, ev, &how, p);
	if (!p->existing || (fd < 0 && errno == ENOENT)) {
		/* Creations get the target's umask, applied by the kernel as
		 * for the target itself (a directory's default ACL then wins,
		 * as it would). */
		int um = -1;
		if (o->flags & (O_CREAT | CW_O_TMPFILE_BIT)) {
			um = cw_target_umask(n->tid);
			if (um < 0) {
				/* Not continued: the path would be read again
				 * from the target's memory. */
				open_failed(n, ev, -1, um == -ESRCH ? EPERM : -um);
				return -1;
			}
		}
		mode_t saved_umask = um >= 0 ? umask((mode_t)um) : 0;
		/* O_CREAT with O_EXCL, so that capwatch knows it made the
		 * file; there already (made meanwhile), the open asked for
		 * runs as asked (the kernel's O_CREAT checks, such as
		 * fs.protected_regular, apply to it). */
		bool excl_added = (o->flags & O_CREAT) && !(o->flags & (O_EXCL | CW_O_TMPFILE_BIT));
		if (excl_added)
			how.flags |= O_EXCL;
		fd = cw_openat2_tree(n->run->tree_root_fd, ev->op.path, &how);
		if (fd == -EEXIST && excl_added) {
			how.flags &= ~(unsigned long long)O_EXCL;
			fd = cw_openat2_tree(n->run->tree_root_fd, ev->op.path, &how);
		} else if (fd >= 0 && (o->flags & O_CREAT) && !(o->flags & CW_O_TMPFILE_BIT)) {
			p->created = true;
		}
		int open_errno = fd < 0 ? -fd : 0;
		if (fd < 0)
			fd = -1;
		if (um >= 0)
			umask(saved_umask);
		errno = open_errno;
		p->existing = false;
	}
	if (fd < 0) {
		open_failed(n, ev, -1, errno);
		return -1;
	}
	if (!p->existing && fstat(fd, &p->st) < 0) {
		open_failed(n, ev, fd, errno); /* no check, no write */
		return -1;
	}
	return fd;
}

/* Step 2: is what FD opened what may be opened here? A device mounted
 * over a plain device's name, or anything but a regular file or a
 * directory swapped in since the resolution, is not. False when answered
 * (FD closed). */
static bool check_type(struct cw_notif *n, struct cw_event *ev, int fd, const struct open_plan *p)
{
	const struct stat *st = &p->st;
	int dev = plain_device(ev->op.path);
	if (dev >= 0) {
		/* Make sure it is that device (not something mounted over it). */
		if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != plain_devices[dev].major ||
		    minor(st->st_rdev) != plain_devices[dev].minor) {
			open_failed(n, ev, fd, EACCES);
			return false;
		}
	} else if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		/* Swapped since resolved (see O_NONBLOCK in open_file). */
		close(fd);
		cw_open_special(n, ev, n->fs->open.flags, n->fs->open.mode, n->fs->open.emulable);
		return false;
	}
	if (p->nb_added && fcntl(fd, F_SETFL, (int)(n->fs->open.flags & CW_O_SETFL_KEEP)) < 0) {
		open_failed(n, ev, fd, errno);
		return false;
	}
	return true;
}

bool cw_fs_decide_secret_read(struct cw_notif *n, struct cw_event *ev, const char *alias)
{
	cw_op_kind kind = ev->op.kind;
	ev->op.kind = CW_OP_OPEN_READ;
	ev->op.alias = alias;
	if (!cw_event_decide(n, ev)) {
		cw_event_deny(n, ev);
		return false;
	}
	/* Allowed (observe, or a profile that allows it): a write is still
	 * decided as one, on its name. */
	if (kind != CW_OP_OPEN_READ) {
		ev->op.kind = kind;
		ev->op.alias = NULL;
	}
	return true;
}

/* Step 3: a read of what is a secret under another name (a known
 * secret's inode, a private key in any file), or of a *.pem that is not
 * the certificate read before the decision, is decided again. False when
 * denied and answered (FD closed). */
static bool decide_read_aliases(struct cw_notif *n, struct cw_event *ev, int fd, const struct open_plan *p)
{
	const struct stat *st = &p->st;
	bool reads = p->acc == O_RDONLY || p->acc == O_RDWR;
	if (ev->op.key_free && (st->st_dev != n->fs->open.key_dev || st->st_ino != n->fs->open.key_ino)) {
		/* Not the certificate read before the decision: decide on
		 * the name alone. */
		ev->op.key_free = false;
		if (!cw_event_decide(n, ev)) {
			close(fd);
			cw_event_deny(n, ev);
			return false;
		}
	}
	const char *sa = reads && !ev->op.alias ? secret_alias(n, ev, st) : NULL;
	/* A private key under any name is a secret (keys.h). */
	if (!sa && reads && !ev->op.alias && S_ISREG(st->st_mode) &&
	    cw_keys_worth_scanning(ev->op.path, st->st_size) &&
	    !cw_path_is_secret(&n->run->ctx, ev->op.path) && cw_keys_scan_fd(fd, cw_keys_scan_size(st->st_size)) == 1)
		sa = "a file holding a private key";
	/* The same inode as a secret known under another name, or a key: a
	 * secret read, whatever this name is. */
	if (sa && !cw_fs_decide_secret_read(n, ev, sa)) {
		close(fd);
		return false;
	}
	return true;
}

/* The key checks of an object capwatch opened for the tree (this file's
 * emulation and fs_special.c's), FD any descriptor of it (O_PATH too):
 * the same file opened again to read, -1 when it cannot be. */
static int reopen_to_read(int fd, const struct stat *st)
{
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	int rfd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat rst;
	if (rfd >= 0 && (fstat(rfd, &rst) < 0 || rst.st_dev != st->st_dev || rst.st_ino != st->st_ino)) {
		close(rfd);
		rfd = -1;
	}
	return rfd;
}

const char *cw_fs_key_alias(struct cw_run *run, const char *path, int fd, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return NULL;
	if (cw_secret_ids_key_held(run, st->st_dev, st->st_ino))
		return "a file that held a private key";
	if (!cw_keys_worth_scanning(path, st->st_size))
		return NULL;
	int rfd = reopen_to_read(fd, st);
	int k = rfd >= 0 ? cw_keys_scan_fd(rfd, cw_keys_scan_size(st->st_size)) : 0;
	if (rfd >= 0)
		close(rfd);
	return k == 1 ? "a file holding a private key" : NULL;
}

bool cw_fs_key_before_write(struct cw_run *run, const char *path, int fd, const struct stat *st,
			    unsigned long long flags)
{
	if (!S_ISREG(st->st_mode) || st->st_size < 64 || (flags & O_TRUNC))
		return true;
	bool by_name = cw_path_secret_by_key_name(&run->ctx, path);
	if (!by_name && !cw_keys_worth_scanning(path, st->st_size))
		return true;
	int rfd = reopen_to_read(fd, st);
	if (rfd < 0)
		return true; /* (nothing to read it by: it cannot be read either) */
	int k = cw_keys_scan_fd(rfd, by_name ? (size_t)(4u << 20) : cw_keys_scan_size(st->st_size));
	close(rfd);
	return k != 1 || cw_secret_ids_key_note(run, st, path);
}

/* Before a write to a file that was there: when it holds a private key
 * (a *.pem or *.key by its name, up to 4 MiB; any other file worth a look,
 * keys.h), it stays a secret for the run whatever the write makes of it
 * (cw_secret_ids_key_note, red team e167: two bytes written into its
 * markers left the key to be read). An open that truncates leaves nothing
 * of it to read. False when answered (FD closed): the key could not be
 * remembered, and the write is decided as a read of it (fail closed). */
static bool key_note_before_write(struct cw_notif *n, struct cw_event *ev, int fd, const struct open_plan *p)
{
	if (!n->fs->res1.exists || cw_fs_key_before_write(n->run, ev->op.path, fd, &p->st, n->fs->open.flags))
		return true;
	if (!cw_fs_decide_secret_read(n, ev, "a file holding a private key, which capwatch cannot remember")) {
		close(fd);
		return false;
	}
	return true;
}

/* Step 4: a write. The decision was on this name. A file with hard
 * links made before the run, or one mounted over this name, has other
 * names we did not see: decided again, as the policy says for such
 * objects (a write outside the workspace). Then the late O_TRUNC and the
 * read-only reopen (open_file). The descriptor to install (FD or its
 * reopening), or -1 when answered (FD closed). */
static int finish_write(struct cw_notif *n, struct cw_event *ev, int fd, const struct open_plan *p)
{
	const struct stat *st = &p->st;
	if (!write_intent((long long)n->fs->open.flags))
		return fd;
	if (p->existing && S_ISDIR(st->st_mode)) {
		/* Swapped for a directory since resolved: O_CREAT says
		 * EISDIR. */
		open_failed(n, ev, fd, EISDIR);
		return -1;
	}
	/* A name that was missing when resolved had no mount over it before
	 * the run (the tree cannot mount): no statx pair. */
	if (cw_fs_foreign_hardlink(n->run->fs_state, st))
		ev->op.alias = "hard link";
	else if (S_ISREG(st->st_mode) && n->fs->res1.exists && file_is_mount_point(n->run->tree_root_fd, fd, ev->op.path))
		ev->op.alias = "mount";
	if (ev->op.alias && !cw_event_decide(n, ev)) {
		close(fd);
		cw_event_deny(n, ev);
		return -1;
	}
	if (!key_note_before_write(n, ev, fd, p))
		return -1;
	/* An empty file that was missing when resolved was just made (by
	 * this open, or within microseconds): nothing to cut, and its times
	 * are now already. */
	if (p->late_trunc && S_ISREG(st->st_mode) && (n->fs->res1.exists || st->st_size > 0)) {
		/* Through a read-write open reopened read-only: cut now (the
		 * descriptor installed cannot); else once it is installed, so
		 * that an open the kernel fails first (EMFILE) cuts nothing
		 * (e144; the answer's trunc_after). */
		if (p->reopen_rd && ftruncate(fd, 0) < 0) {
			open_failed(n, ev, fd, errno);
			return -1;
		}
	}
	if (p->reopen_rd) {
		/* The same object, with the access asked for. */
		char self[64];
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		int rfd = open(self, (int)(n->fs->open.flags & ~(unsigned long long)(O_TRUNC | O_CREAT | O_EXCL |
					O_NOFOLLOW | CW_O_TMPFILE_BIT)) | O_NOCTTY | O_CLOEXEC);
		int rerr = errno;
		close(fd);
		if (rfd < 0) {
			open_failed(n, ev, -1, rerr);
			return -1;
		}
		fd = rfd;
	}
	return fd;
}

static void enforce_open(struct cw_notif *n, struct cw_event *ev)
{
	const struct cw_fs_open *o = &n->fs->open;
	if (o->lexical) {
		answer_lexical(n, ev);
		return;
	}
	if (ev->enforced && o->emulable && !(o->flags & O_PATH) && strncmp(ev->op.path, "/dev/fd/", 8) == 0) {
		reopen_target_fd(n, ev, atoi(ev->op.path + 8));
		return;
	}
	if (ev->enforced == false || !o->emulable || ev->op.path[0] != '/' || (o->flags & O_PATH) ||
	    !emulable_object(ev->op.path, &n->fs->res1)) {
		/* --observe: see enforce_continue(). Devices, /proc, /sys,
		 * FIFOs, O_PATH and openat2 forms not emulated here:
		 * fs_special.c opens them itself (or says why not). */
		if (ev->enforced)
			cw_open_special(n, ev, o->flags, o->mode, o->emulable);
		else
			enforce_continue(n, ev);
		return;
	}
	int e = trailing_slash_errno(n, ev->op.path);
	if (e) {
		ev->verified = true;
		open_failed(n, ev, -1, e);
		return;
	}
	struct open_plan p;
	int fd = open_file(n, ev, &p);
	if (fd < 0 || !check_type(n, ev, fd, &p) || !decide_read_aliases(n, ev, fd, &p))
		return;
	fd = finish_write(n, ev, fd, &p);
	if (fd < 0)
		return;
	cw_fs_remember_long_name(n->run->fs_state, ev->op.path, &p.st);
	answer_with_fd(n, ev, fd);
	n->answer.trunc_after = write_intent((long long)o->flags) && p.late_trunc && !p.reopen_rd &&
				S_ISREG(p.st.st_mode) && (n->fs->res1.exists || p.st.st_size > 0);
	n->answer.undo_create = p.created;
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
 * (cw_has_dotdot()), or an object that is not a regular file or a
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
	if (cw_resolve_lexical(n->run->links, n->tid, n->fs->raw1, !(resolve & RESOLVE_NO_SYMLINKS), &n->fs->res1, full, sizeof(full)) < 0)
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
		else if ((errno == ENOENT || errno == ENOTDIR) && !cw_has_dotdot(full))
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
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR) && cw_has_dotdot(full))
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

/* Where an open's path is and how it is resolved (cw_handle_open). */
struct open_call {
	int patharg;
	int dirfd;
	long long flags;            /* as the kernel keeps them */
	unsigned long long resolve; /* openat2's resolve rules, 0 for the others */
};

/* openat2's struct open_how at args[2], args[3] bytes long, into HOW:
 * 0 or -errno to answer. */
static int read_open_how(struct cw_notif *n, struct open_how *how)
{
	uint64_t size = arg_u64(n, 3);
	if (size < sizeof(uint64_t) * 3)
		return -EINVAL;
	if (size > 4096)
		return -E2BIG; /* as copy_struct_from_user */
	/* Copy the whole struct once, as the kernel does, and decide on
	 * this copy only. A bigger struct is valid when its tail is
	 * zero (E2BIG otherwise); then it is the same request. */
	unsigned char buf[4096];
	int e = cw_mem_read(n->tid, arg_u64(n, 2), buf, (size_t)size);
	if (e < 0)
		return e;
	for (size_t i = sizeof(*how); i < size; i++)
		if (buf[i])
			return -E2BIG;
	memcpy(how, buf, sizeof(*how));
	return 0;
}

/* Decode the arguments of open, creat, openat or openat2 into C and the
 * scratch's open (flags, mode, emulable): 0 or -errno to answer. */
static int decode_open(struct cw_notif *n, struct open_call *c)
{
	struct cw_fs_open *o = &n->fs->open;
	int nr = n->req->data.nr;
	c->dirfd = AT_FDCWD;
	c->resolve = 0;
	switch (nr) {
	case __NR_open:
		c->patharg = 0;
		c->flags = arg_int(n, 1);
		o->mode = (uint32_t)arg_u64(n, 2);
		break;
	case __NR_creat:
		c->patharg = 0;
		c->flags = O_CREAT | O_WRONLY | O_TRUNC;
		o->mode = (uint32_t)arg_u64(n, 1);
		break;
	case __NR_openat:
		c->dirfd = arg_int(n, 0);
		c->patharg = 1;
		c->flags = arg_int(n, 2);
		o->mode = (uint32_t)arg_u64(n, 3);
		break;
	case __NR_openat2: {
		struct open_how how;
		int e = read_open_how(n, &how);
		if (e < 0)
			return e;
		c->dirfd = arg_int(n, 0);
		c->patharg = 1;
		c->flags = (long long)how.flags;
		o->mode = how.mode;
		c->resolve = how.resolve;
		/* openat2 keeps its flags and resolve rules exactly; they are
		 * only emulated in the plain case. */
		o->flags = (unsigned long long)c->flags;
		/* Emulated with RESOLVE_NO_SYMLINKS|NO_MAGICLINKS on the
		 * resolved path, which is at least as strict as these. */
		/* (RESOLVE_NO_XDEV: the decided path is opened from "/", so
		 * mount crossings are not refused as the target asked; what
		 * is opened is still exactly what was decided on.) */
		o->emulable = !(c->resolve & ~(unsigned long long)(RESOLVE_IN_ROOT | RESOLVE_BENEATH |
						RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_CACHED |
						RESOLVE_NO_XDEV));
		return 0;
	}
	default:
		return -ENOSYS;
	}
	/* As the kernel does for open/openat: unknown bits dropped,
	 * the mode only with O_CREAT/O_TMPFILE, O_PATH keeps few. */
	c->flags &= CW_VALID_OPEN_FLAGS;
	if (!(c->flags & (O_CREAT | CW_O_TMPFILE_BIT)))
		o->mode = 0;
	o->mode &= 07777;
	o->flags = (unsigned long long)c->flags;
	o->emulable = true;
	return 0;
}

/* How the walk resolves the path of the open C. */
static int open_res_flags(const struct open_call *c)
{
	long long flags = c->flags;
	int rflags = 0;
	if ((flags & O_NOFOLLOW) || ((flags & O_CREAT) && (flags & O_EXCL)))
		rflags |= CW_RES_NOFOLLOW;
	if (!(flags & O_PATH) && ((flags & O_ACCMODE) == O_RDONLY || (flags & O_ACCMODE) == O_RDWR))
		rflags |= CW_RES_WANT_READ;
	if (write_intent(flags))
		rflags |= CW_RES_WANT_WRITE;
	if (c->resolve & RESOLVE_IN_ROOT)
		rflags |= CW_RES_IN_ROOT;
	if (c->resolve & RESOLVE_BENEATH)
		rflags |= CW_RES_BENEATH;
	if (c->resolve & RESOLVE_NO_SYMLINKS)
		rflags |= CW_RES_NO_SYMLINKS;
	return rflags;
}

/* What is answered before the decision: a privilege made for later
 * refused, or the ENOENT the kernel gives whatever the profile says. True
 * when answered (a lexical open's descriptor closed). */
static bool answered_early(struct cw_notif *n, struct cw_event *ev, long long flags)
{
	struct cw_fs_open *o = &n->fs->open;
	/* A file created with the setuid bit (or setgid) is a privilege for
	 * later, as a chmod that sets it (privilege_made). */
	if ((flags & O_CREAT) && (o->mode & (S_ISUID | S_ISGID)) &&
	    cw_fs_refuse_privilege(n, (o->mode & S_ISUID) ? "setuid bit" : "setgid bit")) {
		if (o->fd >= 0)
			close(steal_fd(&o->fd));
		return true;
	}
	/* An open without O_CREAT of a name that does not exist fails with
	 * ENOENT in the kernel whatever the profile says: answered so, with
	 * no denial (a library probing for .env, a write to a missing file). */
	if (!(flags & (O_CREAT | CW_O_TMPFILE_BIT)) && !n->fs->res1.exists && !n->run->observe && ev->op.path &&
	    ev->op.path[0] == '/') {
		if (!ev->decided)
			cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &ev->d);
		if (ev->d.verdict != CW_ALLOW) {
			cw_answer_error(n, ENOENT);
			if (o->fd >= 0)
				close(steal_fd(&o->fd));
			return true;
		}
		ev->decided = true;
	}
	return false;
}

/* A *.pem or *.key that holds no private key (a certificate) is not a
 * secret: capwatch reads it before deciding, and the open that follows
 * must find the same file (enforce_open). Under --observe too, so that
 * what it records as denied is what the profile would deny (issue 17
 * item 13: a CA bundle read is no would-be denial). */
static void note_key_free(struct cw_notif *n, struct cw_event *ev)
{
	struct cw_fs_open *o = &n->fs->open;
	if (ev->op.kind != CW_OP_OPEN_READ || !ev->op.path ||
	    !cw_path_secret_by_key_name(&n->run->ctx, ev->op.path))
		return;
	if (o->lexical) {
		struct stat kst;
		ev->op.key_free = o->fd >= 0 && fstat(o->fd, &kst) == 0 && S_ISREG(kst.st_mode) &&
				  kst.st_size <= (off_t)(4u << 20) && cw_keys_scan_fd(o->fd, 4u << 20) == 0 &&
				  !cw_secret_ids_key_held(n->run, kst.st_dev, kst.st_ino);
	} else {
		ev->op.key_free = cw_keys_free(ev->op.path, &o->key_dev, &o->key_ino) &&
				  !cw_secret_ids_key_held(n->run, o->key_dev, o->key_ino);
	}
}

void cw_handle_open(struct cw_notif *n)
{
	struct cw_event ev;
	struct open_call c = { 0 }; /* -O1 cannot see decode_open fill it before use */
	int nr = n->req->data.nr;

	cw_event_init(&ev, n->syscall);
	memset(&n->fs->open, 0, sizeof(n->fs->open));
	n->fs->open.fd = -1;
	size_t len = 0;
	int e = decode_open(n, &c);
	if (e == 0)
		e = cw_fs_read_path(n, c.patharg, n->fs->raw1, &len);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	bool wr = write_intent(c.flags);
	ev.raw_path = n->fs->raw1;
	ev.raw_path_len = len;
	ev.dirfd = c.dirfd;
	ev.has_dirfd = nr == __NR_openat || nr == __NR_openat2;
	ev.flags = c.flags;
	ev.has_flags = true;
	if (!open_lexically(n, &ev, c.dirfd, c.resolve)) {
		e = cw_resolve_path(n->run->links, n->tid, n->tgid, c.dirfd, n->fs->raw1, open_res_flags(&c), &n->fs->res1);
		if (e < 0) {
			answer_unreadable(n, -e);
			return;
		}
		ev.op.kind = wr ? CW_OP_OPEN_WRITE : CW_OP_OPEN_READ;
		ev.op.path = n->fs->res1.path;
		proc_file_target(n, &ev, wr);
	}
	if (answered_early(n, &ev, c.flags))
		return;
	note_key_free(n, &ev);
	cw_event_finish(n, &ev, prepare_open, enforce_open);
	if (n->fs->open.fd >= 0)
		close(steal_fd(&n->fs->open.fd)); /* not installed: the target went away */
	/* A secret by its name: remember what it is, so that another name
	 * of it reads as the secret too. */
	if (ev.d.secret && !ev.op.alias && ev.op.path && ev.op.path[0] == '/')
		cw_secret_ids_note(n->run, ev.op.path);
}
