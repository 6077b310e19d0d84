#ifndef CAPWATCH_FS_IMPL_H
#define CAPWATCH_FS_IMPL_H
/* What the parts of the file family share (handlers.h has their entry
 * points): the scratch of the notification being handled and the state
 * the family keeps for the run. */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/limits.h>
#include "supervisor/handlers/common.h"
#include "supervisor/resolve.h"

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
	/* op.alias texts: another name of a known secret (fs.c and
	 * fs_special.c), another session's terminal (fs_special.c). */
	char secret_alias[PATH_MAX + 64];
	char terminal_alias[PATH_MAX + 64];
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

#endif
