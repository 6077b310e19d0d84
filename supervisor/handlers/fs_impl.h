#ifndef CAPWATCH_FS_IMPL_H
#define CAPWATCH_FS_IMPL_H
/* What the parts of the file family share (handlers.h has their entry
 * points): fs.c (the family's state, what it remembers for the run, the
 * helpers of every part), fs_open.c (opens), fs_special.c (opens of
 * what is not a plain file), fs_path.c (the path-mutating calls: their
 * dispatch; unlink, rename, link, mkdir, symlink...), fs_meta.c
 * (metadata, by path or descriptor). */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/limits.h>
#include "supervisor/handlers/common.h"
#include "supervisor/state.h"
#include "supervisor/changes.h" /* enum cw_change_kind */
#include "supervisor/resolve.h"

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

/* What enforce_open needs beyond the event: set by cw_handle_open. */
struct cw_fs_open {
	unsigned long long flags; /* as the kernel will see them */
	unsigned long long mode;
	bool emulable;            /* openat2 with resolve flags or a bigger struct: no */
	bool lexical;             /* opened by open_lexically(): FD or OPEN_ERR is the result */
	int fd;                   /* ... its descriptor, -1 when none */
	int open_err;             /* ... its errno when FD is -1 */
	dev_t key_dev;            /* op.key_free: the file read whole (keys.h) */
	ino_t key_ino;
};

/* The scratch of one notification (cw_notif.fs): what a handler read,
 * resolved and decided on, which its enforcement and the event's record
 * use after it. The event points into it (raw paths, resolved paths,
 * op.alias texts) until it is recorded; approval.c copies what it keeps
 * of a deferred one. One per run (cw_fs_state), reused by every
 * notification: they are handled one at a time, under the loop lock
 * (notify.h). */
struct cw_fs_scratch {
	char raw1[PATH_MAX], raw2[PATH_MAX]; /* the paths as the target wrote them */
	struct cw_resolved res1, res2;       /* ... and as resolved */
	struct cw_fs_open open;
	/* The xattr name of the current setxattr/fsetxattr, read once at the
	 * decision (privilege_made) and used by the call capwatch performs,
	 * so that a name rewritten in between changes nothing: XATTR_READ
	 * says it was read, XATTR_LEN is its length or the read's -errno,
	 * which the performed call then answers (a name that could not be
	 * read at the decision must not be read again at the call). */
	char xattr[XATTR_NAME_MAX + 1];
	ssize_t xattr_len;
	bool xattr_read;
	/* The target's descriptor, duplicated into capwatch (pidfd_getfd):
	 * what it refers to can no longer be swapped by another thread's
	 * dup2 between the decision and the operation (kernel-notes E11,
	 * K19). -1 between notifications. */
	int fd;
	cw_fd_meta_fn meta_op;               /* cw_fs_fd_meta's operation and its argument */
	void *meta_arg;
	/* op.alias texts: another name of a known secret (fs_open.c, or
	 * fs_special.c for the opens fs_open.c hands it before its own
	 * check: one of them per open), another session's terminal
	 * (fs_special.c). */
	char secret_alias[PATH_MAX + 64];
	char terminal_alias[PATH_MAX + 64];
	/* op.secret_src, op.secret_dst: the names of a home's secret places
	 * that a rename's ends are through a symbolic link (fs_path.c, e158) */
	char secret_src[PATH_MAX];
	char secret_dst[PATH_MAX];
};

/* Hard links made during the run (both names were decided writable). */
struct cw_fs_linked {
	dev_t dev;
	ino_t ino;
};

/* Files deeper than PATH_MAX that capwatch opened for the tree (fs.c). */
#define CW_FS_LONG_NAMES 32
struct cw_fs_long_name {
	dev_t dev;
	ino_t ino;
	char *name;
};

/* Ptys the tree made (fs_special.c). */
#define CW_FS_TREE_PTYS_MAX 256
struct cw_fs_tree_pty {
	int fd;
	struct stat st;
};

/* The family's state for the run (run->fs_state): cw_fs_init() makes it,
 * cw_fs_free() frees it. */
struct cw_fs_state {
	struct cw_fs_scratch scratch;
	struct cw_fs_linked *linked;         /* owned */
	size_t nlinked, caplinked;
	struct cw_fs_long_name long_names[CW_FS_LONG_NAMES]; /* names owned */
	size_t long_next;
	struct cw_fs_tree_pty tree_ptys[CW_FS_TREE_PTYS_MAX]; /* descriptors owned */
	size_t ntree_ptys;
	uid_t euid;                          /* capwatch's, read once; -1 before */
};

/* ---- fs.c ---- */

/* Before an allowed write goes ahead: remember the state of what EV
 * touches (outcome.changes is computed from it at the end). */
void cw_fs_note_change(struct cw_notif *n, const struct cw_event *ev, enum cw_change_kind kind);
/* Read the path at argument ARG into BUF (PATH_MAX), its length in *LEN;
 * 0 or -errno. NULL is EFAULT. */
int cw_fs_read_path(struct cw_notif *n, int arg, char *buf, size_t *len);
/* link(PATH, ...) is about to be performed: its source (followed when
 * FOLLOW) gets a name the tree made, not a foreign one. */
void cw_fs_remember_link_source(struct cw_fs_state *fs, const char *path, bool follow);
/* ST has a name capwatch did not see decided (a hard link made before the
 * run): a write through this one changes that file too (E14). */
bool cw_fs_foreign_hardlink(const struct cw_fs_state *fs, const struct stat *st);
/* A file deeper than PATH_MAX opened by PATH (ST): remembered, so that a
 * metadata call on its descriptor can be decided on that name; the name
 * of the file open on FD, or NULL. */
void cw_fs_remember_long_name(struct cw_fs_state *fs, const char *path, const struct stat *st);
const char *cw_fs_long_name_of(struct cw_fs_state *fs, int fd);
/* Refuse (or let the usual decision go on with) a privilege made for
 * later, WHAT ("setuid bit"): decided as that escape, recorded. True when
 * answered. */
bool cw_fs_refuse_privilege(struct cw_notif *n, const char *what);

/* ---- fs_path.c ---- */

/* The parent directory of the decided PATH, opened without following any
 * symlink, its last component copied to BASE: the descriptor or -errno. */
int cw_fs_open_parent(const char *path, char *base, size_t basesz);

/* EV decided again as a read of a secret, ALIAS saying what makes the
 * object one (a known secret's inode, a private key...). False when
 * denied (answered; the caller closes what it opened). Allowed, the op
 * is the call's again when it writes, decided as a write after this. */
bool cw_fs_decide_secret_read(struct cw_notif *n, struct cw_event *ev, const char *alias);

/* Secrets by content (keys.h) of a file capwatch opened for the tree,
 * FD any descriptor of it (O_PATH too), named PATH: the alias it is read
 * as ("a file holding a private key", or one that held one when the tree
 * opened it to write), or NULL. */
const char *cw_fs_key_alias(struct cw_run *run, const char *path, int fd, const struct stat *st);
/* Before the tree writes to the file FD (FLAGS: the open's): a file
 * holding a private key is remembered as a secret for the run
 * (cw_secret_ids_key_note, red team e167). False when it holds one and
 * cannot be remembered: the caller fails closed. */
bool cw_fs_key_before_write(struct cw_run *run, const char *path, int fd, const struct stat *st,
			    unsigned long long flags);

/* ---- fs_meta.c ---- */

/* A metadata call by path on the decided object PATH, AT its AT_* flags:
 * 0 or -errno for the answer, 1 when left to the kernel. */
int cw_fs_object_op(struct cw_notif *n, const char *path, int at);
/* Enforce an allowed metadata call through a descriptor on the scratch's
 * duplicate of it (cw_fs_scratch.fd) and answer. */
void cw_fs_enforce_fd_op(struct cw_notif *n, struct cw_event *ev);

#endif
