/* ioctl, decided by what its command does (issue 14 item 4). The filter
 * notifies only the commands of the ioctl row's set (their low 32 bits:
 * the kernel's cmd is an unsigned int, K6); every other command runs
 * without a notification, its capability having been decided when the
 * descriptor was obtained.
 *
 *  - TIOCSTI, TIOCLINUX (paste, console control), TIOCCONS (redirects the
 *    console), TIOCSETD (line disciplines: kernel attack surface): input to
 *    the user's shell or the machine's console after we exit: unrestricted,
 *    recorded and decided exactly as TIOCSTI always was (cw_handle_escape).
 *  - FIOSETOWN, SIOCSPGRP: the descriptor's owner, who gets SIGIO (or any
 *    F_SETSIG signal) when it is ready: a kill without kill(), decided like
 *    fcntl(F_SETOWN) (process_control outside the tree). The owner is in
 *    memory (an int), so it is read once and the call is performed by
 *    capwatch on a duplicate of the descriptor with that value; under the
 *    tree's own PID namespace (CAPWATCH_KERNEL_READS) it is continued:
 *    the kernel reads it there, where it can name no outside process.
 *  - FS_IOC_SETFLAGS (and its 32-bit twin), FS_IOC_FSSETXATTR,
 *    FS_IOC_SETVERSION (and twin): metadata writes on the object behind the
 *    descriptor, whatever mode it was opened in (ownership suffices, as for
 *    fchmod): decided as fchmod(fd) is and performed on capwatch's
 *    duplicate with the value read once (fs.c, cw_fs_fd_meta), never
 *    CONTINUEd on a descriptor number the target can swap (E11).
 *  - FIOASYNC, TIOCSPGRP (job control on the terminal), TIOCSWINSZ:
 *    signals the kernel sends to a descriptor's owner or a terminal's
 *    foreground group (sigio.c).
 *  - TCSETS, TCSETSW, TCSETSF, TCSETS2 (and W, F), TCSETA (and W, F): the
 *    terminal's attributes, whose TOSTOP makes the kernel stop the
 *    background jobs of its session (sigio.c).
 *  - TCXONC (tcflow): TCOOFF stops the terminal's output (sigio.c). */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <linux/btrfs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/scratch.h"
#include "supervisor/resolve.h"
#include "supervisor/util.h"


#define CW_CAP_FOWNER 3
#define CW_CAP_LINUX_IMMUTABLE 9

/* ---- the owner of a descriptor (FIOSETOWN, SIOCSPGRP) ----
 *
 * The owner is read once into the call's scratch (n->call->owner_val),
 * and only that copy is decided on and set. */

/* ioctl(fd, cmd, &owner) on capwatch's duplicate of the target's fd:
 * 0 or -errno. The owner is recorded with capwatch's credentials, which
 * are the command's (same uid and gids): the kernel's later SIGIO
 * permission check sees the same ids. */
static int set_owner(struct cw_notif *n)
{
	_cleanup_close_ int d = cw_dup_target_fd(n, arg_int(n, 0));
	if (d < 0)
		return d;
	int v = n->call->owner_val;
	return ioctl(d, (unsigned long)(uint32_t)arg_u64(n, 1), &v) < 0 ? -errno : 0;
}

static void enforce_owner(struct cw_notif *n, struct cw_event *ev)
{
	if (!ev->enforced || cw_tree_own_pidns(n)) {
		/* --observe; or the tree's own PID namespace
		 * (CAPWATCH_KERNEL_READS), where the kernel reads the number
		 * in the caller's namespace: whatever it reads names a member
		 * or the namespace's inert init, which drops the signal. No
		 * number of the tree's is ever given to the host (e171). */
		enforce_continue(n, ev);
		return;
	}
	ev->verified = true;
	int r = set_owner(n);
	ev->err = r < 0 ? -r : 0;
	if (r < 0)
		cw_answer_error(n, ev->err);
	else
		cw_answer_value(n, 0);
}

static void handle_owner(struct cw_notif *n, uint32_t cmd)
{
	int *owner = &n->call->owner_val;
	int e = cw_mem_read(n->tid, arg_u64(n, 2), owner, sizeof(*owner));
	if (e < 0) {
		answer_unreadable(n, e == -ESRCH ? ESRCH : EFAULT);
		return;
	}
	int v = *owner; /* read once: every use below is of this copy */
	if (v == INT_MIN) {
		cw_answer_error(n, EINVAL); /* as f_setown() answers */
		return;
	}
	if (v == 0) {
		/* No owner: nobody to signal. Still performed here, so that
		 * what is set is exactly what was read, and never continued
		 * (a clear landing while capwatch turns O_ASYNC on: sigio.c). */
		if (!cw_notif_valid(n)) {
			cw_answer_gone(n);
			return;
		}
		int r = set_owner(n);
		if (r < 0)
			cw_answer_error(n, -r);
		else
			cw_answer_value(n, 0);
		return;
	}
	bool in_tree = v > 0 ? cw_task_named_in_tree(n, v) : cw_group_named_in_tree(n, -v);
	if (!in_tree && !cw_named_exists(n, v)) {
		cw_answer_error(n, ESRCH); /* f_setown() finds nobody either */
		return;
	}
	struct cw_event ev;
	cw_event_init(&ev, n->syscall);
	ev.op.kind = CW_OP_SIGNAL;
	ev.op.target_pid = v; /* negative: a process group, as for kill() */
	ev.op.target_in_tree = in_tree;
	ev.flags = cmd;
	ev.has_flags = true;
	cw_event_finish(n, &ev, NULL, enforce_owner);
}

/* ---- metadata writes through the descriptor ---- */

/* Performed on capwatch's duplicate DUPFD with the value read once from
 * the target. The kernel checks capwatch's credentials here, so the
 * checks that rest on the caller's own (inode_owner_or_capable,
 * CAP_LINUX_IMMUTABLE for the append-only and immutable bits) are made
 * against the target's first: capwatch never does for the command what
 * the command could not do itself. */
static int do_meta(struct cw_notif *n, int dupfd, void *arg)
{
	uint32_t cmd = (uint32_t)(uintptr_t)arg;
	union {
		int i;
		struct fsxattr fx;
	} v;
	size_t len = cmd == FS_IOC_FSSETXATTR ? sizeof(v.fx) : sizeof(v.i);
	int e = cw_mem_read(n->tid, arg_u64(n, 2), &v, len);
	if (e < 0)
		return e == -ESRCH ? -ESRCH : -EFAULT;

	struct cw_target_status st;
	struct stat sb;
	if (cw_target_status(n->tid, &st) < 0 || fstat(dupfd, &sb) < 0)
		return -EPERM;
	bool owner = (unsigned long)sb.st_uid == st.uid[3] || (st.cap_eff & (1ull << CW_CAP_FOWNER));
	bool immutable_cap = st.cap_eff & (1ull << CW_CAP_LINUX_IMMUTABLE);
	if (!owner)
		return -EPERM;
	if (cmd == FS_IOC_SETFLAGS || cmd == FS_IOC32_SETFLAGS) {
		int old = 0;
		if (ioctl(dupfd, FS_IOC_GETFLAGS, &old) < 0)
			return -errno;
		if (((v.i ^ old) & (FS_APPEND_FL | FS_IMMUTABLE_FL)) && !immutable_cap)
			return -EPERM;
	} else if (cmd == FS_IOC_FSSETXATTR) {
		struct fsxattr old;
		if (ioctl(dupfd, FS_IOC_FSGETXATTR, &old) < 0)
			return -errno;
		if (((v.fx.fsx_xflags ^ old.fsx_xflags) & (FS_XFLAG_APPEND | FS_XFLAG_IMMUTABLE)) &&
		    !immutable_cap)
			return -EPERM;
	}
	return ioctl(dupfd, (unsigned long)cmd, &v) < 0 ? -errno : 0;
}

void cw_handle_ioctl(struct cw_notif *n)
{
	uint32_t cmd = (uint32_t)arg_u64(n, 1);
	switch (cmd) {
	case TIOCSTI:
	case TIOCLINUX:
	case TIOCCONS:
	case TIOCSETD:
	case FS_IOC_SET_ENCRYPTION_POLICY:
	case FS_IOC_ADD_ENCRYPTION_KEY:
	case FS_IOC_REMOVE_ENCRYPTION_KEY:
	case FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS:
	case FS_IOC_ENABLE_VERITY:
	case BTRFS_IOC_SNAP_CREATE:
	case BTRFS_IOC_SNAP_CREATE_V2:
	case BTRFS_IOC_SUBVOL_CREATE:
	case BTRFS_IOC_SUBVOL_CREATE_V2:
	case BTRFS_IOC_SNAP_DESTROY:
	case BTRFS_IOC_SNAP_DESTROY_V2:
	case BTRFS_IOC_SUBVOL_SETFLAGS:
	case BTRFS_IOC_DEFAULT_SUBVOL:
		/* Decided on the number only: unrestricted (the escape
		 * handler records it with the command). */
		cw_handle_escape(n);
		return;
	case FIOASYNC:
		cw_handle_fasync(n);
		return;
	case TIOCSPGRP:
	case TIOCSWINSZ:
		cw_handle_tty_job(n);
		return;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
	case 0x402C542Bu: /* TCSETS2 */
	case 0x402C542Cu: /* TCSETSW2 */
	case 0x402C542Du: /* TCSETSF2 */
	case TCSETA:
	case TCSETAW:
	case TCSETAF:
		cw_handle_tty_attr(n);
		return;
	case TCXONC:
		cw_handle_tty_flow(n);
		return;
	case FIOSETOWN:
	case SIOCSPGRP:
		handle_owner(n, cmd);
		return;
	case FS_IOC_SETFLAGS:
	case FS_IOC32_SETFLAGS:
	case FS_IOC_FSSETXATTR:
	case FS_IOC_SETVERSION:
	case FS_IOC32_SETVERSION:
		cw_fs_fd_meta(n, arg_int(n, 0), cmd, do_meta, (void *)(uintptr_t)cmd);
		return;
	default:
		break;
	}
	/* A command of a type the filter does not pass (table.c): refused
	 * with ENOTTY, what a driver or file system without it says, and
	 * recorded as unrestricted (vfat's attributes, f2fs's, a FUSE
	 * daemon's commands would change what no decision covers). Decided
	 * on the number alone: letting it through after looking at the
	 * descriptor would rest on a number another thread can dup2 over. */
	cw_escape_finish(n, NULL, (long long)cmd, ENOTTY);
}
