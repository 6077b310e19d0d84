/* The file family's calls that change names: unlink, rmdir, rename, link,
 * symlink, mkdir, mknod, and the dispatch of every path-mutating call
 * (the layout table below), metadata calls included, which fs_meta.c
 * performs. decode -> resolve -> decide -> enforce. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/state.h"
#include "supervisor/kernel.h"
#include "supervisor/changes.h"
#include "supervisor/record.h"
#include "supervisor/secret_ids.h"
#include "supervisor/util.h"
#include "path.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

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

static void prepare_fs(struct cw_notif *n, struct cw_event *ev)
{
	int nr = n->req->data.nr;
	cw_fs_note_change(n, ev, fs_change_kind(nr));
	/* A name of a known secret goes away (unlink, or a rename over it;
	 * RENAME_EXCHANGE keeps both names). */
	if (nr == __NR_unlink || nr == __NR_unlinkat)
		cw_secret_ids_unlinking(n->run, ev->op.path);
	else if ((nr == __NR_rename || nr == __NR_renameat || nr == __NR_renameat2) && !ev->op.exchange)
		cw_secret_ids_unlinking(n->run, ev->op.path2);
	if (nr == __NR_link || nr == __NR_linkat)
		cw_fs_remember_link_source(n->run->fs_state, ev->op.path, nr == __NR_linkat && (arg_int(n, 4) & AT_SYMLINK_FOLLOW));
}

/* ---- path-changing calls: emulated on directory fds held by capwatch ---- */

/* Open the parent directory of the decided path PATH without following
 * any symlink (one swapped in after the decision makes this fail with
 * ELOOP), and copy the last component to BASE. */
int cw_fs_open_parent(const char *path, char *base, size_t basesz)
{
	/* Deeper than PATH_MAX too: in steps, each without symlinks. */
	return cw_open_parent_long(path, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, base, basesz);
}

/* A trailing slash asks for a directory (the normalized path lost it):
 * what the kernel would answer for anything else (unlink("f/") is
 * ENOTDIR), 0 when the call goes on. */
static int trailing_slash_errno(struct cw_notif *n, const struct cw_event *ev, const struct layout *l)
{
	int nr = n->req->data.nr;
	int unlink_flags = nr == __NR_unlinkat ? arg_int(n, 2) : 0;
	struct stat ts1;
	size_t rl = strlen(n->fs->raw1);
	bool slash1 = rl > 1 && n->fs->raw1[rl - 1] == '/';
	bool exists1 = cw_stat_long(ev->op.path, &ts1, false) == 0;
	if (slash1) {
		if (exists1 && !S_ISDIR(ts1.st_mode))
			return ENOTDIR;
		if (exists1 && (nr == __NR_unlink || (nr == __NR_unlinkat && !(unlink_flags & AT_REMOVEDIR))))
			return EISDIR;
		if (!exists1 && nr != __NR_mkdir && nr != __NR_mkdirat)
			return ENOENT;
	}
	if (l->path2 >= 0) {
		size_t rl2 = strlen(n->fs->raw2);
		struct stat ts2;
		if (rl2 > 1 && n->fs->raw2[rl2 - 1] == '/') {
			bool exists2 = cw_stat_long(ev->op.path2, &ts2, false) == 0;
			if (exists2 && !S_ISDIR(ts2.st_mode))
				return ENOTDIR;
			/* A new name "x/" only for a directory being renamed. */
			if (!exists2 && !(exists1 && S_ISDIR(ts1.st_mode) && l->change == CW_CHANGE_RENAME))
				return exists1 ? ENOTDIR : ENOENT;
		}
	}
	return 0;
}

/* mkdir, mkdirat, mknod, mknodat (of a file, FIFO or socket) in the
 * parent directory of the decided path, with the target's umask. 0 or
 * -errno, 1 when left to the kernel (its umask is not known). */
static int make_node(struct cw_notif *n, const struct cw_event *ev, int nr)
{
	char b1[NAME_MAX + 1];
	bool md = nr == __NR_mkdir || nr == __NR_mkdirat;
	bool at_form = nr == __NR_mkdirat || nr == __NR_mknodat;
	mode_t mode = (mode_t)(uint32_t)arg_u64(n, at_form ? 2 : 1);
	if (!md && !S_ISREG(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode) && (mode & S_IFMT))
		return -EPERM; /* devices never get here (cw_handle_fs) */
	int um = cw_target_umask(n->tid);
	if (um < 0)
		return 1;
	_cleanup_close_ int p1 = cw_fs_open_parent(ev->op.path, b1, sizeof(b1));
	if (p1 < 0)
		return p1;
	mode_t saved = umask((mode_t)um);
	int r = md ? mkdirat(p1, b1, mode) : mknodat(p1, b1, mode, (dev_t)arg_u64(n, at_form ? 3 : 2));
	int e = errno;
	umask(saved);
	return r < 0 ? -e : 0;
}

/* Perform the decided operation. Returns 0 or -errno for the answer, or
 * 1 when this case is left to the kernel (CONTINUE). */
static int do_path_op(struct cw_notif *n, const struct cw_event *ev)
{
	int nr = n->req->data.nr;
	const struct layout *l = &layouts[nr];
	char b1[NAME_MAX + 1], b2[NAME_MAX + 1];
	_cleanup_close_ int p1 = -1;
	_cleanup_close_ int p2 = -1;
	int r, at = l->flags >= 0 ? arg_int(n, l->flags) : 0;

	int e = trailing_slash_errno(n, ev, l);
	if (e)
		return -e;
	switch (nr) {
	case __NR_unlink:
	case __NR_unlinkat:
	case __NR_rmdir:
		if ((p1 = cw_fs_open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		r = unlinkat(p1, b1, nr == __NR_rmdir ? AT_REMOVEDIR : nr == __NR_unlinkat ? arg_int(n, 2) : 0);
		break;
	case __NR_mkdir:
	case __NR_mkdirat:
	case __NR_mknod:
	case __NR_mknodat:
		return make_node(n, ev, nr);
	case __NR_rename:
	case __NR_renameat:
	case __NR_renameat2:
	case __NR_link:
	case __NR_linkat:
		if ((p1 = cw_fs_open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		if ((p2 = cw_fs_open_parent(ev->op.path2, b2, sizeof(b2))) < 0)
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
		if ((p1 = cw_fs_open_parent(ev->op.path, b1, sizeof(b1))) < 0)
			return p1;
		r = symlinkat(n->fs->raw2, p1, b1);
		break;
	case __NR_chown:
	case __NR_lchown:
	case __NR_fchownat:
	case __NR_chmod:
	case __NR_fchmodat:
	case __NR_fchmodat2:
	case __NR_truncate:
	case __NR_setxattr:
	case __NR_removexattr:
	case __NR_utime:
	case __NR_utimes:
	case __NR_utimensat:
	case __NR_futimesat:
		return cw_fs_object_op(n, ev->op.path, at); /* fs_meta.c */
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
/* A new name for an object (rename, link): under CAPWATCH_KERNEL_READS,
 * reads the kernel passes without a decision are decided again (kernel.h),
 * the new name may be a secret's. */
static void names_changed(struct cw_notif *n)
{
	switch (n->req->data.nr) {
	case __NR_rename:
	case __NR_renameat:
	case __NR_renameat2:
	case __NR_link:
	case __NR_linkat:
		cw_kernel_names_changed(n->run);
		break;
	default:
		break;
	}
}

static void enforce_fs(struct cw_notif *n, struct cw_event *ev)
{
	const char *p = ev->op.path;
	names_changed(n); /* before (--observe: the kernel renames) ... */
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
	names_changed(n); /* ... and after: nothing marked in between stays */
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
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

/* How the walk resolves the first path of a call of layout L whose AT_*
 * flags are AT_FLAGS. */
static int fs_res_flags(const struct layout *l, int at_flags)
{
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
	return rflags;
}

/* mknod of a device node is access to whatever it names (a disk, a loop
 * device of a file outside): unrestricted, decided on the mode register.
 * True when it was one (decided and answered). */
static bool device_node(struct cw_notif *n, struct cw_event *ev, int nr)
{
	if (nr != __NR_mknod && nr != __NR_mknodat)
		return false;
	mode_t m = (mode_t)(uint32_t)arg_u64(n, nr == __NR_mknodat ? 2 : 1);
	if (!S_ISCHR(m) && !S_ISBLK(m))
		return false;
	ev->op.kind = CW_OP_ESCAPE_SYSCALL;
	ev->flags = m;
	ev->has_flags = true;
	cw_event_finish(n, ev, NULL, enforce_continue);
	return true;
}

/* Step 1: the first path, read into raw1 (*LEN bytes) and resolved into
 * res1, or, for a call on a descriptor itself (*FD_OP), capwatch's
 * duplicate of it in the scratch's fd and its path in res1. 0 or
 * -errno. */
static int read_first(struct cw_notif *n, const struct layout *l, int dirfd, int at_flags, size_t *len,
		      bool *fd_op)
{
	struct cw_fs_scratch *s = n->fs;
	int e;
	*fd_op = l->path < 0 || (l->null_path_is_fd && arg_u64(n, l->path) == 0);
	if (!*fd_op && (at_flags & AT_EMPTY_PATH)) {
		/* fchownat(fd, "", ..., AT_EMPTY_PATH) and friends: the
		 * descriptor itself when the path is empty. */
		e = cw_fs_read_path(n, l->path, s->raw1, len);
		if (e < 0)
			return e;
		*fd_op = *len == 0;
	}
	if (!*fd_op) {
		e = *len ? 0 : cw_fs_read_path(n, l->path, s->raw1, len);
		return e < 0 ? e : cw_resolve_path(n->run->links, n->tid, n->tgid, dirfd, s->raw1, fs_res_flags(l, at_flags), &s->res1);
	}
	/* fchmod(fd), utimensat(fd, NULL, ...): the descriptor itself,
	 * named by capwatch's own duplicate of it. */
	e = s->fd = cw_dup_target_fd(n, dirfd);
	if (e >= 0) {
		e = cw_resolve_fd(getpid(), s->fd, &s->res1);
		const char *ln = e == -ENAMETOOLONG ? cw_fs_long_name_of(n->run->fs_state, s->fd) : NULL;
		if (ln) {
			/* Deeper than PATH_MAX: the name capwatch opened it by. */
			strcpy(s->res1.path, ln);
			e = 0;
		}
		if (e == 0 && strncmp(s->res1.path, "/dev/fd/", 8) == 0)
			snprintf(s->res1.path, sizeof(s->res1.path), "/dev/fd/%d", dirfd);
	}
	s->raw1[0] = '\0';
	return e;
}

/* Step 2: the second path (rename, link: read into raw2, resolved into
 * res2) or symlink's text (raw2), into EV. 0 or -errno. */
static int read_second(struct cw_notif *n, const struct layout *l, struct cw_event *ev)
{
	struct cw_fs_scratch *s = n->fs;
	size_t len2 = 0;
	int e;
	if (l->path2 >= 0) {
		int dirfd2 = l->dirfd2 >= 0 ? arg_int(n, l->dirfd2) : AT_FDCWD;
		e = cw_fs_read_path(n, l->path2, s->raw2, &len2);
		if (e == 0)
			e = cw_resolve_path(n->run->links, n->tid, n->tgid, dirfd2, s->raw2, CW_RES_NOFOLLOW | CW_RES_WANT_WRITE, &s->res2);
		if (e < 0)
			return e;
		ev->op.path2 = s->res2.path;
	} else if (l->target >= 0) {
		/* symlink: the text is stored as is; what it points to is
		 * decided when something opens through it. */
		e = cw_fs_read_path(n, l->target, s->raw2, &len2);
		if (e < 0)
			return e;
		ev->op.path2 = s->raw2;
	} else {
		return 0;
	}
	ev->raw_path2 = s->raw2;
	ev->raw_path2_len = len2;
	return 0;
}

/* Step 3, before the decision: what the kernel answers whatever the
 * profile says, and a privilege made for later refused. True when
 * answered. */
static bool answered_early(struct cw_notif *n, struct cw_event *ev, const struct layout *l, bool fd_op)
{
	int nr = n->req->data.nr;
	/* A rename or link decided as a secret read: remember the secret
	 * (before it moves, when it does). */
	if (ev->op.kind == CW_OP_RENAME && !fd_op && cw_path_is_secret(&n->run->ctx, ev->op.path))
		cw_secret_ids_note(n->run, ev->op.path);
	/* A home's secret place reached through a symbolic link keeps the
	 * name the policy knows it by (e158). */
	if (ev->op.kind == CW_OP_RENAME && !fd_op && ev->op.path && ev->op.path[0] == '/') {
		char *src = n->fs->secret_src, *dst = n->fs->secret_dst;
		ev->op.secret_src = cw_secret_ids_linked_moved(n->run, ev->op.path, src, sizeof(n->fs->secret_src));
		if (ev->op.secret_src)
			cw_secret_ids_note(n->run, ev->op.path);
		if (ev->op.exchange && ev->op.path2 && ev->op.path2[0] == '/')
			ev->op.secret_dst = cw_secret_ids_linked_moved(n->run, ev->op.path2, dst, sizeof(n->fs->secret_dst));
	}
	/* A link made from a descriptor (linkat(fd, "", ..., AT_EMPTY_PATH)):
	 * the file it is open on, by what it is (a known secret's inode) or
	 * by the name it was opened under, is what gets a new name (red team
	 * e161: an O_WRONLY descriptor of ~/.aws -> dotfiles/aws's
	 * credentials linked into the workspace, then read as a plain file).
	 * The descriptor is capwatch's own copy: the file cannot change under
	 * it. */
	if (ev->op.kind == CW_OP_RENAME && fd_op) {
		struct stat fs;
		const char *known = fstat(n->fs->fd, &fs) == 0 && S_ISREG(fs.st_mode)
				    ? cw_secret_ids_find_any(n->run, &fs) : NULL;
		char *src = n->fs->secret_src;
		if (known && (size_t)snprintf(src, sizeof(n->fs->secret_src), "%s", known) < sizeof(n->fs->secret_src))
			ev->op.secret_src = src;
		else if (ev->op.path && ev->op.path[0] == '/')
			ev->op.secret_src = cw_secret_ids_linked_moved(n->run, ev->op.path, src, sizeof(n->fs->secret_src));
	}
	/* A path ending in "." or "..": what the kernel says, nothing done. */
	if (!fd_op && !n->run->observe) {
		int de = dot_path_errno(n, nr, l);
		if (de) {
			cw_answer_error(n, de);
			return true;
		}
	}
	/* The setuid bit, file capabilities...: a privilege for later. */
	struct stat fst;
	mode_t om = fd_op ? (fstat(n->fs->fd, &fst) == 0 ? fst.st_mode : 0) : (mode_t)n->fs->res1.mode;
	const char *what = privilege_made(n, nr, om);
	if (what && cw_fs_refuse_privilege(n, what))
		return true;
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
		cw_policy_decide(n->run->profile, &n->run->ctx, &ev->op, &ev->d);
		if (ev->d.verdict != CW_ALLOW) {
			cw_answer_error(n, kernel_err);
			return true;
		}
		ev->decided = true; /* cw_event_decide uses it */
	}
	return false;
}

void cw_handle_fs(struct cw_notif *n)
{
	int nr = n->req->data.nr;
	if (nr < 0 || (size_t)nr >= CW_ARRAY_SIZE(layouts) || layouts[nr].kind == 0) {
		/* kind 0 is OPEN_READ: no row here uses it. */
		cw_answer_error(n, ENOSYS);
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
	if (device_node(n, &ev, nr))
		return;

	int at_flags = l->flags >= 0 ? arg_int(n, l->flags) : 0;
	int dirfd = l->dirfd >= 0 ? arg_int(n, l->dirfd) : AT_FDCWD;
	size_t len = 0;
	bool fd_op;
	int e = read_first(n, l, dirfd, at_flags, &len, &fd_op);
	if (e == 0) {
		ev.op.path = n->fs->res1.path;
		ev.raw_path = n->fs->raw1;
		ev.raw_path_len = len;
		ev.dirfd = dirfd;
		ev.has_dirfd = l->dirfd >= 0;
		if (l->flags >= 0) {
			ev.flags = at_flags;
			ev.has_flags = true;
		} else if (nr == __NR_unlinkat) {
			/* For the record only (AT_REMOVEDIR: a directory's
			 * removal, not an unlink); do_path_op passes them to
			 * the kernel. */
			ev.flags = arg_int(n, 2);
			ev.has_flags = true;
		}
		e = read_second(n, l, &ev);
	}
	if (e < 0)
		answer_unreadable(n, -e);
	else if (!answered_early(n, &ev, l, fd_op))
		cw_event_finish(n, &ev, prepare_fs, fd_op ? cw_fs_enforce_fd_op : enforce_fs);
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
	int e = cw_fs_read_path(n, 1, n->fs->raw1, &len);
	if (e == 0)
		e = cw_resolve_path(n->run->links, n->tid, n->tgid, dirfd, n->fs->raw1,
				    (flags & AT_SYMLINK_FOLLOW ? 0 : CW_RES_NOFOLLOW) |
				    (flags & AT_EMPTY_PATH ? CW_RES_EMPTY_PATH : 0), &n->fs->res1);
	if (e < 0) {
		answer_unreadable(n, -e);
		return;
	}
	cw_answer_continue(n);
	cw_record_note(n->run, n->tgid, "info", "%s(%s): a file handle, recorded only", n->syscall, n->fs->res1.path);
}
