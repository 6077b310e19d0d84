#ifndef CAPWATCH_RESOLVE_H
#define CAPWATCH_RESOLVE_H
/* Reading the target's memory and resolving its paths in its own context
 * (kernel-notes K16, K17). Everything here is advisory input to a decision:
 * the target can change its memory and the filesystem after we looked. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <linux/openat2.h>
#include "policy.h" /* CW_PATH_LONG_MAX */

/* Copy a NUL-terminated string of at most SIZE bytes (NUL included) from
 * ADDR in TID's memory, one page at a time. Returns its length, -EFAULT for
 * NULL or unreadable memory (never an empty string in its place),
 * -ENAMETOOLONG when no NUL is found within SIZE bytes, -ESRCH when the
 * thread is gone. */
ssize_t cw_mem_read_string(pid_t tid, uint64_t addr, char *buf, size_t size);

/* Copy exactly LEN bytes. Returns 0, -EFAULT or -ESRCH. */
int cw_mem_read(pid_t tid, uint64_t addr, void *buf, size_t len);

/* How to resolve the last component. */
#define CW_RES_NOFOLLOW   0x1 /* act on a final symlink itself */
#define CW_RES_EMPTY_PATH 0x2 /* "" names DIRFD itself (AT_EMPTY_PATH) */
#define CW_RES_WANT_READ  0x4 /* the op reads: for reopened /proc/PID/fd/N */
#define CW_RES_WANT_WRITE 0x8 /* the op writes: for reopened /proc/PID/fd/N */
/* openat2 resolve flags, as the kernel applies them: */
#define CW_RES_IN_ROOT     0x10 /* RESOLVE_IN_ROOT: DIRFD is "/" */
#define CW_RES_BENEATH     0x20 /* RESOLVE_BENEATH: no escape from DIRFD (EXDEV) */
#define CW_RES_NO_SYMLINKS 0x40 /* RESOLVE_NO_SYMLINKS: any symlink to follow is ELOOP */
#define CW_RES_NO_COVER    0x80 /* never name a reopened descriptor /dev/fd/N: the
				   op (chmod...) is not covered by the fd's access */

struct cw_resolved {
	char path[CW_PATH_LONG_MAX]; /* normalized absolute path, or "/dev/fd/N" for
			      an already-open object that grants nothing new; longer
			      than PATH_MAX under a cwd or dirfd that deep */
	bool exists;       /* the final object existed when we looked */
	bool is_symlink;   /* ... and was a symlink (NOFOLLOW) */
	unsigned mode;     /* its st_mode as seen by the walk, 0 = not known */
};

/* The first-component symlinks of a merged /usr ("/lib -> /usr/lib"),
 * read once per run (the run's `links`): cw_resolve_path() and, with
 * THROUGH_LINKS (false when the caller asked RESOLVE_NO_SYMLINKS),
 * cw_resolve_lexical() go through them without walking, each time after
 * one lstat() of the link proves it unchanged (resolve.c). NULL LINKS:
 * every name is walked. 0 or -ENOMEM. */
struct cw_resolve_links;
int cw_resolve_links_new(struct cw_resolve_links **out);
void cw_resolve_links_free(struct cw_resolve_links *links);
/* Their number; BUF gets them as text (for -vv). */
size_t cw_resolve_toplinks(const struct cw_resolve_links *links, char *buf, size_t size);

/* Resolve PATH as the kernel would for thread TID of process TGID: relative
 * to its cwd (DIRFD == AT_FDCWD) or to its descriptor DIRFD, through
 * symlinks in every component but the last (and the last too unless
 * CW_RES_NOFOLLOW), with ".." applied after symlink resolution and
 * "/proc/self", "/proc/thread-self" naming the target. A missing final part
 * is kept lexically (creations). Returns 0 or -errno the kernel would have
 * returned for an unusable base (EBADF, ENOTDIR, ENOENT for "", ELOOP,
 * ENAMETOOLONG) or for a component before the last that is missing
 * (ENOENT, "nodir/x", "nodir/.."), not a directory (ENOTDIR, "file/..")
 * or not to be looked at (the lstat's errno): the kernel fails there
 * whatever the call, so nothing is decided or done. */
int cw_resolve_path(struct cw_resolve_links *links, pid_t tid, pid_t tgid, int dirfd, const char *path,
		    int flags, struct cw_resolved *out);

/* The lexical shortcut for an open that capwatch emulates itself: PATH
 * (absolute, or relative to TID's cwd) joined to the cwd as written into
 * FULL (FULLSZ bytes), and normalized into OUT->path, without looking at
 * the filesystem. OUT->path is the resolved path exactly when no component
 * of FULL is a symlink (".." then applies lexically, as in the walk), which
 * the caller must prove before anything rests on it: with an openat2() of
 * FULL with RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS that does not
 * fail ELOOP (the kernel walks the target's very components, trailing
 * slash included) -- the open it acts through, or an O_PATH one when it
 * does not act itself (a denial, a CONTINUE). On ELOOP it must resolve
 * again with cw_resolve_path() and decide again. OUT->exists is true and
 * OUT->mode 0 (not looked at).
 * -ENOENT for "", -EAGAIN when the path needs the walk: a result under
 * /proc, /dev or /sys (magic names, devices), a FULL too long to open, a
 * cwd that cannot be read. */
int cw_resolve_lexical(struct cw_resolve_links *links, pid_t tid, const char *path, bool through_links,
		       struct cw_resolved *out, char *full, size_t fullsz);

/* Does PATH have a ".." component? Then its lexical name is the
 * kernel's only when every component before the ".." is a directory: an
 * ENOENT or ENOTDIR of an open may come from one that is not, and the
 * lexical name (".../nodir/../.env" as ".../.env") is one the kernel never
 * reached. The walk finds the errno and nothing is recorded under that
 * name. */
bool cw_has_dotdot(const char *path);

/* The object behind descriptor FD of TID, as a path (for fd-based metadata
 * calls). Pipes, sockets and other non-path objects yield "/dev/fd/FD". */
int cw_resolve_fd(pid_t tid, int fd, struct cw_resolved *out);

/* Paths longer than PATH_MAX (up to CW_PATH_LONG_MAX), as the kernel
 * takes none: capwatch acts on them relative to descriptors it opens
 * itself, in steps.
 *
 * cw_openat2_long: openat2(AT_FDCWD, PATH, HOW) for an absolute PATH of
 * any length. Shorter than PATH_MAX: that one call. Longer: the longest
 * leading part of fewer than PATH_MAX bytes that ends before a slash is
 * opened O_PATH|O_DIRECTORY with HOW's resolve flags, the next part
 * relative to it, and so on; the last part with HOW itself. Each step
 * keeps HOW's rules (RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS...) and,
 * when symlinks are refused, adds RESOLVE_BENEATH to the relative steps:
 * what is opened is exactly the name, component by component, as one
 * openat2 would have walked it. Returns the descriptor or -errno. */
int cw_openat2_long(const char *path, const struct open_how *how);
/* The same from ROOT taken as "/" (RESOLVE_IN_ROOT on its first step):
 * the file is reached through ROOT's mounts. ROOT < 0: as
 * cw_openat2_long. */
int cw_openat2_tree(int root, const char *path, const struct open_how *how);

/* The directory that holds the last component of the absolute PATH,
 * opened O_PATH|O_DIRECTORY as cw_openat2_long() does with the resolve
 * flags RESOLVE; BASE (BASESZ bytes) receives that last component.
 * -EINVAL for "/", a trailing slash, "." or ".." last. */
int cw_open_parent_long(const char *path, unsigned long long resolve, char *base, size_t basesz);

/* lstat() (FOLLOW false) or stat() of an absolute PATH of any length:
 * through the parent when longer than PATH_MAX (intermediate symlinks
 * followed, as lstat would; magic links not). 0 or -errno. */
int cw_stat_long(const char *path, struct stat *st, bool follow);

#endif
