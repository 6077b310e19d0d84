/* The file family: what its parts share. The family is decode -> resolve
 * -> decide -> enforce for opens (fs_open.c: open, openat, openat2,
 * creat; fs_special.c: /proc, /sys, devices, FIFOs, O_PATH), the calls
 * that change names (fs_path.c: unlink, rename, link, mkdir, symlink...)
 * and those that change metadata (fs_meta.c: chmod, chown, truncate,
 * utimes, xattrs, by path or descriptor). Here: the family's state for
 * the run and the scratch of the notification being handled (fs_impl.h),
 * what it remembers across notifications (hard links made, names deeper
 * than PATH_MAX), and the helpers every part uses. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/state.h"
#include "supervisor/changes.h"
#include "path.h"

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

/* ---- what every part uses ---- */

static bool in_workspace(struct cw_notif *n, const char *path)
{
	cw_path_class c = cw_path_classify(&n->run->ctx, path);
	return c == CW_PATH_WORKSPACE || c == CW_PATH_PROTECTED;
}

/* Before an allowed write goes ahead: remember the state of what it
 * touches (outcome.changes is computed from it at the end). */
void cw_fs_note_change(struct cw_notif *n, const struct cw_event *ev, enum cw_change_kind kind)
{
	if (kind == CW_CHANGE_RENAME) {
		if (in_workspace(n, ev->op.path) || in_workspace(n, ev->op.path2))
			cw_changes_add(n->run, kind, ev->op.path, ev->op.path2);
	} else if (ev->op.kind == CW_OP_RENAME) {
		/* link: only the new name is created. */
		if (in_workspace(n, ev->op.path2))
			cw_changes_add(n->run, kind, ev->op.path2, NULL);
	} else if (in_workspace(n, ev->op.path)) {
		cw_changes_add(n->run, kind, ev->op.path, NULL);
	}
}

/* ---- what the family remembers for the run ---- */

/* Hard links made during the run (both names were decided writable). A
 * file with more than one name that is not among them may have a name
 * outside the workspace: writing it through the workspace name would
 * change that file too (kernel-notes E14). */
void cw_fs_remember_link_source(struct cw_fs_state *fs, const char *path, bool follow)
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
void cw_fs_remember_long_name(struct cw_fs_state *fs, const char *path, const struct stat *st)
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

const char *cw_fs_long_name_of(struct cw_fs_state *fs, int fd)
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

const char *cw_fs_long_name(struct cw_run *run, int fd)
{
	return run->fs_state ? cw_fs_long_name_of(run->fs_state, fd) : NULL;
}

bool cw_fs_foreign_hardlink(const struct cw_fs_state *fs, const struct stat *st)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink <= 1)
		return false;
	for (size_t i = 0; i < fs->nlinked; i++)
		if (fs->linked[i].dev == st->st_dev && fs->linked[i].ino == st->st_ino)
			return false;
	return true;
}

/* Read the path at ARG into BUF; -errno on failure. NULL is EFAULT. */
int cw_fs_read_path(struct cw_notif *n, int arg, char *buf, size_t *len)
{
	ssize_t r = cw_mem_read_string(n->tid, arg_u64(n, arg), buf, PATH_MAX);
	if (r < 0)
		return (int)r;
	*len = (size_t)r;
	return 0;
}

/* Refuse (or, under a profile that grants unrestricted, let the usual
 * decision go on with) a privilege made for later: decided as the escape
 * WHAT (unrestricted, scope WHAT), recorded. True when answered. */
bool cw_fs_refuse_privilege(struct cw_notif *n, const char *what)
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
