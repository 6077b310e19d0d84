/* The file family's metadata calls: chmod, chown, truncate, utimes and
 * xattrs on the decided object (an O_PATH descriptor of it), the same
 * through a descriptor (fchmod, fchown, futimens, fsetxattr... on
 * capwatch's duplicate of the target's), and the metadata writes other
 * families decide the same way (ioctl's FS_IOC_SETFLAGS: cw_fs_fd_meta).
 * fs_path.c decodes, resolves and decides them. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/kernel.h"
#include "supervisor/util.h"


/* ---- metadata by path: on the decided object ---- */

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
		return cw_dup_target_fd(n, atoi(path + 8));
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

/* The kernel lets only CAP_SYS_ADMIN set or remove trusted.* and
 * security.* attributes (security.capability: CAP_SETFCAP). capwatch
 * performs the call with its own capabilities, which can be more than
 * the command's (a command started by root gets Docker's default set,
 * without CAP_SYS_ADMIN: privs.c): -EPERM when the target lacks the one
 * the name needs, as the kernel would say to it. */
static int xattr_cap_check(struct cw_notif *n, const char *name)
{
	int cap;
	if (strncmp(name, "trusted.", 8) == 0)
		cap = CAP_SYS_ADMIN;
	else if (strcmp(name, "security.capability") == 0)
		cap = CAP_SETFCAP;
	else if (strncmp(name, "security.", 9) == 0)
		cap = CAP_SYS_ADMIN;
	else
		return 0;
	struct cw_target_status st;
	int e = cw_target_status(n->tid, &st);
	if (e < 0)
		return e;
	return st.cap_eff & (1ull << cap) ? 0 : -EPERM;
}

/* setxattr or removexattr on the object behind PROC (its magic link):
 * 0 or -errno. */
static int path_xattr(struct cw_notif *n, int nr, const char *proc)
{
	char name[XATTR_NAME_MAX + 1];
	ssize_t k = xattr_name(n, name);
	if (k < 0)
		return k == -ENAMETOOLONG ? -ERANGE : (int)k;
	int e = xattr_cap_check(n, name);
	if (e < 0)
		return e;
	if (nr == __NR_removexattr)
		return removexattr(proc, name) < 0 ? -errno : 0;
	uint64_t size = arg_u64(n, 3);
	if (size > XATTR_SIZE_MAX)
		return -E2BIG;
	_cleanup_free_ char *value = size ? malloc(size) : NULL;
	if (size && !value)
		return -ENOMEM;
	int r;
	if (size && (r = cw_mem_read(n->tid, arg_u64(n, 2), value, size)) < 0)
		return r;
	return setxattr(proc, name, value, size, arg_int(n, 4)) < 0 ? -errno : 0;
}

/* utime, utimes, utimensat, futimesat on the object OBJ: 0 or -errno. */
static int path_times(struct cw_notif *n, int nr, int obj, int at)
{
	struct timespec ts[2];
	bool now;
	uint64_t addr = arg_u64(n, nr == __NR_utime || nr == __NR_utimes ? 1 : 2);
	if (nr == __NR_utimensat && (at & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)))
		return -EINVAL;
	int r = read_times(n, nr, addr, ts, &now);
	if (r < 0)
		return r;
	return utimensat(obj, "", now ? NULL : ts, AT_EMPTY_PATH) < 0 ? -errno : 0;
}

/* chown, lchown, fchownat, chmod, fchmodat, fchmodat2, truncate,
 * setxattr, removexattr, utime, utimes, utimensat, futimesat on the
 * decided object PATH (its O_PATH descriptor, or for "/dev/fd/N"
 * capwatch's duplicate of the target's descriptor N); AT is the call's
 * AT_* flags. 0 or -errno for the answer, 1 when left to the kernel (the
 * object is a symlink itself). */
int cw_fs_object_op(struct cw_notif *n, const char *path, int at)
{
	int nr = n->req->data.nr;
	char proc[64];
	_cleanup_close_ int obj = -1;
	int r;

	if (nr == __NR_chown || nr == __NR_lchown || nr == __NR_fchownat) {
		int ua = nr == __NR_fchownat ? 2 : 1;
		if ((obj = get_object(n, path)) < 0)
			return obj;
		r = fchownat(obj, "", (uid_t)(uint32_t)arg_u64(n, ua), (gid_t)(uint32_t)arg_u64(n, ua + 1),
			     AT_EMPTY_PATH);
		return r < 0 ? -errno : 0;
	}
	struct stat st;
	if ((obj = get_object(n, path)) < 0)
		return obj;
	if (fstat(obj, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return 1; /* acting on a symlink itself: left to the kernel */
	/* The magic link pins the object we opened. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", obj);
	if (nr == __NR_chmod || nr == __NR_fchmodat || nr == __NR_fchmodat2)
		r = chmod(proc, (mode_t)(uint32_t)arg_u64(n, nr == __NR_chmod ? 1 : 2));
	else if (nr == __NR_truncate)
		r = truncate(proc, (off_t)arg_u64(n, 1));
	else if (nr == __NR_setxattr || nr == __NR_removexattr)
		return path_xattr(n, nr, proc);
	else
		return path_times(n, nr, obj, at);
	return r < 0 ? -errno : 0;
}
/* ---- metadata through a descriptor: emulated on a duplicate ---- */

/* The target's descriptor is duplicated into capwatch
 * (cw_dup_target_fd, into cw_fs_scratch.fd): what it refers to can no
 * longer be swapped by another thread's dup2 between the decision and the
 * operation (kernel-notes E11, K19). */

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
		if ((r = xattr_cap_check(n, name)) < 0)
			return r;
		r = fremovexattr(n->fs->fd, name);
		break;
	case __NR_fsetxattr: {
		uint64_t size = arg_u64(n, 3);
		k = xattr_name(n, name);
		if (k < 0)
			return k == -ENAMETOOLONG ? -ERANGE : (int)k;
		if ((r = xattr_cap_check(n, name)) < 0)
			return r;
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
		_cleanup_close_ int p2 = cw_fs_open_parent(n->fs->res2.path, b2, sizeof(b2));
		if (p2 < 0)
			return p2;
		r = linkat(n->fs->fd, "", p2, b2, AT_EMPTY_PATH);
		cw_kernel_names_changed(n->run); /* a name for a marked inode */
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
void cw_fs_enforce_fd_op(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced) {
		enforce_continue(n, ev); /* --observe */
		return;
	}
	ev->verified = true;
	int r = do_fd_op(n);
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

/* ---- metadata writes that are not system calls of their own (ioctl's
 * FS_IOC_SETFLAGS and friends): decided like fchmod, performed by the
 * caller's OP on the same duplicate ---- */

static void prepare_meta(struct cw_notif *n, struct cw_event *ev)
{
	cw_fs_note_change(n, ev, CW_CHANGE_WRITE);
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
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

void cw_fs_fd_meta(struct cw_notif *n, int fd, long long flags, cw_fd_meta_fn op, void *arg)
{
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_FS_WRITE;
	/* As for fchmod(fd): the object is named by capwatch's duplicate,
	 * taken once; the decision and the operation both use it. */
	int e = n->fs->fd = cw_dup_target_fd(n, fd);
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
