#ifndef CAPWATCH_HANDLERS_COMMON_H
#define CAPWATCH_HANDLERS_COMMON_H
/* Helpers shared by the family handlers. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "supervisor/notify.h"
#include "supervisor/resolve.h"

/* Run FN(ARG) on a detached thread with a small (64 KiB) stack, for the
 * blocking work of an emulated operation: 0 or -errno. */
int cw_start_detached(void *(*fn)(void *), void *arg);

/* Read the small text file PATH (a /proc file) into BUF, NUL-terminated:
 * its length, -errno when it cannot be opened, -EIO when it reads
 * nothing. */
ssize_t cw_read_text(const char *path, char *buf, size_t size);

/* What /proc/TID/status says of a target thread; 0 or -errno (-ENOENT,
 * -ESRCH: the thread is gone). */
struct cw_target_status {
	pid_t tgid;
	pid_t ns_tgid;                /* its number in its own PID namespace (NStgid's last) */
	unsigned long uid[4], gid[4]; /* real, effective, saved, filesystem */
	uint64_t cap_eff;
	int umask;                    /* -1 when the kernel does not say */
};
int cw_target_status(pid_t tid, struct cw_target_status *st);
/* Its umask, for creations capwatch performs for it; or -errno. */
int cw_target_umask(pid_t tid);

/* Is PID (a process or thread id, in capwatch's pid namespace) the
 * caller itself or a member of the supervised tree? proc.c. */
bool cw_task_in_tree(const struct cw_notif *n, pid_t pid);
/* Is process group PGID (0: the caller's own) led by a member of the tree?
 * proc.c. */
bool cw_group_in_tree(const struct cw_notif *n, pid_t pgid);
/* The same for a pid or group an argument names (proc.c): the tree's own
 * PID namespace numbers it under CAPWATCH_KERNEL_READS (kernel.h). */
bool cw_task_named_in_tree(const struct cw_notif *n, pid_t pid);
bool cw_group_named_in_tree(const struct cw_notif *n, pid_t pgid);
/* Is the tree in a PID namespace of its own (CAPWATCH_KERNEL_READS), where
 * a number the kernel reads from a member names a member or the inert
 * init, never a process outside? */
bool cw_tree_own_pidns(const struct cw_notif *n);
/* Does anyone answer to the pid (negative: group) an argument names? */
bool cw_named_exists(const struct cw_notif *n, pid_t pid);
/* The pid behind the target's pidfd FD ("Pid:" in its fdinfo): -EBADF when
 * FD is not a pidfd, -1 when its process is gone, 0 when it is outside
 * capwatch's pid namespace. proc.c. */
int cw_pidfd_target(const struct cw_notif *n, int fd);

/* A pidfd of the notifying thread (of its process before Linux 6.9, which
 * has no thread pidfds), or -errno. target.c. */
int cw_target_pidfd(const struct cw_notif *n);
/* The target's descriptor FD duplicated into capwatch (pidfd_getfd of the
 * notifying thread): what it refers to can no longer be swapped by another
 * thread (kernel-notes E11). The descriptor or -errno. target.c. */
int cw_dup_target_fd(const struct cw_notif *n, int fd);

/* A metadata write on the object behind the target's descriptor FD,
 * whatever mode it was opened in (fchmod-like: ownership suffices). It is
 * decided exactly as fchmod(FD) is (workspace_write, protected_metadata,
 * or unrestricted outside every root, on the path of capwatch's own
 * duplicate) and, when allowed, performed by OP(N, DUP, ARG) on that
 * duplicate, whose result (0 or -errno) answers the notification. FLAGS is
 * recorded. fs.c. */
typedef int (*cw_fd_meta_fn)(struct cw_notif *n, int dupfd, void *arg);
void cw_fs_fd_meta(struct cw_notif *n, int fd, long long flags, cw_fd_meta_fn op, void *arg);

/* Arguments as the kernel will read them (K6): ints are the low 32 bits. */
static inline int arg_int(const struct cw_notif *n, int i)
{
	return (int)(uint32_t)n->req->data.args[i];
}
static inline uint64_t arg_u64(const struct cw_notif *n, int i)
{
	return n->req->data.args[i];
}

/* Answer a notification whose arguments could not be read or resolved
 * with the error the kernel would have given (fail closed: never CONTINUE
 * on bytes we do not have). ESRCH: the thread is gone, the answer is moot. */
static inline void answer_unreadable(struct cw_notif *n, int err)
{
	if (err == ESRCH)
		err = EPERM;
	cw_answer_error(n, err);
}

/* Let an allowed operation go ahead in the target itself.
 *
 * NOT SAFE against a concurrent rewrite: the kernel re-reads the path or
 * address from the target's memory after we answer, so another thread (or
 * a process sharing the page) can swap it between our check and the
 * kernel's use, and a symlink can be swapped on disk (kernel-notes K11).
 * The event is therefore recorded "verified": false.
 *
 * Where it is still used: in the network family only where nothing rests
 * on memory or the call cannot be emulated: --observe, sendto whose
 * address length is 0 (registers only), socket() (registers), and
 * netlink binds and sends (the kernel would take the port id from
 * capwatch's tgid; they are "unrestricted" and denied unless a profile
 * allows that). net.c performs connect, bind, listen and every
 * sendto/sendmsg/sendmmsg it is notified of (inet, inet6, unix pathname
 * pinned by inode, abstract, and no address at all) on a pidfd_getfd
 * duplicate, with its own copies of address, payload and control data.
 * Also exec (cannot be emulated; the exec
 * stop re-checks what the kernel loaded), signals (scalar arguments; only
 * pid reuse can race), and the file cases emulation leaves to the kernel:
 * --observe (it enforces nothing), O_PATH opens (ADDFD cannot pass them;
 * they give no access by themselves and every use that would is decided
 * on its object, a /proc/self/fd/N reopen included: the argument is in
 * fs_special.c), calls acting on a symlink itself, mknod
 * of a device (denied unless unrestricted). Every other open is performed
 * by capwatch: files in fs.c (ADDFD|SEND, reopened descriptors through a
 * duplicate), /proc, /sys, devices, FIFOs and sockets in fs_special.c (the
 * decided object opened O_PATH without following symlinks, checked, and
 * reopened through capwatch's own descriptor; /dev/tty as the target's
 * controlling terminal). Path-changing calls run on held directory fds,
 * metadata calls on held object fds (fs.c). */
static inline void enforce_continue(struct cw_notif *n, struct cw_event *ev)
{
	ev->verified = false;
	ev->err = 0;
	cw_answer_continue(n);
}

#endif
