/* Opens of the objects fs.c does not open as plain files: /proc, /sys,
 * devices, FIFOs, sockets, and O_PATH opens (kernel-notes K17, K18).
 *
 * enforce_open (fs.c) calls cw_open_special() for every enforced, allowed
 * open it does not emulate itself. These opens used to be decided on the
 * path string and then continued: a second thread could switch
 * "/proc/self/status" or "/dev/tty" to a secret or to an outside file
 * after the check (tests/escapes/e17e, e17f). Here capwatch opens the
 * object itself and installs it in the target (ADDFD|SEND):
 *
 *  1. the decided path is opened O_PATH with RESOLVE_NO_SYMLINKS|
 *     RESOLVE_NO_MAGICLINKS (an O_PATH open has no side effect on a
 *     device or FIFO): a symlink swapped in after the decision fails
 *     ELOOP, and the path bytes the target can rewrite are never read
 *     again;
 *  2. the object is classified by what it is (fstat, fstatfs), not by its
 *     name, and the checks below refuse what capwatch could open but the
 *     target could not;
 *  3. it is reopened through capwatch's own /proc/self/fd/N with the
 *     target's flags (plus O_NOCTTY): the same inode, so the identity
 *     cannot change between the check and the open.
 *
 * What capwatch's open would mean differently from the target's:
 *  - /proc/self and /proc/thread-self: resolve.c already turned them into
 *    /proc/<tgid> and /proc/<tgid>/task/<tid> of the target;
 *  - files of /proc/PID that the kernel checks against the opener
 *    (ptrace_may_access at open: mem, environ, auxv, maps...): capwatch is
 *    the tracer of every process of the tree and would pass where the
 *    target might not, so they are opened only for the target's own
 *    thread group (where the kernel lets any thread in) and refused
 *    (EACCES) for any other process;
 *  - checks on the opener's credentials (permissions; capabilities at
 *    open for /dev/mem, /proc/kcore, /dev/kmsg; file->f_cred for
 *    cgroup.procs, uid_map, pagemap's PFNs): capwatch runs with the
 *    target's uid and gids (if its fsuid or fsgid differ, nothing is
 *    emulated: EACCES), and when it holds effective capabilities the
 *    target does not (a root capwatch, a command that dropped some), the
 *    lookup and the open run on a thread that dropped them first;
 *  - lookups in the opener's namespaces (/proc/sys/net and the
 *    /proc/PID view follow the opener's network and pid namespaces): the
 *    tree cannot unshare or setns (denied in the filter), so capwatch's
 *    namespaces are the target's;
 *  - /dev/tty is the opener's controlling terminal: the target's (field
 *    tty_nr of /proc/TID/stat) is opened instead, ENXIO without one;
 *  - a tty opened without O_NOCTTY by a session leader without a
 *    controlling terminal would become the target's controlling terminal;
 *    capwatch always adds O_NOCTTY (it must not acquire it itself), so the
 *    target gets the descriptor but not the controlling terminal (it can
 *    still take it with ioctl(TIOCSCTTY), which login_tty, forkpty,
 *    script and setsid -c do);
 *  - opens that block (a FIFO without its other end, a serial line
 *    waiting for carrier, devices capwatch does not know) are performed by
 *    a detached worker thread, which answers itself: the event loop never
 *    waits for them (E57b).
 *
 * What the object is decides more than its name (decided again here, on
 * the object the O_PATH lookup holds, after the path's decision):
 *  - a block device is raw access to every file of the file system on it,
 *    secrets included: `unrestricted` on its path, for reads too (e123);
 *  - a terminal (pts, tty/vt/serial major 4, /dev/console) that is
 *    neither one of capwatch's own stdin/stdout/stderr (tty mode: the
 *    command's terminal) nor a pty the tree made (through /dev/ptmx, while
 *    its master lives) is another session's: reading it takes that
 *    session's keystrokes, writing it shows that session fake prompts.
 *    `process_control`, read or write (e131);
 *  - the directory /proc/PID of a process outside the tree (capwatch
 *    included) is `process_control`, as its private files are: the
 *    kernel takes such a descriptor as a pidfd (pidfd_send_signal), and
 *    the number it is installed under can be swapped after capwatch
 *    decided a signal on another pidfd (e122). Its files (stat, status,
 *    cmdline) stay ordinary reads; O_PATH opens are not concerned (they
 *    are continued, and pidfd_send_signal refuses an O_PATH descriptor).
 * (Under --observe enforce_open continues opens without coming here: they
 * are recorded as their path was decided.) */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/common.h"
#include "supervisor/handlers/fs_special.h"
#include "supervisor/handlers/fs_impl.h"
#include "supervisor/state.h"
#include "supervisor/secret_ids.h"
#include "supervisor/log.h"
#include "path.h"
#include "supervisor/util.h"

#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef TIOCGDEV
#define TIOCGDEV _IOR('T', 0x32, unsigned int)
#endif
#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif
#define CW_O_TMPFILE_BIT 020000000

/* Detached open workers alive at once; past that a blocking open fails
 * EINTR (what open(2) of a FIFO returns when interrupted), so that a
 * flood of FIFO opens cannot make capwatch create threads without end. */
#define SPECIAL_MAX_WORKERS 64
/* static by necessity: the workers are detached and decrement this when
 * they end, which may be after the run and its state are gone (an open
 * of a FIFO that never gets its other end outlives the run); they hold
 * nothing of the run, only their job and the listener's number. */
static atomic_int nworkers;

static void answer_err(struct cw_notif *n, struct cw_event *ev, int err)
{
	ev->verified = true;
	ev->err = err;
	cw_answer_error(n, err);
}

/* Install FD (the answer's from here) in the target as the answer; what
 * became of it is EV's when it is recorded (cw_event_record). */
static void answer_fd(struct cw_notif *n, struct cw_event *ev, int fd, bool cloexec)
{
	ev->verified = true;
	ev->err = 0;
	cw_answer_fd(n, fd, cloexec);
}

/* Fields of "/proc/PID/stat" after the command name: session (6) and
 * tty_nr (7). PID "self" is capwatch. */
static int stat_tty(const char *pid, int *session, unsigned *tty_nr)
{
	char p[64], buf[1024];
	snprintf(p, sizeof(p), "/proc/%s/stat", pid);
	ssize_t r = cw_read_text(p, buf, sizeof(buf));
	if (r < 0)
		return (int)r;
	char *c = strrchr(buf, ')'); /* the name may hold anything but this is last */
	char state;
	int ppid, pgrp;
	if (!c || sscanf(c + 1, " %c %d %d %d %u", &state, &ppid, &pgrp, session, tty_nr) != 5)
		return -EIO;
	return 0;
}

/* The credentials capwatch's opens for a target run with. */
struct as_target {
	bool reduce;              /* on a thread with effective caps cut to CAPS */
	unsigned long long caps;  /* the target's effective capabilities */
};

static unsigned long long my_effective_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return ~0ULL; /* unknown: treat as holding everything */
	return (unsigned long long)d[0].effective | ((unsigned long long)d[1].effective << 32);
}

/* Would capwatch's open be checked with the credentials the target's
 * would? Its fsuid and fsgid must be the target's (4th field of Uid:/Gid:
 * in /proc/TID/status; set*id calls are denied to the tree, so they stay
 * so): -EACCES otherwise. Effective capabilities capwatch holds and the
 * target does not (a root capwatch, a command that dropped some): AS says
 * to open on a thread that drops them first. */
static int target_credentials(pid_t tid, struct as_target *as)
{
	struct cw_target_status st;
	if (cw_target_status(tid, &st) < 0 || st.uid[3] != (unsigned long)geteuid() ||
	    st.gid[3] != (unsigned long)getegid())
		return -EACCES;
	as->caps = st.cap_eff;
	as->reduce = (my_effective_caps() & ~as->caps) != 0;
	return 0;
}

/* Cut the calling thread's effective capabilities to KEEP. capset(2) on
 * the raw syscall changes this thread only (glibc's setuid-style
 * broadcast is not involved). */
static int drop_caps_to(unsigned long long keep)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	d[0].effective &= (uint32_t)keep;
	d[1].effective &= (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

struct as_call {
	void (*fn)(void *);
	void *arg;
	unsigned long long caps;
	int err;
};

static void *as_thread(void *p)
{
	struct as_call *c = p;
	c->err = drop_caps_to(c->caps);
	if (c->err == 0)
		c->fn(c->arg);
	return NULL;
}

/* Run FN(ARG) with the target's capabilities: here, or on a short-lived
 * thread whose credentials (per thread) lose the others; it shares the
 * descriptor table and umask. Returns 0 or -errno (FN did not run). */
static int run_as_target(const struct as_target *as, void (*fn)(void *), void *arg)
{
	if (!as->reduce) {
		fn(arg);
		return 0;
	}
	struct as_call c = { .fn = fn, .arg = arg, .caps = as->caps, .err = 0 };
	pthread_t th;
	int e = pthread_create(&th, NULL, as_thread, &c);
	if (e)
		return -e;
	pthread_join(th, NULL);
	return c.err;
}

/* Files of /proc/PID whose open the kernel checks against the opener
 * with ptrace_may_access() (or, for map_files, CAP_SYS_ADMIN at lookup):
 * capwatch, the tracer, would pass where the target may not. (stat,
 * status, cmdline, io, stack, syscall... are checked at read time,
 * against the reader: the target.) */
static const char *const proc_opener_checked[] = {
	"mem", "environ", "auxv", "maps", "smaps", "smaps_rollup", "numa_maps", "pagemap",
	"fdinfo", "attr", "map_files", "ns",
};

/* Is PID (a TGID or TID, as a string of digits) in TGID's thread group? */
static bool in_thread_group(const char *pid, pid_t tgid)
{
	pid_t v = (pid_t)strtol(pid, NULL, 10);
	struct cw_target_status st;
	return v == tgid || (cw_target_status(v, &st) == 0 && st.tgid == tgid);
}

/* For an object on procfs at PATH: may capwatch open it for thread group
 * TGID? Everything outside /proc/PID, and /proc/PID files checked at
 * read time, yes; opener-checked files only of TGID itself. */
bool cw_proc_open_allowed(const char *path, pid_t tgid)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return true;
	const char *pid = path + 6;
	size_t pl = strspn(pid, "0123456789");
	if (pl == 0 || (pid[pl] != '/' && pid[pl] != '\0'))
		return true; /* /proc/cpuinfo, /proc/sys/...: about no process */
	const char *rest = pid[pl] ? pid + pl + 1 : "";
	if (strncmp(rest, "task/", 5) == 0) {
		size_t tl = strspn(rest + 5, "0123456789");
		if (tl && rest[5 + tl] == '/')
			rest += 5 + tl + 1; /* the kernel ties task/TID to PID */
	}
	size_t nl = strcspn(rest, "/");
	for (size_t i = 0; i < CW_ARRAY_SIZE(proc_opener_checked); i++)
		if (strlen(proc_opener_checked[i]) == nl &&
		    memcmp(rest, proc_opener_checked[i], nl) == 0)
			return in_thread_group(pid, tgid);
	return true;
}

/* Is PATH "/proc/PID/ns/NAME" or "/proc/PID/task/TID/ns/NAME"? Those
 * are magic links to namespace objects (nsfs), which resolve.c leaves
 * unfollowed (their link text, "net:[4026531840]", is no path). */
bool cw_proc_ns_link(const char *path)
{
	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	const char *p = path + 6;
	size_t n = strspn(p, "0123456789");
	if (n == 0 || p[n] != '/')
		return false;
	p += n + 1;
	if (strncmp(p, "task/", 5) == 0) {
		n = strspn(p + 5, "0123456789");
		if (n == 0 || p[5 + n] != '/')
			return false;
		p += 5 + n + 1;
	}
	if (strncmp(p, "ns/", 3) != 0)
		return false;
	p += 3;
	return *p && strspn(p, "abcdefghijklmnopqrstuvwxyz_") == strlen(p);
}

/* Character devices whose open neither blocks nor depends on the opener
 * beyond its credentials: the memory devices (null, zero, random...),
 * /dev/console, /dev/ptmx (a new pty in the devpts instance next to the
 * node: the same for capwatch), the pty slaves. Opened on the event
 * loop; any other device by a worker. */
bool cw_quick_device(dev_t rdev)
{
	unsigned ma = major(rdev);
	return ma == 1 || ma == 5 || (ma >= 136 && ma <= 143);
}

/* ---- terminals ---- */

/* Terminal devices: pty slaves (majors 136-143), the virtual consoles and
 * serial lines of major 4, /dev/console (5:1). /dev/tty (5:0) is the
 * opener's own controlling terminal (open_ctty); /dev/ptmx (5:2) makes a
 * new pty. */
static bool pts_device(dev_t rdev)
{
	return major(rdev) >= 136 && major(rdev) <= 143;
}

bool cw_terminal_device(dev_t rdev)
{
	return pts_device(rdev) || major(rdev) == 4 || rdev == makedev(5, 1);
}

/* The same terminal: the device number, and for a pty slave also the
 * devpts instance (each instance numbers its ptys from 0). */
static bool same_terminal(const struct stat *a, const struct stat *b)
{
	return S_ISCHR(a->st_mode) && S_ISCHR(b->st_mode) && a->st_rdev == b->st_rdev &&
	       (!pts_device(a->st_rdev) || a->st_dev == b->st_dev);
}

/* Ptys the tree made: for each /dev/ptmx open capwatch performed for it,
 * an O_PATH descriptor of the slave (TIOCGPTPEER on capwatch's copy of
 * the master, before it is installed). O_PATH holds no open tty (the
 * master still sees EIO when the slave's last user goes), only the
 * slave's devpts inode: when the master is closed, devpts unlinks that
 * inode (st_nlink 0), and a later pty of the same number (someone else's)
 * is another inode. Bounded: past CW_FS_TREE_PTYS_MAX live ptys, a new
 * one's slave is not remembered and its open by name is decided as
 * another session's (fail closed). They are the run's (cw_fs_state). */
static bool tree_pty_alive(const struct cw_fs_tree_pty *t)
{
	struct stat st;
	return fstat(t->fd, &st) == 0 && st.st_nlink > 0;
}

static void prune_tree_ptys(struct cw_fs_state *fs)
{
	size_t j = 0;
	for (size_t i = 0; i < fs->ntree_ptys; i++) {
		if (tree_pty_alive(&fs->tree_ptys[i]))
			fs->tree_ptys[j++] = fs->tree_ptys[i];
		else
			close(fs->tree_ptys[i].fd);
	}
	fs->ntree_ptys = j;
}

/* MASTER (capwatch's descriptor of a new /dev/ptmx open, about to be the
 * target's): remember its slave. */
static void note_tree_pty(struct cw_fs_state *fs, int master)
{
	int s = ioctl(master, TIOCGPTPEER, O_PATH | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return; /* kernel before 4.13: its slave's open is refused */
	struct stat st;
	if (fstat(s, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(s);
		return;
	}
	if (fs->ntree_ptys == CW_FS_TREE_PTYS_MAX)
		prune_tree_ptys(fs);
	if (fs->ntree_ptys == CW_FS_TREE_PTYS_MAX) {
		cw_info("more than %d ptys of the tree alive: pty %u:%u not remembered", CW_FS_TREE_PTYS_MAX,
			major(st.st_rdev), minor(st.st_rdev));
		close(s);
		return;
	}
	fs->tree_ptys[fs->ntree_ptys++] = (struct cw_fs_tree_pty){ .fd = s, .st = st };
}

/* May the tree open the terminal ST (a terminal_device)? Yes for one of
 * capwatch's own stdin/stdout/stderr (the command shares it in tty mode,
 * and inherits it as those descriptors anyway) and for a live pty the
 * tree made; any other is another session's. */
static bool tree_terminal(const struct cw_fs_state *fs, const struct stat *st)
{
	for (int fd = 0; fd <= 2; fd++) {
		struct stat mine;
		if (fstat(fd, &mine) == 0 && same_terminal(&mine, st))
			return true;
	}
	if (!pts_device(st->st_rdev))
		return false;
	for (size_t i = 0; i < fs->ntree_ptys; i++)
		if (same_terminal(&fs->tree_ptys[i].st, st) && tree_pty_alive(&fs->tree_ptys[i]))
			return true;
	return false;
}

bool cw_fs_tree_pty(const struct cw_run *run, const struct stat *st)
{
	const struct cw_fs_state *fs = run->fs_state;
	if (!fs || !pts_device(st->st_rdev))
		return false;
	for (size_t i = 0; i < fs->ntree_ptys; i++)
		if (same_terminal(&fs->tree_ptys[i].st, st) && tree_pty_alive(&fs->tree_ptys[i]))
			return true;
	return false;
}

/* The directory of a process on procfs, PATH, held by OPATH (ST): its
 * pid, else 0. Its name is digits and its parent the root of that procfs
 * (inode 1), wherever the procfs is mounted. */
pid_t cw_proc_pid_dir(const char *path, int opath, const struct stat *st)
{
	char last[16];
	size_t len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	size_t b = len;
	while (b > 0 && path[b - 1] != '/')
		b--;
	size_t l = len - b;
	if (l == 0 || l >= sizeof(last) || strspn(path + b, "0123456789") < l)
		return 0;
	memcpy(last, path + b, l);
	last[l] = '\0';
	struct stat up;
	if (fstatat(opath, "..", &up, AT_SYMLINK_NOFOLLOW) < 0 || up.st_ino != 1 || up.st_dev != st->st_dev)
		return 0;
	long v = strtol(last, NULL, 10);
	return v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

/* Decide EV again as OP says it is (the object is not what its name was
 * decided as), with WHY added to the reason; on a denial, answer it.
 * Returns whether the open may go on. */
static bool decide_object(struct cw_notif *n, struct cw_event *ev, const char *why)
{
	bool ok = cw_event_decide(n, ev);
	/* decide_write's words for an aliased object ("also reachable
	 * through a ... made before the run") do not fit: WHY says it. */
	char *gen = ev->op.kind == CW_OP_OPEN_WRITE ? strstr(ev->d.reason, " (the file is also reachable") : NULL;
	if (gen)
		*gen = '\0';
	size_t l = strlen(ev->d.reason);
	if (why && l < sizeof(ev->d.reason) - 1)
		snprintf(ev->d.reason + l, sizeof(ev->d.reason) - l, " (%s)", why);
	if (!ok)
		cw_event_deny(n, ev);
	return ok;
}

/* Reopen the object held by the O_PATH descriptor OPATH with FLAGS. */
static int reopen(int opath, int flags, mode_t mode)
{
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", opath);
	int fd = open(self, flags, mode);
	return fd < 0 ? -errno : fd;
}

/* Is FD the object described by WANT (same device for device nodes, same
 * inode otherwise)? */
static bool same_object(int fd, const struct stat *want)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || (st.st_mode & S_IFMT) != (want->st_mode & S_IFMT))
		return false;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return st.st_rdev == want->st_rdev;
	return st.st_dev == want->st_dev && st.st_ino == want->st_ino;
}

/* The target's controlling terminal, for its open of /dev/tty (OPATH,
 * char 5:0). When it is capwatch's as well (tty mode), /dev/tty itself is
 * opened and TIOCGDEV checks which tty it reached. Otherwise its node
 * (/dev/pts/N, or the DEVNAME sysfs gives) is opened, checked by
 * st_rdev, with O_NONBLOCK during the open as the kernel does for
 * /dev/tty. Returns the fd or -errno (ENXIO: no controlling terminal). */
static int open_ctty(pid_t tid, int opath, int flags)
{
	char tids[24];
	int sess, my_sess;
	unsigned tty, my_tty = 0;
	snprintf(tids, sizeof(tids), "%d", (int)tid);
	int e = stat_tty(tids, &sess, &tty);
	if (e < 0)
		return e == -ENOENT ? -ESRCH : e;
	if (tty == 0)
		return -ENXIO;
	unsigned got = 0;
	if (stat_tty("self", &my_sess, &my_tty) == 0 && my_tty == tty) {
		int fd = reopen(opath, flags, 0);
		if (fd < 0)
			return fd;
		if (ioctl(fd, TIOCGDEV, &got) == 0 && got == tty)
			return fd;
		close(fd);
		return -EACCES;
	}
	char node[300];
	unsigned ma = major(tty), mi = minor(tty);
	if (ma >= 136 && ma <= 143) {
		snprintf(node, sizeof(node), "/dev/pts/%u", (ma - 136) * 256 + mi);
	} else {
		char p[64], buf[512];
		snprintf(p, sizeof(p), "/sys/dev/char/%u:%u/uevent", ma, mi);
		_cleanup_close_ int u = open(p, O_RDONLY | O_CLOEXEC);
		ssize_t r = u < 0 ? -1 : read(u, buf, sizeof(buf) - 1);
		if (r <= 0)
			return -ENXIO;
		buf[r] = '\0';
		char *d = strstr(buf, "DEVNAME=");
		if (!d)
			return -ENXIO;
		d += 8;
		d[strcspn(d, "\n")] = '\0';
		if (strstr(d, ".."))
			return -ENXIO;
		snprintf(node, sizeof(node), "/dev/%s", d);
	}
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int np = (int)syscall(SYS_openat2, AT_FDCWD, node, &how, sizeof(how));
	struct stat st;
	if (np < 0 || fstat(np, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != ma ||
	    minor(st.st_rdev) != mi)
		return -ENXIO;
	int fd = reopen(np, flags | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if (!same_object(fd, &st) || ioctl(fd, TIOCGDEV, &got) < 0 || got != tty) {
		close(fd);
		return -EACCES;
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* ---- opens that may block: a detached worker answers ---- */

struct open_job {
	int listener;
	uint64_t id;
	int opath;
	int flags;
	bool cloexec;
	struct stat want;
	struct as_target as;
};

/* Touches nothing but its job and the listener (ADDFD and SEND are safe
 * from any thread). With WAIT_KILLABLE_RECV (launch.c) only a fatal
 * signal makes the target abandon the call; the open then still
 * completes when the other end comes, ADDFD fails ENOENT, and the
 * descriptor is closed. */
static void *open_worker(void *arg)
{
	struct open_job *j = arg;
	struct cw_answer a = { .kind = CW_ANSWER_ERROR };
	int fd = j->as.reduce ? drop_caps_to(j->as.caps) : 0;
	if (fd == 0)
		fd = reopen(j->opath, j->flags, 0);
	if (fd < 0) {
		a.err = -fd;
	} else if (!same_object(fd, &j->want)) {
		a.err = EACCES;
	} else {
		a = (struct cw_answer){ .kind = CW_ANSWER_FD, .fd = fd, .cloexec = j->cloexec };
	}
	cw_answer_send_late(j->listener, j->id, &a); /* ENOENT: gone */
	if (fd >= 0)
		close(fd);
	close(j->opath);
	free(j);
	atomic_fetch_sub(&nworkers, 1);
	return NULL;
}

/* Hand the open to a worker. Returns 0 (the worker answers) or -errno
 * (the caller answers). OPATH is taken over on success. */
static int start_worker(struct cw_notif *n, int opath, int flags, bool cloexec, const struct stat *st,
			const struct as_target *as)
{
	if (atomic_fetch_add(&nworkers, 1) >= SPECIAL_MAX_WORKERS) {
		atomic_fetch_sub(&nworkers, 1);
		cw_info("too many blocking opens in progress (%d): EINTR", SPECIAL_MAX_WORKERS);
		return -EINTR;
	}
	struct open_job *j = calloc(1, sizeof(*j));
	if (!j) {
		atomic_fetch_sub(&nworkers, 1);
		return -ENOMEM;
	}
	/* The listener itself, not a duplicate: when run.c closes it after
	 * a failure, pending notifications must fail (ENOSYS) as it says. */
	*j = (struct open_job){ .listener = n->run->listener, .id = n->req->id, .opath = opath, .flags = flags,
				.cloexec = cloexec, .want = *st, .as = *as };
	int e = cw_start_detached(open_worker, j);
	if (e < 0) {
		free(j);
		atomic_fetch_sub(&nworkers, 1);
		return e;
	}
	cw_answer_later(n); /* the worker answers */
	return 0;
}



/* ---- the steps that touch the object, run with the target's capabilities ---- */

/* Step 1: the decided path, O_PATH, no symlink followed. */
struct lookup {
	int root;               /* the tree's root, or -1: capwatch's (special_root) */
	const char *path;
	struct open_how how;
	int fd;                 /* or -errno */
	struct stat st;
	struct statfs sfs;
};

static void do_lookup(void *arg)
{
	struct lookup *l = arg;
	l->fd = cw_openat2_tree(l->root, l->path, &l->how); /* in steps when deeper than PATH_MAX */
	if (l->fd < 0) {
		/* -errno already */
	} else if (fstat(l->fd, &l->st) < 0 || fstatfs(l->fd, &l->sfs) < 0) {
		close(l->fd);
		l->fd = -EACCES;
	}
}

/* Step 2: the open itself. */
enum open_kind { OPEN_REOPEN, OPEN_CTTY, OPEN_CREATE };
struct opening {
	enum open_kind kind;
	int opath;              /* REOPEN, CTTY: the object */
	int root;               /* CREATE: as struct lookup's */
	const char *path;       /* CREATE: the decided path */
	int flags;              /* capwatch's: the target's + O_NOCTTY|O_CLOEXEC */
	mode_t mode;
	pid_t tid;
	int fd;                 /* or -errno */
};

static void do_open(void *arg)
{
	struct opening *o = arg;
	if (o->kind == OPEN_CTTY) {
		o->fd = open_ctty(o->tid, o->opath, o->flags);
	} else if (o->kind == OPEN_REOPEN) {
		o->fd = reopen(o->opath, o->flags, o->mode);
	} else {
		struct open_how how = {
			.flags = (unsigned long long)o->flags,
			.mode = o->mode,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		o->fd = cw_openat2_tree(o->root, o->path, &how);
	}
}

/* Run step 2 (with the target's umask when it creates) and answer. */
static void open_and_answer(struct cw_notif *n, struct cw_event *ev, const struct as_target *as,
			    struct opening *o, int tflags, const struct stat *want)
{
	int um = -1;
	if (tflags & (O_CREAT | CW_O_TMPFILE_BIT)) {
		um = cw_target_umask(n->tid);
		if (um < 0) {
			answer_err(n, ev, EPERM);
			return;
		}
	}
	mode_t saved = um >= 0 ? umask((mode_t)um) : 0;
	o->fd = -EPERM;
	int e = run_as_target(as, do_open, o);
	if (um >= 0)
		umask(saved);
	if (e < 0) {
		answer_err(n, ev, EPERM); /* could not open with the target's rights */
		return;
	}
	if (o->fd < 0) {
		answer_err(n, ev, o->fd == -ESRCH ? EPERM : -o->fd);
		return;
	}
	if (want && !(tflags & CW_O_TMPFILE_BIT) && !same_object(o->fd, want)) {
		close(o->fd);
		answer_err(n, ev, EACCES);
		return;
	}
	if (want && S_ISCHR(want->st_mode) && want->st_rdev == makedev(5, 2))
		note_tree_pty(n->run->fs_state, o->fd); /* a new pty: the tree's own terminal */
	answer_fd(n, ev, o->fd, tflags & O_CLOEXEC);
}

/* Where the decided PATH is looked up from. With reads decided in the
 * kernel (CAPWATCH_KERNEL_READS) the tree has a mount namespace of its
 * own, and its mounts are the ones fanotify watches: a file capwatch
 * opened through its own mounts (the host's /dev/shm, where a workspace
 * may be) would be one the tree can reopen for reading through
 * /proc/self/fd unseen (red team e166). So from the tree's root, as the
 * kernel would for the tree: files, FIFOs and directories anywhere, the
 * tree's /dev/shm and /dev/mqueue (the host's, cloned and watched), and
 * the tree's /dev, a tmpfs of a few devices, where a file made is made
 * (not the host's /dev). Not /proc and /sys, whose names here are
 * capwatch's (the pids translated: proc.c), nor ptys and the terminal,
 * which capwatch opens as it sees them (kernel.c reads_view). Else
 * capwatch's root. */
static bool path_under(const char *path, const char *dir)
{
	size_t l = strlen(dir);
	return strncmp(path, dir, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

static int special_root(const struct cw_notif *n, const char *path)
{
	if (path_under(path, "/proc") || path_under(path, "/sys"))
		return -1;
	if (path_under(path, "/dev/pts") || path_under(path, "/dev/ptmx") || path_under(path, "/dev/tty"))
		return -1;
	return n->run->tree_root_fd;
}

/* Step 1 of cw_open_special: the decided path of EV looked up O_PATH,
 * no symlink followed, with the target's rights AS, into L. True when
 * L->fd holds the object; false when answered (a missing name with
 * O_CREAT is created and answered here: tmpfs /dev, /dev/shm). */
static bool lookup_decided(struct cw_notif *n, struct cw_event *ev, const struct as_target *as, int tflags,
			   mode_t mode, bool ns_link, struct lookup *l)
{
	const char *path = ev->op.path;
	int oflags = tflags | O_NOCTTY | O_CLOEXEC;
	bool excl_create = (tflags & O_CREAT) && (tflags & O_EXCL);
	bool trailing = ev->raw_path && ev->raw_path_len > 1 && ev->raw_path[ev->raw_path_len - 1] == '/';
	*l = (struct lookup){
		.root = special_root(n, path),
		.path = path,
		.how = {
			.flags = O_PATH | O_CLOEXEC |
				 ((tflags & O_NOFOLLOW) || excl_create ? O_NOFOLLOW : 0) |
				 (trailing || (tflags & O_DIRECTORY) ? O_DIRECTORY : 0),
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		},
		.fd = -EPERM,
	};
	if (ns_link) {
		/* The target's own namespace link: its last component is the
		 * magic link to follow; the components before it are procfs
		 * directories of the target, which nothing can swap (mounts
		 * are denied in the tree). */
		l->how.flags &= ~(unsigned long long)(O_NOFOLLOW | O_DIRECTORY);
		l->how.resolve = 0;
		if ((tflags & O_NOFOLLOW) || excl_create) {
			answer_err(n, ev, excl_create ? EEXIST : ELOOP);
			return false;
		}
	}
	if (run_as_target(as, do_lookup, l) < 0) {
		answer_err(n, ev, EPERM);
		return false;
	}
	if (l->fd < 0) {
		struct opening o = { .kind = OPEN_CREATE, .root = l->root, .path = path, .flags = oflags,
				     .mode = mode, .tid = n->tid };
		if (l->fd == -ENOENT && (tflags & O_CREAT) && trailing)
			answer_err(n, ev, EISDIR);
		else if (l->fd == -ENOENT && (tflags & O_CREAT))
			open_and_answer(n, ev, as, &o, tflags, NULL); /* tmpfs /dev, /dev/shm */
		else
			answer_err(n, ev, -l->fd);
		return false;
	}
	return true;
}

/* Step 2: what the object L holds decides more than its name (see
 * the top of this file): EV decided again where it is a process's, a
 * block device, another session's terminal, a known secret or a file
 * with other names. False when answered. */
static bool decide_on_object(struct cw_notif *n, struct cw_event *ev, int tflags, const struct lookup *l)
{
	const char *path = ev->op.path;
	const struct stat *st = &l->st;
	bool excl_create = (tflags & O_CREAT) && (tflags & O_EXCL);
	if (S_ISLNK(st->st_mode)) {
		/* Not followed: O_NOFOLLOW (ELOOP) or O_CREAT|O_EXCL (EEXIST). */
		answer_err(n, ev, excl_create ? EEXIST : ELOOP);
		return false;
	}
	if (excl_create) {
		answer_err(n, ev, EEXIST);
		return false;
	}
	if (l->sfs.f_type == PROC_SUPER_MAGIC && !cw_proc_open_allowed(path, n->tgid)) {
		/* Another process's mem, environ, maps...: the kernel checks
		 * the opener, and capwatch is not the target. */
		answer_err(n, ev, EACCES);
		return false;
	}
	pid_t dir_pid = l->sfs.f_type == PROC_SUPER_MAGIC && S_ISDIR(st->st_mode) ? cw_proc_pid_dir(path, l->fd, st) : 0;
	if (dir_pid > 0 && !cw_task_in_tree(n, dir_pid)) {
		/* A process's /proc/PID directory, which pidfd_send_signal
		 * takes as a pidfd: outside the tree (capwatch included) it
		 * is process access, as /proc/PID/environ is. */
		ev->op.kind = CW_OP_PROC_ACCESS;
		ev->op.target_pid = (int)dir_pid;
		ev->op.target_in_tree = false;
		if (!decide_object(n, ev, "the /proc directory of a process outside the tree, a pidfd to signal it"))
			return false;
	}
	if (S_ISBLK(st->st_mode)) {
		/* Raw access to every file of the file system on it: a write
		 * outside every workspace (unrestricted, on its path), for a
		 * read open too. Decided on the object, whatever its name. */
		ev->op.kind = CW_OP_OPEN_WRITE;
		ev->op.alias = "block device";
		if (!decide_object(n, ev, "a block device: its bytes are every file of the file system on it, "
					  "secrets included"))
			return false;
		if (ev->d.cap != CW_CAP_UNRESTRICTED && ev->d.verdict == CW_ALLOW) {
			/* A name that needs no capability (a pseudo-device's)
			 * on a block device: nothing to allow it by. */
			answer_err(n, ev, EACCES);
			return false;
		}
	} else if (S_ISCHR(st->st_mode) && cw_terminal_device(st->st_rdev) && !tree_terminal(n->run->fs_state, st)) {
		/* Another session's terminal: its keystrokes and its screen. */
		char *text = n->fs->terminal_alias;
		snprintf(text, sizeof(n->fs->terminal_alias), "the terminal %s of a session outside the tree", path);
		ev->op.kind = CW_OP_PROC_ACCESS;
		ev->op.target_pid = -1; /* whoever uses it: not known */
		ev->op.target_in_tree = false;
		ev->op.alias = text;
		if (!decide_object(n, ev, text))
			return false;
	}
	const char *secret = (tflags & O_ACCMODE) != O_WRONLY ? cw_secret_ids_find(n->run, st) : NULL;
	const char *linked = !secret && (tflags & O_ACCMODE) != O_WRONLY ? cw_secret_ids_linked(n->run, path) : NULL;
	if ((secret || linked) && !cw_path_is_secret(&n->run->ctx, path)) {
		/* The same inode as a secret known under another name
		 * (secret_ids.h), or a home's secret place through a link
		 * (e157): a secret read, as in fs_open.c. */
		char *text = n->fs->secret_alias;
		if (secret)
			snprintf(text, sizeof(n->fs->secret_alias), "the same file as the secret %s", secret);
		else
			snprintf(text, sizeof(n->fs->secret_alias), "the secret %s, through a symbolic link", linked);
		if (!cw_fs_decide_secret_read(n, ev, text))
			return false;
	}
	/* A private key under a name that is not a secret's, or one the
	 * tree opened to write while it held one (e167), as in fs_open.c: a
	 * workspace under /dev/shm is opened here. */
	const char *key = S_ISREG(st->st_mode) && (tflags & O_ACCMODE) != O_WRONLY &&
				  !cw_path_is_secret(&n->run->ctx, path)
			  ? cw_fs_key_alias(n->run, path, l->fd, st)
			  : NULL;
	if (!key && S_ISREG(st->st_mode) && (tflags & O_ACCMODE) != O_RDONLY &&
	    !cw_fs_key_before_write(n->run, path, l->fd, st, (unsigned long long)tflags))
		key = "a file holding a private key, which capwatch cannot remember";
	if (key && !cw_fs_decide_secret_read(n, ev, key))
		return false;
	if (S_ISREG(st->st_mode) && st->st_nlink > 1 &&
	    ((tflags & O_ACCMODE) != O_RDONLY || (tflags & O_TRUNC))) {
		/* A file with other names (a workspace under /dev/shm): decide
		 * again as fs_open.c does, as a write of an aliased object. */
		ev->op.alias = "hard link";
		if (!cw_event_decide(n, ev)) {
			cw_event_deny(n, ev);
			return false;
		}
	}
	return true;
}

/* Step 3: the object held by OPATH_IN (owned: closed here, or the
 * worker's) opened for the target and answered: /dev/tty as its
 * controlling terminal, what may block by a worker, the rest here. */
static void open_for_target(struct cw_notif *n, struct cw_event *ev, const struct as_target *as, int opath_in,
			    const struct stat *st, int tflags, mode_t mode)
{
	_cleanup_close_ int opath = opath_in;
	int oflags = tflags | O_NOCTTY | O_CLOEXEC;
	struct opening o = { .kind = OPEN_REOPEN, .opath = opath, .flags = oflags,
			     .mode = mode, .tid = n->tid };
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(5, 0)) {
		o.kind = OPEN_CTTY; /* checked in open_ctty, by TIOCGDEV */
		open_and_answer(n, ev, as, &o, tflags, NULL);
		return;
	}
	bool may_block = (S_ISCHR(st->st_mode) && !cw_quick_device(st->st_rdev)) || S_ISBLK(st->st_mode) ||
			 (S_ISFIFO(st->st_mode) && !(tflags & O_NONBLOCK) && (tflags & O_ACCMODE) != O_RDWR);
	if (may_block) {
		ev->verified = true;
		ev->err = 0; /* what the worker answers is not known yet */
		int e = start_worker(n, opath, oflags, tflags & O_CLOEXEC, st, as);
		if (e < 0)
			answer_err(n, ev, -e);
		else
			opath = -1; /* the worker's now */
		return;
	}
	open_and_answer(n, ev, as, &o, tflags, st);
}

void cw_open_special(struct cw_notif *n, struct cw_event *ev, unsigned long long flags,
		     unsigned long long mode, bool emulable)
{
	if (!emulable) {
		/* openat2 with resolve bits this kernel does not know: it
		 * fails them EINVAL, and continuing would let a flipper clear
		 * them (and rewrite the flags and path) after the check. */
		answer_err(n, ev, EINVAL);
		return;
	}
	if (flags & O_PATH) {
		/* CONTINUE on a path the target can rewrite: the O_PATH
		 * descriptor may end up on another object than the one
		 * decided (a secret, a file outside). It cannot be emulated:
		 * ADDFD refuses O_PATH files (the kernel's fget() skips them).
		 * It is safe because an O_PATH descriptor gives no access by
		 * itself (read, write, mmap, ioctl, fchmod, fchown, fsetxattr
		 * fail EBADF), and every call that turns it into access is
		 * notified and decided on the object it names, not on this
		 * open: a reopen through /proc/self/fd/N or /dev/fd/N
		 * (resolve.c: an O_PATH descriptor covers no access, so the
		 * reopen is decided on the object behind it; e17g); openat*, mkdirat, unlinkat... with
		 * it as dirfd (resolved from the descriptor's object); fchdir,
		 * then relative paths (resolved from the thread's cwd);
		 * execveat(AT_EMPTY_PATH) (decided at the exec stop on the
		 * image loaded); linkat/fchownat/fchmodat2/utimensat
		 * (AT_EMPTY_PATH: decided on the object's path, linkat as a
		 * write of it); connect to a unix socket named
		 * /proc/self/fd/N (net.c: unix:/dev/fd/N, outside every
		 * workspace, process_control). What it does give, fstat and
		 * statfs of the object, stat(2) gives any process anyway. */
		enforce_continue(n, ev);
		return;
	}
	const char *path = ev->op.path;
	if (path[0] != '/') {
		answer_err(n, ev, EACCES); /* nothing resolved to decide on */
		return;
	}
	bool ns_link = cw_proc_ns_link(path);
	if (ns_link && !cw_proc_open_allowed(path, n->tgid)) {
		/* Another process's namespace: the kernel checks the opener
		 * (ptrace_may_access), and capwatch is not the target. */
		answer_err(n, ev, EACCES);
		return;
	}
	struct as_target as = { .reduce = false, .caps = 0 };
	if (target_credentials(n->tid, &as) < 0) {
		/* capwatch's open would be checked as another user's. */
		answer_err(n, ev, EACCES);
		return;
	}
	int tflags = (int)flags; /* every valid open flag is in the low 32 bits */
	struct lookup l;
	if (!lookup_decided(n, ev, &as, tflags, (mode_t)mode, ns_link, &l))
		return;
	if (!decide_on_object(n, ev, tflags, &l)) {
		close(l.fd);
		return;
	}
	open_for_target(n, ev, &as, l.fd, &l.st, tflags, (mode_t)mode);
}
