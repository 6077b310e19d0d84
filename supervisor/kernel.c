/* The kernel back end: cgroup v2 membership, the proc connector and
 * fanotify exec permission events instead of ptrace (kernel.h). */
#include "config.h"
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <linux/mount.h>
#include <sys/prctl.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <unistd.h>
#include "supervisor/kernel.h"
#include "supervisor/hashkey.h"
#include "supervisor/cgmember.h"
#include "supervisor/ingress.h"
#include "policy/cap.h"
#include "policy/profile.h"
#include "path.h"
#include "supervisor/annot.h"
#include "supervisor/limits.h"
#include "supervisor/notify.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/secret_ids.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/handlers/keys.h"

/* What fanotify reports on the tree's mounts: every open for exec. (Not
 * reads: fanotify has no permission event for devices, FIFOs, sockets or
 * the files of procfs and sysfs, so a read passed in the kernel could
 * open a block device or another process's /proc files unseen; reads stay
 * notified, decided by fs.c and fs_special.c as with the portable back
 * end. SECURITY.md.) */
#define CW_FAN_MASK FAN_OPEN_EXEC_PERM
/* With CAPWATCH_KERNEL_READS=1 the tree lives in a PID namespace of its
 * own with a /proc of that namespace and a /dev of a few harmless
 * devices, every other mount nodev (cw_kernel_child): procfs and devices
 * are then the tree's own or absent, and a read-only open is decided here,
 * at its FAN_OPEN_PERM event, once per inode (an ignore mark after an
 * allow; a write to the file clears it), without a notification. */
#define CW_FAN_READ_MASK (FAN_OPEN_PERM | FAN_ONDIR)

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define FANQ 8192 /* > every task of a tree at its --max-procs, one event each */

struct cw_kernel {
	char cg_dir[512];     /* the run's cgroup, absolute */
	char cg_line[560];    /* its /proc/PID/cgroup line: "0::/..." */
	bool cg_made;         /* created here (removed at the end) */
	int cg_events;        /* cgroup.events, for "populated" */
	int cn;               /* proc connector socket */
	int fan;              /* fanotify group */
	int sentinel_w;       /* write end of the sentinel's pipe */
	pid_t sentinel;
	bool fan_started;
	unsigned long marks, mark_failures;
	unsigned long exec_events, exec_denied, lost;
	unsigned long read_events, read_denied, read_marked;
	/* What the fanotify reader may answer without the decider (fan_fast),
	 * under fast_mu: a lock held only for a look at these tables,
	 * never across a system call, so that the reader never waits on
	 * anything but this. */
	pthread_mutex_t fast_mu;
	/* The exec whose interpreter comes next, per thread: the device and
	 * inode of the PT_INTERP of the image allowed last (ld.so is opened
	 * for exec after the program, by the same thread in the same
	 * execve). SYSTEM: that name is the system's dynamic loader. PROG:
	 * a descriptor of that image (the slot's own, -1 none), whose change
	 * and modification times were PROG_C and PROG_M before its
	 * PT_INTERP was read: at the loader's event the image is the
	 * kernel's, no longer writable, and these tell whether it is still
	 * what was read (prog_unchanged). */
	struct interp {
		pid_t tgid, tid;
		dev_t dev;
		ino_t ino;
		bool system;
		char name[256];
		int prog;
		struct timespec prog_c, prog_m;
	} interp[64];
	unsigned ninterp;
	/* The exec each thread's notification allowed last
	 * (cw_kernel_exec_allowed), for its first fanotify event: the
	 * thread is the tree's (proven by the seccomp filter that only the
	 * tree's threads carry), and the file the decided name named is
	 * held by PIN, an O_PATH descriptor, so that its device and inode
	 * stay that file's while the approval lives (no other file can get
	 * the number: red team e135). The ELF interpreter it names, read
	 * then, for the loader's event. TID 0: free. USED: its event came
	 * (the pin is closed by whoever drops the entry, never the
	 * reader). */
	struct approval {
		pid_t tid, tgid;
		bool file, used;
		dev_t dev;
		ino_t ino;
		struct timespec c, m; /* its times before the read */
		int pin;
		bool has_interp, interp_system;
		dev_t idev;
		ino_t iino;
		char iname[256];
	} appr[64];
	/* The files the reader allowed a process to open for exec, for
	 * check_image (the decider's are in the process's fan_ok): kept
	 * until the connector's exec or exit event of the process. When
	 * full, the reader leaves programs to the decider. */
	struct fok {
		pid_t tgid;
		dev_t dev;
		ino_t ino;
	} fok[256];
	unsigned nfok, appr_next, interp_next;
	/* The tree's threads other than leaders, by thread id: their process
	 * and its image (struct cw_proc's gen) when the thread was made, so
	 * that an exit the connector reports after the process's exec is
	 * not taken for one of the new image's (on_exit_event). The loop's
	 * (under its lock). */
	struct cw_hmap threads;
	/* The images check_image allowed in this run (device and inode), or
	 * that fanotify allowed a process gone before its image was read:
	 * what a new process may run (check_fork). One that cannot be added
	 * (no memory): its children are killed. */
	struct cw_hmap images;
	/* capwatch's own image: the command's first process runs it until
	 * its exec (a check after a loss must not take it for a stranger). */
	dev_t self_dev;
	ino_t self_ino;
	unsigned long fast_allowed, fast_members, fast_programs; /* the reader's own counts */
	/* For cw_kernel_kill_cgroup(), which the --timeout watchdog thread
	 * calls while the loop may be stuck: an O_WRONLY descriptor of
	 * cgroup.kill, set before any thread starts (the watchdog starts
	 * after the launch) and never changed until the end, so read
	 * without run_lock. */
	int cg_kill_fd;
	/* The exec events the fanotify reader queues for the decider
	 * (fan_reader, fan_decider): the two threads reach it through the
	 * run they are started with, under its own lock. */
	struct fan_queue {
		pthread_mutex_t mu;
		pthread_cond_t cv;
		struct fanotify_event_metadata ev[FANQ];
		unsigned head, n;
	} fq;
};

/* The cgroup v2 mount and capwatch's own group in it. */
static int cgroup2_root(char *mnt, size_t nm, char *own, size_t no)
{
	const char *cands[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	mnt[0] = '\0';
	for (size_t i = 0; i < CW_ARRAY_SIZE(cands); i++) {
		struct statfs sf;
		if (statfs(cands[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
			snprintf(mnt, nm, "%s", cands[i]);
			break;
		}
	}
	if (!mnt[0])
		return -ENOENT;
	return cw_limits_own_cgroup(NULL, own, no);
}

/* Send the proc connector request BODY (LEN bytes: the operation, or
 * the operation and an event mask) on S. 0 or -1 (errno set). */
static int connector_request(int s, const void *body, uint32_t len)
{
	struct __attribute__((aligned(NLMSG_ALIGNTO))) {
		struct nlmsghdr h;
		struct __attribute__((packed)) {
			struct cn_msg m;
			unsigned char body[8];
		} b;
	} msg;
	if (len > sizeof(msg.b.body)) {
		errno = EINVAL;
		return -1;
	}
	memset(&msg, 0, sizeof(msg));
	size_t total = offsetof(__typeof__(msg), b.body) + len;
	msg.h.nlmsg_len = (uint32_t)total;
	msg.h.nlmsg_type = NLMSG_DONE;
	msg.b.m.id.idx = CN_IDX_PROC;
	msg.b.m.id.val = CN_VAL_PROC;
	msg.b.m.len = (uint16_t)len;
	memcpy(msg.b.body, body, len);
	return send(s, &msg, total, 0) < 0 ? -1 : 0;
}

/* A proc connector socket in the current network namespace, listening.
 * -errno; -ECONNREFUSED where the namespace has no connector. */
static int connector_here(void)
{
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	if (s < 0)
		return errno == EPROTONOSUPPORT || errno == EAFNOSUPPORT ? -ECONNREFUSED : -errno;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;
		close(s);
		return e;
	}
	/* Room for a burst of forks: a lost event costs records (the
	 * cgroup keeps membership right), never a decision (e178b: after a
	 * loss every member's image is checked, connector_drain). Tests
	 * make losses happen with a small buffer:
	 * CAPWATCH_TEST_CONNECTOR_RCVBUF=BYTES (the kernel's minimum is a
	 * few messages). */
	int big = 8 << 20;
	const char *knob = getenv("CAPWATCH_TEST_CONNECTOR_RCVBUF");
	if (knob && *knob) {
		char *end;
		long v = strtol(knob, &end, 10);
		if (*end == '\0' && v > 0 && v <= big)
			big = (int)v;
	}
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	uint32_t plain = PROC_CN_MCAST_LISTEN;
	if (connector_request(s, &plain, sizeof(plain)) < 0) {
		int e = -errno;
		close(s);
		return e;
	}
	/* Since 6.6 a listener may say which events it wants: forks, execs
	 * and exits only (the machine's comm, uid, sid... changes would be
	 * read and dropped here, one recv each). Sent after the plain
	 * request, which an older kernel keeps when it ignores this one
	 * (its length is not the plain request's). */
	uint32_t in[2] = { PROC_CN_MCAST_LISTEN, PROC_EVENT_FORK | PROC_EVENT_EXEC | PROC_EVENT_EXIT };
	if (connector_request(s, in, sizeof(in)) < 0) /* struct proc_input */
		cw_debug("proc connector event filter: %s", strerror(errno));
	return s;
}

/* The connector in the network namespace of PID's, made there: -errno,
 * -ECONNREFUSED where it is not the initial one. SELF: capwatch's own
 * namespace, to come back to. */
static int connector_in(pid_t pid, int self)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	_cleanup_close_ int ns = open(p, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET) < 0)
		return -ECONNREFUSED;
	int s = connector_here();
	if (setns(self, CLONE_NEWNET) < 0) {
		/* Never go on in the wrong namespace. */
		cw_err("cannot return to capwatch's network namespace: %s", strerror(errno));
		abort();
	}
	return s;
}

/* The proc connector's socket. It exists only in the initial network
 * namespace (elsewhere the socket may be made, but the kernel side is
 * not there: ECONNREFUSED): capwatch run inside `unshare -n` (as its
 * network tests are) opens it there, for the socket's creation only,
 * through PID 1's namespace, or where PID 1's cannot be opened (a
 * machine whose PID 1 is not capwatch's to inspect), through the first
 * of its ancestors' namespaces that has it (the shell `unshare -n` was
 * run from). The socket only hears the kernel's process events, which
 * are the same in every namespace. */
static int connector_open(void)
{
	int s = connector_here();
	if (s != -ECONNREFUSED)
		return s;
	_cleanup_close_ int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -ECONNREFUSED;
	s = connector_in(1, self);
	pid_t a = cw_proc_parent(getpid());
	for (int up = 0; s == -ECONNREFUSED && a > 1 && up < 64; up++, a = cw_proc_parent(a))
		s = connector_in(a, self);
	return s;
}

int cw_kernel_probe(struct cw_run *run, char *why, size_t n)
{
	(void)run;
	char mnt[256], own[512];
	if (geteuid() != 0) {
		snprintf(why, n, "needs root (CAP_SYS_ADMIN for fanotify and the proc connector)");
		return -EPERM;
	}
	if (cgroup2_root(mnt, sizeof(mnt), own, sizeof(own)) < 0) {
		snprintf(why, n, "no cgroup v2 hierarchy mounted");
		return -ENOENT;
	}
	char probe[900];
	snprintf(probe, sizeof(probe), "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own);
	if (access(probe, W_OK) < 0) {
		snprintf(why, n, "the cgroup v2 group %s is not writable (%s)", probe, strerror(errno));
		return -EACCES;
	}
	int f = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_REPORT_TID, O_RDONLY | O_CLOEXEC);
	if (f < 0) {
		int e = errno;
		snprintf(why, n, "fanotify permission events unavailable (%s)", strerror(e));
		return -e;
	}
	close(f);
	int s = connector_open();
	if (s < 0) {
		snprintf(why, n, "the proc connector is unavailable (%s)", strerror(-s));
		return s;
	}
	/* Listening is not hearing: outside the initial PID namespace the
	 * kernel ignores the listen request and sends nothing (red team).
	 * A fork of our own must be heard. */
	bool heard = false;
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	if (c > 0) {
		/* Every event of the machine comes by: read them all (one
		 * datagram each) until ours, for at most 2 s. */
		char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
		double until = cw_now() + 2.0;
		while (!heard && cw_now() < until) {
			struct pollfd pf = { s, POLLIN, 0 };
			if (poll(&pf, 1, 20) <= 0)
				continue;
			ssize_t len;
			while (!heard) {
				len = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
				if (len < 0 && errno == ENOBUFS) {
					/* Events were dropped: the connector sends
					 * them here (a busy machine, or the tests'
					 * small buffer, e180: ours may be among the
					 * dropped). */
					heard = true;
					break;
				}
				if (len <= 0)
					break;
				for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
				     h = NLMSG_NEXT(h, len)) {
					struct cn_msg *m = NLMSG_DATA(h);
					struct proc_event *e = (struct proc_event *)m->data;
					if (m->id.idx == CN_IDX_PROC && e->what == PROC_EVENT_FORK &&
					    e->event_data.fork.child_pid == c)
						heard = true;
				}
			}
		}
		waitpid(c, NULL, 0);
	}
	close(s);
	if (!heard) {
		snprintf(why, n, "the proc connector sends no events here (not the initial PID namespace?)");
		return -ENOTSUP;
	}
	return 0;
}

/* --- the sentinel: kills the cgroup when capwatch is gone --- */

static int sentinel_start(struct cw_kernel *k)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		/* Nothing but the pipe and cgroup.kill. A byte is a clean end;
		 * end of file without one is capwatch's death. */
		prctl(PR_SET_NAME, "capwatch-sentinel", 0, 0, 0);
		sigset_t all;
		sigfillset(&all);
		sigdelset(&all, SIGKILL);
		sigprocmask(SIG_SETMASK, &all, NULL);
		close(p[1]);
		/* Nothing else of capwatch's: above all not the fanotify
		 * group (its pending events would wait on us) or the
		 * listener. */
		int keep_lo = p[0] < k->cg_kill_fd ? p[0] : k->cg_kill_fd;
		int keep_hi = p[0] < k->cg_kill_fd ? k->cg_kill_fd : p[0];
		for (int fd = 0; fd < 3; fd++)
			if (fd != keep_lo && fd != keep_hi)
				close(fd);
		if (keep_lo > 3)
			syscall(SYS_close_range, 3U, (unsigned)keep_lo - 1, 0U);
		if (keep_hi > keep_lo + 1)
			syscall(SYS_close_range, (unsigned)keep_lo + 1, (unsigned)keep_hi - 1, 0U);
		syscall(SYS_close_range, (unsigned)keep_hi + 1, ~0U, 0U);
		char c;
		ssize_t r;
		while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (r <= 0 && k->cg_kill_fd >= 0) {
			if (write(k->cg_kill_fd, "1", 1) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(p[0]);
	k->sentinel_w = p[1];
	k->sentinel = pid;
	return 0;
}

/* --- membership --- */

bool cw_kernel_in_tree(const struct cw_run *run, pid_t pid)
{
	const struct cw_kernel *k = run->kernel;
	if (!k || pid <= 0)
		return false;
	/* The cgroup is the authority, for every pid: a table entry may be
	 * stale (its exit lost when the connector overflowed, and the pid
	 * reused outside: red team e137). A process cannot leave the group
	 * (moving needs a write to a cgroup.procs, which the handlers decide
	 * like any write outside the workspace: e138; clone3, whose
	 * CLONE_INTO_CGROUP could fork into another, is ENOSYS); a zombie
	 * usually reads as a member until it is reaped (an exiting task was
	 * seen reading as the root's: it has run, it is ending); a child whose fork
	 * event was just read reads as the root's until the kernel attaches
	 * it, and is waited for (cgmember.c). */
	return cw_cgroup_member(k->cg_line, pid);
}

/* SIGKILL the process PID if it is the tree's. The loop reads an event
 * after the fact: by then the process may have exited, been reaped, and
 * its number been taken by another, outside the tree too. A pidfd is
 * taken first, the cgroup read next, and the pidfd's process must still
 * be there (not reaped) after that read, so that the number named it
 * when the cgroup was read; the signal goes through the pidfd. True when
 * sent. */
static bool kill_member(const struct cw_run *run, pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return false;
	bool ok = cw_kernel_in_tree(run, pid) && syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0) == 0 &&
		  syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0;
	close(pfd);
	return ok;
}

/* --- the proc connector --- */

struct thread_of {
	pid_t tgid;
	unsigned gen;
};

#define CW_PF_EXITING 0x00000004UL /* include/linux/sched.h: the task is in do_exit() */

/* Process PID's state letter, flags (its leader's PF_*) and thread count
 * (the tasks not yet released: a zombie leader counts until its whole
 * group is gone) from /proc/PID/stat: false when it cannot be read
 * (gone). A line it cannot parse gives state '?' (its callers fail
 * closed on it). */
static bool stat_of(pid_t pid, char *state, long *nthreads, unsigned long *flags)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (cw_read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	const char *rp = strrchr(buf, ')');
	*state = '?';
	*nthreads = 0;
	*flags = 0;
	if (rp)
		sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld", state,
		       flags, nthreads);
	return true;
}

/* Is TGID alive, not a zombie, and the tree's? For a leader's exit
 * reported after its process's exec (the old leader that another
 * thread's exec ended). */
static bool process_lives(const struct cw_run *run, pid_t tgid)
{
	char state;
	long n;
	unsigned long f;
	return stat_of(tgid, &state, &n, &f) && state != 'Z' && state != 'X' && state != '?' &&
	       cw_kernel_in_tree(run, tgid);
}

static pid_t ns_tid_of(const char *status);
static void fast_forget(struct cw_kernel *k, pid_t tid);
static void fast_forget_process(struct cw_kernel *k, pid_t tgid);
static void check_fork(struct cw_run *run, struct cw_proc *c);

static void on_fork(struct cw_run *run, pid_t parent, pid_t child, pid_t child_tgid)
{
	if (child != child_tgid) {
		/* A thread: its process is what the report lists, and it
		 * lives until its last task's exit (on_exit_event). */
		struct cw_proc *tp = cw_tracker_find(run, child_tgid);
		struct thread_of *t;
		if (tp && tp->alive && cw_hmap_insert(&run->kernel->threads, &child, sizeof(child), (void **)&t) >= 0) {
			t->tgid = child_tgid;
			t->gen = tp->gen;
			tp->threads++;
		}
		return;
	}
	struct cw_proc *pp = cw_tracker_find(run, parent);
	/* Every fork of the machine comes by. While no event was lost the
	 * table is exact (a pid's exit comes before any event of its reuse):
	 * the tree's forks are those of a live entry. After a loss an entry
	 * may be stale (a lost exit, the pid reused outside: e137) and a
	 * member's fork may have no entry: the cgroup decides (a child that
	 * is already gone is then not recorded). Membership decisions never
	 * rest on the table (cw_kernel_in_tree). */
	if (run->kernel->lost) {
		if (!cw_kernel_in_tree(run, child)) {
			if (pp && pp->alive && !cw_kernel_in_tree(run, parent))
				cw_tracker_dead(run, pp);
			return;
		}
	} else if (!pp || !pp->alive) {
		/* Not the fork of a live entry. The tree's all the same when
		 * the cgroup says so and the parent is one a member's fork may
		 * name: capwatch or the namespace's init (CLONE_PARENT names
		 * the caller's parent, e175: the command's, or an orphan's
		 * subreaper), or an entry taken for gone (e177). */
		bool ask = parent == getpid() || (run->ns_init > 0 && parent == run->ns_init) || pp;
		if (!ask || !cw_kernel_in_tree(run, child))
			return;
	}
	struct cw_proc *c = cw_tracker_find(run, child);
	if (c && c->alive) {
		/* A pid is forked only when free: this entry missed its exit
		 * (dropped by the connector). */
		cw_tracker_dead(run, c);
	}
	fast_forget_process(run->kernel, child); /* whatever a pid's last owner left */
	c = cw_tracker_add(run, child);
	if (!c)
		return;
	c->ppid = parent;
	if (run->kernel_reads) {
		char st[64];
		snprintf(st, sizeof(st), "/proc/%d/status", (int)child);
		c->nspid = ns_tid_of(st);
	}
	if (pp && pp->exe)
		c->exe = strdup(pp->exe);
	cw_tracker_trace_spawn(run, c, "fork");
	/* (a fork event read late: the number may be another's by now) */
	cw_limits_new_task(run, child, cw_tracker_nalive(run), kill_member);
	check_fork(run, c);
}

static void record_exec_denial(struct cw_run *run, pid_t pid, const char *path, struct cw_decision *d);

/* D: a process_spawn denial of the file ST, which nothing identifies
 * (builtin:exec-unidentified), for REASON. */
static void unidentified(struct cw_decision *d, const struct stat *st, const char *reason)
{
	memset(d, 0, sizeof(*d));
	d->verdict = d->profile_verdict = CW_DENY;
	d->cap = CW_CAP_PROCESS_SPAWN;
	snprintf(d->scope, sizeof(d->scope), "inode:%u:%u:%llu", major(st->st_dev), minor(st->st_dev),
		 (unsigned long long)st->st_ino);
	snprintf(d->rule, sizeof(d->rule), "builtin:exec-unidentified");
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
	d->next_action = CW_NEXT_CHANGE_COMMAND;
	d->source = CW_SOURCE_PLATFORM_SANDBOX;
	d->err = EPERM;
}


struct image_id {
	uint64_t dev, ino;
};

/* The image process PID runs: /proc/PID/exe (the magic link: the file
 * itself), or, when its leader has exited while other threads run the
 * image (its own link then fails: red team e178), a live thread's. */
static bool image_of(pid_t pid, struct stat *st)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, st) == 0)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	bool found = false;
	while (d && !found && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/exe", (int)pid, e->d_name);
			found = stat(path, st) == 0;
		}
	if (d)
		closedir(d);
	return found;
}

/* The image thread TID (0: none known) of process TGID runs: its own
 * link (its leader may have exited), else image_of's. */
static bool caller_image(pid_t tid, pid_t tgid, struct stat *st)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	return (tid > 0 && stat(path, st) == 0) || image_of(tgid, st);
}

/* Does process PID still run, its image unread (image_of failed)? Its
 * leader alive, or a zombie leader with other threads left: every thread
 * image_of listed may have ended while it looked, a new one each time (a
 * chain of threads that each clone the next and exit: red team e179). A
 * process all of whose threads have ended is a zombie leader alone. */
static bool still_runs(pid_t pid)
{
	char state;
	long n;
	unsigned long flags;
	if (!stat_of(pid, &state, &n, &flags))
		return false;
	/* A process of one task in its exit (PF_EXITING: its memory, and
	 * so its image, already let go) never runs its code again. */
	if (n <= 1 && (flags & CW_PF_EXITING))
		return false;
	/* ('?': cannot tell, fail closed) */
	return (state != 'Z' && state != 'X') || n > 1;
}

/* P runs, and its image cannot be read (still_runs): it is stopped
 * (fail closed), and a note says why. Not a denial: a process whose
 * threads are all ending (a group exit) reads the same, and the kill is
 * then a no-op. */
static void stop_unread(struct cw_run *run, struct cw_proc *p)
{
	if (run->observe)
		return;
	p->condemned = true; /* (even when the kill failed: see condemn) */
	if (!kill_member(run, p->pid))
		return;
	cw_record_note(run, p->pid, "warning", "process %d stopped: its image could not be read while it ran "
		       "(its leader gone, each of its threads ending as capwatch looked)", (int)p->pid);
}

static void image_known(struct cw_kernel *k, dev_t dev, ino_t ino)
{
	struct image_id id = { (uint64_t)dev, (uint64_t)ino };
	if (cw_hmap_insert(&k->images, &id, sizeof(id), NULL) < 0)
		cw_debug("kernel back end: an image not remembered: its new processes will be killed");
}

/* P, whose image check_image could not read (the process gone before
 * its exec event was read): the files fanotify allowed it for that exec
 * become images the run knows, so that a child it forked meanwhile with
 * one of them passes check_fork (and one with anything else does not). */
static void images_of_unread(struct cw_kernel *k, const struct cw_proc *p)
{
	for (unsigned i = 0; i < p->nfan_ok && i < CW_ARRAY_SIZE(p->fan_ok); i++)
		image_known(k, p->fan_ok[i].dev, p->fan_ok[i].ino);
	struct fok mine[CW_ARRAY_SIZE(k->fok)];
	unsigned n = 0;
	pthread_mutex_lock(&k->fast_mu);
	for (unsigned i = 0; i < k->nfok; i++)
		if (k->fok[i].tgid == p->pid)
			mine[n++] = k->fok[i];
	pthread_mutex_unlock(&k->fast_mu);
	for (unsigned i = 0; i < n; i++)
		image_known(k, mine[i].dev, mine[i].ino);
}

/* P runs an image nothing allowed (D): killed, marked, recorded. */
static void condemn(struct cw_run *run, struct cw_proc *p, const struct stat *st, const char *why)
{
	struct cw_decision d;
	unidentified(&d, st, why);
	if (!run->observe) {
		/* Marked even when the kill failed: the entry's process, if
		 * it still runs (a child the kernel had not yet attached to
		 * the cgroup when it was read past cgmember.c's wait), has its
		 * calls refused and is killed again at its first one
		 * (cw_kernel_kill_condemned). An entry whose process is gone is
		 * replaced at the next fork of its number, whose event comes
		 * after its exit's. */
		p->condemned = true;
		if (!kill_member(run, p->pid))
			return; /* gone, or not read as the tree's: not recorded */
	}
	record_exec_denial(run, p->pid, d.scope, &d);
}

void cw_kernel_kill_condemned(struct cw_run *run, pid_t tgid)
{
	if (run->kernel && run->tracker_ops == &cw_tracker_kernel && !run->observe)
		kill_member(run, tgid);
}

/* After the exec: the image must be a file fanotify allowed this process
 * to open for exec. One it never saw came through a mount it does not
 * watch (another process's /proc/PID/root leads into the host's mounts:
 * red team e140; a memfd: e174), decided only on the name the
 * notification read, which another thread can change: killed, and
 * recorded. The check runs at the connector's exec event, read before the
 * process's first notified call (handle_notification), so the image
 * cannot open, connect or exec anything first. An image allowed is known
 * to the run from then on (check_fork). */
static void check_image(struct cw_run *run, struct cw_proc *p)
{
	struct cw_kernel *k = run->kernel;
	struct stat st;
	if (!image_of(p->pid, &st)) {
		if (still_runs(p->pid)) {
			stop_unread(run, p);
			return;
		}
		/* Gone already. A child it forked meanwhile runs the image,
		 * and is checked at its fork event (check_fork). */
		images_of_unread(k, p);
		return;
	}
	bool seen = false;
	for (unsigned i = 0; i < p->nfan_ok && i < CW_ARRAY_SIZE(p->fan_ok) && !seen; i++)
		seen = p->fan_ok[i].dev == st.st_dev && p->fan_ok[i].ino == st.st_ino;
	pthread_mutex_lock(&k->fast_mu);
	for (unsigned i = 0; i < k->nfok && !seen; i++)
		seen = k->fok[i].tgid == p->pid && k->fok[i].dev == st.st_dev && k->fok[i].ino == st.st_ino;
	pthread_mutex_unlock(&k->fast_mu);
	if (seen) {
		image_known(k, st.st_dev, st.st_ino);
		return;
	}
	condemn(run, p, &st, "the image was opened for exec where fanotify does not watch "
			     "(a mount outside the tree's namespace, a memfd)");
}

/* Is ST an image a member may run: one the run allowed (check_image's,
 * the decider's programs: images), one the reader allowed some process
 * of the tree whose exec event has not been read yet (fok, kept until
 * then: a child that exec'd before its fork event was read, red team
 * 17), or capwatch's own in the command's first process before its
 * exec. */
static bool image_allowed(struct cw_run *run, pid_t pid, const struct stat *st)
{
	struct cw_kernel *k = run->kernel;
	struct image_id id = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
	if (cw_hmap_find(&k->images, &id, sizeof(id)))
		return true;
	if (pid == run->child && !run->child_execed && st->st_dev == k->self_dev && st->st_ino == k->self_ino)
		return true;
	bool seen = false;
	pthread_mutex_lock(&k->fast_mu);
	for (unsigned i = 0; i < k->nfok && !seen; i++)
		seen = k->fok[i].dev == st->st_dev && k->fok[i].ino == st->st_ino;
	pthread_mutex_unlock(&k->fast_mu);
	if (seen)
		image_known(k, st->st_dev, st->st_ino);
	return seen;
}

/* A new process C (its fork event): it runs the image of the process
 * that made it, which must be one the run knows (check_image allowed
 * it for some process). Its parent may have been killed for its image
 * already, or gone before its image was read, and a CLONE_PARENT fork
 * names another parent than the one whose image it runs (red team
 * e178): so the child's own image is looked at, before its first
 * notified call. */
static void check_fork(struct cw_run *run, struct cw_proc *c)
{
	struct stat st;
	if (!image_of(c->pid, &st)) {
		if (still_runs(c->pid))
			stop_unread(run, c);
		return; /* gone already (its own children are checked at their forks) */
	}
	if (image_allowed(run, c->pid, &st))
		return;
	condemn(run, c, &st, "a new process runs an image fanotify allowed no process of the tree "
			     "(its parent's, opened for exec where fanotify does not watch)");
}

/* A member the table has no live entry for (its fork not heard, or it
 * was taken for gone): a new entry, its parent read from /proc. */
static struct cw_proc *adopt(struct cw_run *run, pid_t tgid)
{
	struct cw_proc *p = cw_tracker_add(run, tgid);
	if (!p)
		return NULL;
	pid_t pp = cw_proc_parent(tgid);
	if (pp > 0)
		p->ppid = pp;
	return p;
}

static void on_exec(struct cw_run *run, pid_t tgid)
{
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (p && p->alive && run->kernel->lost && !cw_kernel_in_tree(run, tgid)) {
		/* After a loss, a stale entry (its exit lost, the pid reused
		 * outside): not ours, never to be killed or recorded as ours
		 * (e137). Without a loss the table is exact. */
		cw_tracker_dead(run, p);
		return;
	}
	if (!p || !p->alive) {
		/* Not known, or taken for gone: the exec of a member all the
		 * same when the cgroup says so (an exec event proves the
		 * number is live). A member's image that check_image never
		 * looked at could come from a mount fanotify does not watch:
		 * a process taken for gone (e174, e177), one whose fork named
		 * another parent (CLONE_PARENT, e175), or after a loss. */
		if (!cw_kernel_in_tree(run, tgid))
			return;
		p = adopt(run, tgid);
		if (!p)
			return;
	}
	if (p->pid == run->child && !run->child_execed && cw_tracker_holds_listener(p->pid)) {
		kill_member(run, p->pid);
		cw_record_note(run, p->pid, "warning", "the command still held the seccomp listener at exec: killed");
		return;
	}
	/* A new image: the others threads are gone (de_thread), whenever
	 * the connector reports their exits. */
	p->gen++;
	p->threads = 0;
	p->leader_exited = false;
	p->check_leader_exit = p->exec_tid != 0;
	if (p->exec_tid) {
		/* The thread that exec'd is the leader now, under the tgid. */
		pid_t t = p->exec_tid;
		cw_hmap_remove(&run->kernel->threads, &t, sizeof(t));
		p->exec_tid = 0;
	}
	check_image(run, p);
	fast_forget_process(run->kernel, tgid); /* its other threads are gone */
	cw_tracker_record_exec(run, p);
	p->nfan_ok = 0;
}

static void on_exit_event(struct cw_run *run, pid_t pid, pid_t tgid, unsigned code)
{
	struct cw_kernel *k = run->kernel;
	fast_forget(k, pid);
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (pid != tgid) {
		/* A thread of the current image, or of an earlier one (its
		 * exit reported after the exec, e177), or not the tree's. */
		const struct thread_of *t = cw_hmap_find(&k->threads, &pid, sizeof(pid));
		bool current = t && p && p->alive && t->tgid == tgid && t->gen == p->gen;
		if (t)
			cw_hmap_remove(&k->threads, &pid, sizeof(pid));
		if (!current)
			return;
		if (p->threads > 0)
			p->threads--;
	} else {
		if (!p || !p->alive)
			return;
		if (p->check_leader_exit) {
			/* After another thread's exec: the old leader's exit,
			 * reported after the exec event, while the new image
			 * runs under the same number? */
			p->check_leader_exit = false;
			if (process_lives(run, tgid))
				return;
		}
		p->leader_exited = true;
	}
	if (!p->leader_exited || p->threads > 0)
		return; /* (its leader left first: pthread_exit) */
	cw_tracker_exited(run, p, (int)code);
	fast_forget_process(k, tgid); /* (the reader's list too) */
}

/* --- after the connector dropped events (e178b) --- */

/* Member TGID (its thread TID when one is known to live, else 0) after a
 * loss: its exec event may have been dropped, so check_image never saw
 * its image. One the run did not allow is killed and recorded as
 * check_image does; one that cannot be read while the process runs is
 * stopped. False when the process was stopped, or is gone. */
static bool check_after_loss(struct cw_run *run, pid_t tgid, pid_t tid)
{
	if (tgid <= 0 || tgid == run->ns_init)
		return true;
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (p && p->alive && p->condemned)
		return false;
	struct stat st;
	if (!caller_image(tid, tgid, &st)) {
		if (!still_runs(tgid))
			return false;
		if (!p || !p->alive)
			p = adopt(run, tgid);
		if (p)
			stop_unread(run, p);
		return false;
	}
	if (image_allowed(run, tgid, &st))
		return true;
	if (!p || !p->alive)
		p = adopt(run, tgid);
	if (p)
		condemn(run, p, &st, "after the proc connector dropped events, a member runs an image "
				     "fanotify allowed no process of the tree (an exec whose event was dropped)");
	return false;
}

struct cw_proc *cw_kernel_adopt_caller(struct cw_run *run, pid_t tid, pid_t tgid)
{
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if ((p && p->alive) || !run->kernel || run->tracker_ops != &cw_tracker_kernel || tgid <= 0 ||
	    tgid == run->ns_init)
		return p;
	p = adopt(run, tgid);
	if (!p)
		return NULL;
	/* (the caller's own link: its leader may have exited) */
	if (!p->exe)
		p->exe = cw_tracker_read_exe(tid);
	if (!p->exe)
		p->exe = cw_tracker_read_exe(tgid);
	/* A process capwatch did not hear of (its fork event not taken for
	 * the tree's, or the process taken for gone) was never checked at a
	 * fork or exec event: its image must be one the run allowed, as
	 * check_fork asks of every new process, before its call is
	 * decided. */
	struct stat st;
	if (!caller_image(tid, tgid, &st)) {
		if (still_runs(tgid))
			stop_unread(run, p);
	} else if (!image_allowed(run, tgid, &st)) {
		condemn(run, p, &st, "a process capwatch had not heard of runs an image fanotify allowed no "
				     "process of the tree (opened for exec where fanotify does not watch)");
	}
	return p;
}

/* At each loss: every member of the cgroup, its image checked. */
static void sweep_after_loss(struct cw_run *run)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/cgroup.procs", run->kernel->cg_dir);
	FILE *f = fopen(p, "re");
	if (!f)
		return;
	int pid;
	while (fscanf(f, "%d", &pid) == 1)
		check_after_loss(run, pid, 0);
	fclose(f);
}

bool cw_kernel_caller_checked(struct cw_run *run, pid_t tid, pid_t tgid)
{
	struct cw_kernel *k = run->kernel;
	/* (observe: the sweep records what would be killed, once a loss;
	 * every call of the process would record it again here) */
	if (!k || run->observe || !__atomic_load_n(&k->lost, __ATOMIC_RELAXED))
		return true;
	return check_after_loss(run, tgid, tid);
}

/* Everything queued on the connector, without waiting. */
static void connector_drain(struct cw_run *run)
{
	struct cw_kernel *k = run->kernel;
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool sweep = false;
	for (;;) {
		ssize_t len = recv(k->cn, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == ENOBUFS) {
			/* Events were dropped: the exits among them are lost;
			 * membership stays right (the cgroup decides). */
			if (__atomic_fetch_add(&k->lost, 1, __ATOMIC_RELAXED) == 0)
				cw_record_note(run, 0, "warning", "the proc connector dropped events: some "
					    "processes may lack their fork, exec or exit record");
			/* Exits may be among them: whoever is no longer in the
			 * group is gone. */
			for (size_t i = 0; i < cw_tracker_count(run); i++) {
				struct cw_proc *p = cw_tracker_at(run, i);
				if (p->alive && !cw_kernel_in_tree(run, p->pid))
					cw_tracker_dead(run, p);
			}
			/* And execs: every member's image is checked once
			 * what is queued has been read (e178b). */
			sweep = true;
			continue;
		}
		if (len <= 0) {
			if (sweep)
				sweep_after_loss(run);
			return;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_NOOP)
				continue;
			struct cn_msg *m = NLMSG_DATA(h);
			if (m->id.idx != CN_IDX_PROC || m->len < sizeof(struct proc_event) -
								 sizeof(((struct proc_event *)0)->event_data))
				continue;
			struct proc_event *e = (struct proc_event *)m->data;
			switch (e->what) {
			case PROC_EVENT_FORK:
				on_fork(run, e->event_data.fork.parent_tgid, e->event_data.fork.child_pid,
					e->event_data.fork.child_tgid);
				break;
			case PROC_EVENT_EXEC:
				on_exec(run, e->event_data.exec.process_tgid);
				break;
			case PROC_EVENT_EXIT:
				on_exit_event(run, e->event_data.exit.process_pid,
					      e->event_data.exit.process_tgid, e->event_data.exit.exit_code);
				break;
			default:
				break;
			}
		}
	}
}

void cw_kernel_sync(struct cw_run *run)
{
	if (run->kernel && run->tracker_ops == &cw_tracker_kernel)
		connector_drain(run);
}

static void on_connector(struct cw_run *run, int fd, uint32_t events)
{
	(void)fd;
	(void)events;
	connector_drain(run);
}

static bool cgroup_populated(const struct cw_kernel *k)
{
	char buf[256];
	ssize_t n = pread(k->cg_events, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false; /* the group is gone */
	buf[n] = '\0';
	const char *s = strstr(buf, "populated ");
	return !s || s[10] != '0';
}

static void on_cgroup_events(struct cw_run *run, int fd, uint32_t events)
{
	(void)events;
	/* A change is pending until the file is read again (kernfs keeps
	 * EPOLLPRI up): read it, or the loop would spin. Whether the tree is
	 * empty is the loop's test (kernel_alive). */
	char buf[256];
	if (pread(fd, buf, sizeof(buf), 0) < 0)
		cw_debug("cgroup.events: %s", strerror(errno));
	connector_drain(run);
}

/* --- execs, decided on the file opened (fanotify) --- */

/* The PT_INTERP of the ELF file open at FD, as its device and inode (as
 * capwatch sees the path: the tree's mounts are copies of capwatch's).
 * false when it has none. */
static bool elf_interp(int fd, struct stat *out, char *out_name, size_t out_n)
{
	unsigned char eh[64];
	if (pread(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return false;
	uint64_t phoff;
	unsigned phentsize, phnum;
	bool is64 = eh[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr h;
		memcpy(&h, eh, sizeof(h));
		phoff = h.e_phoff, phentsize = h.e_phentsize, phnum = h.e_phnum;
	} else if (eh[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;
		memcpy(&h, eh, sizeof(h));
		phoff = h.e_phoff, phentsize = h.e_phentsize, phnum = h.e_phnum;
	} else {
		return false;
	}
	if (phnum == 0 || phnum > 128 || phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
	    phentsize > 256)
		return false;
	for (unsigned i = 0; i < phnum; i++) {
		unsigned char ph[256];
		if (pread(fd, ph, phentsize, (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)phentsize)
			return false;
		uint64_t off, size;
		uint32_t type;
		if (is64) {
			Elf64_Phdr p;
			memcpy(&p, ph, sizeof(p));
			type = p.p_type, off = p.p_offset, size = p.p_filesz;
		} else {
			Elf32_Phdr p;
			memcpy(&p, ph, sizeof(p));
			type = p.p_type, off = p.p_offset, size = p.p_filesz;
		}
		if (type != PT_INTERP)
			continue;
		char name[PATH_MAX];
		if (size < 2 || size > sizeof(name))
			return false;
		if (pread(fd, name, size, (off_t)off) != (ssize_t)size || name[size - 1] != '\0')
			return false;
		if (size > out_n)
			return false;
		memcpy(out_name, name, size);
		return name[0] == '/' && stat(name, out) == 0;
	}
	return false;
}

/* The slot of the thread TID of TGID (its exec's two events come from
 * the thread that execs: FAN_REPORT_TID). A slot is the thread's alone:
 * another thread's, left by an exec the kernel refused after the
 * program's event (ENOEXEC), must not vouch for this one's (red team
 * e170). */
static struct interp *interp_slot(struct cw_kernel *k, pid_t tgid, pid_t tid)
{
	for (unsigned i = 0; i < k->ninterp; i++)
		if (k->interp[i].tgid == tgid && k->interp[i].tid == tid)
			return &k->interp[i];
	return NULL;
}

/* Under fast_mu: a new slot for the thread TID of TGID, filled from
 * SLOT; what it replaces (the thread's older one, or the oldest of a
 * full table) has its descriptor put in *OLD (else -1), to be closed
 * when the lock is let go. */
static void interp_set(struct cw_kernel *k, const struct interp *slot, int *old)
{
	struct interp *ip = interp_slot(k, slot->tgid, slot->tid);
	if (!ip) {
		for (unsigned i = 0; i < k->ninterp && !ip; i++)
			if (k->interp[i].tid == 0 && k->interp[i].tgid == 0)
				ip = &k->interp[i];
	}
	if (!ip && k->ninterp < CW_ARRAY_SIZE(k->interp))
		ip = &k->interp[k->ninterp++];
	if (!ip) {
		ip = &k->interp[k->interp_next++ % CW_ARRAY_SIZE(k->interp)];
	}
	*old = ip->prog;
	*ip = *slot;
}

/* The image PROG still what it was when its change and modification
 * times were C and M? It is read at the loader's event, when the kernel
 * holds the image against writes; a write since the times were taken
 * changed them (the file systems that keep fine-grained times: ext4,
 * xfs, btrfs, tmpfs since Linux 6.13; elsewhere a write in the same
 * clock tick is not seen: SECURITY.md). As cached: no file system is
 * asked. */
static bool timespec_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool prog_unchanged(int prog, const struct timespec *c, const struct timespec *m)
{
	struct statx sx;
	if (prog < 0 || statx(prog, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_CTIME | STATX_MTIME, &sx) < 0 ||
	    (sx.stx_mask & (STATX_CTIME | STATX_MTIME)) != (STATX_CTIME | STATX_MTIME))
		return false;
	return sx.stx_ctime.tv_sec == c->tv_sec && sx.stx_ctime.tv_nsec == (uint32_t)c->tv_nsec &&
	       sx.stx_mtime.tv_sec == m->tv_sec && sx.stx_mtime.tv_nsec == (uint32_t)m->tv_nsec;
}

static struct approval *approval_of(struct cw_kernel *k, pid_t tid);

static void record_exec_denial(struct cw_run *run, pid_t pid, const char *path, struct cw_decision *d)
{
	run->denials++;
	struct cw_proc *p = cw_tracker_find(run, pid);
	struct cw_denial_record dr = {
		.pid = pid, .program = p && p->exe ? p->exe : path, .syscall = "execve", .d = d,
		.time = cw_record_time(run), .enforced = !run->observe, .proc = p && p->alive ? p->serial : 0,
	};
	cw_report_add_denial(run->report, &dr);
	if (!run->have_denial && !run->observe) {
		run->have_denial = true;
		run->first_denial = *d;
	}
	/* The command's own exec (its #! interpreter, say): it never ran. */
	if (!run->observe && pid == run->child && !run->child_execed)
		run->start_denied = true;
	cw_record_note(run, pid, "warning", "exec of %s %s at the file the kernel opened (%s)", path,
		    run->observe ? "would be denied" : "denied", d->rule);
}

/* P was allowed to open ST for exec (check_image). */
static void fan_ok(struct cw_proc *p, const struct stat *st)
{
	if (!p)
		return;
	if (p->nfan_ok == CW_ARRAY_SIZE(p->fan_ok)) {
		memmove(&p->fan_ok[0], &p->fan_ok[1], sizeof(p->fan_ok[0]) * (p->nfan_ok - 1));
		p->nfan_ok--;
	}
	p->fan_ok[p->nfan_ok].dev = st->st_dev;
	p->fan_ok[p->nfan_ok].ino = st->st_ino;
	p->nfan_ok++;
}

/* The name the kernel gives the file of a fanotify event's descriptor FD,
 * into PATH (N bytes, not terminated): its length, or -1 (errno set). */
static ssize_t event_name(int fd, char *path, size_t n)
{
	char lp[64];
	snprintf(lp, sizeof(lp), "/proc/self/fd/%d", fd);
	return readlink(lp, path, n - 1);
}

/* One FAN_OPEN_EXEC_PERM event of a member: FAN_ALLOW or FAN_DENY. No
 * ignore marks: every exec must reach check_image's list (an allowed
 * program's inode with a mark also hid which loader its exec opened). */
static unsigned decide_exec(struct cw_run *run, const struct fanotify_event_metadata *m)
{
	struct cw_kernel *k = run->kernel;
	pid_t tgid, ppid;
	k->exec_events++;
	/* m->pid: the thread (FAN_REPORT_TID); gone, or unreadable: denied */
	if (!cw_tracker_ids(run, m->pid, &tgid, &ppid))
		return FAN_DENY;
	struct stat st;
	if (m->fd < 0 || fstat(m->fd, &st) < 0)
		return FAN_DENY;
	char path[PATH_MAX];
	ssize_t len = event_name(m->fd, path, sizeof(path));
	path[len > 0 ? len : 0] = '\0';
	struct stat ns;
	bool named = len > 0 && path[0] == '/' && stat(path, &ns) == 0 && ns.st_dev == st.st_dev &&
		     ns.st_ino == st.st_ino;

	struct cw_proc *p = cw_tracker_find(run, tgid);
	char iname[256];
	struct interp slot = { .prog = -1 };
	pthread_mutex_lock(&k->fast_mu);
	struct interp *ip = interp_slot(k, tgid, m->pid);
	bool is_interp = ip && ip->dev == st.st_dev && ip->ino == st.st_ino;
	if (is_interp) {
		slot = *ip; /* taken, its descriptor with it */
		ip->tgid = ip->tid = 0;
		ip->prog = -1;
		snprintf(iname, sizeof(iname), "%s", slot.name);
	}
	/* The thread's first exec event since its notification: the file
	 * the allowed name named then, held since (cw_kernel_exec_allowed)?
	 * An approval serves that one event (e135). */
	struct approval *a = approval_of(k, m->pid);
	bool approved = a && a->file && a->dev == st.st_dev && a->ino == st.st_ino;
	if (a)
		a->used = true;
	pthread_mutex_unlock(&k->fast_mu);
	if (is_interp) {
		fan_ok(p, &st);
		/* The PT_INTERP of the image allowed just before, the very file
		 * its name led to when capwatch looked (in a chroot the
		 * descriptor's path may not be one). The system's dynamic
		 * loader is part of that program (the notification decided the
		 * program), when the image the kernel loaded is the one whose
		 * PT_INTERP was read: rewritten since (a #! script naming the
		 * loader), the loader is a program of its own. Any other file
		 * is a program of its own too, decided below by that name like
		 * a #! interpreter (red team e134). (The reader answers the
		 * first case itself as a rule: fan_fast.) */
		bool same = prog_unchanged(slot.prog, &slot.prog_c, &slot.prog_m);
		if (slot.prog >= 0)
			close(slot.prog);
		if (same && cw_tracker_system_loader(iname, &st))
			return FAN_ALLOW;
		if (!named) {
			snprintf(path, sizeof(path), "%s", iname);
			named = true;
		}
	}
	bool allowed = false;
	struct cw_decision d;
	if (approved && !is_interp) {
		/* The very file the exec notification's allowed name named
		 * (a memfd or deleted file too: fexecve names it by its
		 * descriptor), as the reader allows it (fan_fast). */
		allowed = true;
	} else if (named) {
		/* By its name while the name names it, as the exec stop does. */
		struct cw_op op = { .kind = CW_OP_EXEC, .syscall = "execve", .path = path };
		cw_policy_decide(run->profile, &run->ctx, &op, &d);
		allowed = d.verdict == CW_ALLOW;
	} else {
		unidentified(&d, &st, "the file the kernel opened for exec has no name that names it, "
			     "and no allowed exec named it");
	}
	if (!allowed) {
		k->exec_denied++;
		record_exec_denial(run, tgid, named ? path : d.scope, &d);
		if (!run->observe)
			return FAN_DENY;
		fan_ok(p, &st); /* observe: recorded once, here */
		return FAN_ALLOW;
	}
	fan_ok(p, &st);
	/* A program the tree may run, whether or not its exec event comes
	 * (its entry may be missing after a loss: e178b). */
	image_known(k, st.st_dev, st.st_ino);
	struct stat is;
	/* (st was taken before the read: its times are the slot's) */
	if (S_ISREG(st.st_mode) && elf_interp(m->fd, &is, iname, sizeof(iname))) {
		memset(&slot, 0, sizeof(slot));
		slot.tgid = tgid;
		slot.tid = m->pid; /* the thread that execs (FAN_REPORT_TID) */
		slot.dev = is.st_dev;
		slot.ino = is.st_ino;
		slot.system = cw_tracker_system_loader(iname, &is);
		snprintf(slot.name, sizeof(slot.name), "%s", iname);
		slot.prog = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
		slot.prog_c = st.st_ctim;
		slot.prog_m = st.st_mtim;
		int old;
		pthread_mutex_lock(&k->fast_mu);
		interp_set(k, &slot, &old);
		pthread_mutex_unlock(&k->fast_mu);
		if (old >= 0)
			close(old);
	}
	return FAN_ALLOW;
}

/* One FAN_OPEN_PERM event of a member (CAPWATCH_KERNEL_READS): a read-only
 * open the filter passed, or the read side of any other open. Decided
 * like fs_open.c decides a read, on the file the kernel opened: its name
 * (a secret by name), its inode (a secret known under another name,
 * secret_ids.h) and its first bytes (a private key, keys.h); recorded as
 * an "open" with "via": "fanotify". An allowed inode gets an ignore mark,
 * so its next opens pass without an event, unless other names may lead
 * to it (a hard link: the other name may be a secret's) or it is a
 * secret (observe); a write to it clears the mark, and so does any name
 * the tree makes (cw_kernel_names_changed). FAN_ALLOW or FAN_DENY. */
static unsigned decide_read(struct cw_run *run, const struct fanotify_event_metadata *m)
{
	struct cw_kernel *k = run->kernel;
	k->read_events++;
	struct stat st;
	pid_t tgid, ppid;
	/* m->pid: the thread (FAN_REPORT_TID); gone, or unreadable: denied */
	if (m->fd < 0 || fstat(m->fd, &st) < 0 || !cw_tracker_ids(run, m->pid, &tgid, &ppid))
		return FAN_DENY;
	char path[PATH_MAX];
	ssize_t len = event_name(m->fd, path, sizeof(path));
	const char *long_name = len < 0 && errno == ENAMETOOLONG ? cw_fs_long_name(run, m->fd) : NULL;
	bool nameless = false; /* deeper than PATH_MAX, and no name known */
	if (long_name) {
		/* Deeper than PATH_MAX, opened for the tree by capwatch under
		 * that whole name (a file it made or wrote down there), which
		 * still names it: decided on it, as the portable back end does. */
		path[0] = '\0';
	} else if (len < 0 && errno == ENAMETOOLONG) {
		/* Deeper than PATH_MAX (e113): no name the kernel will give.
		 * Decided on what names it otherwise: its inode (a secret
		 * known by name, secret_ids.h: the workspace and home, and
		 * every secret name the tree made) and its content.
		 * SECURITY.md. */
		nameless = true;
		len = snprintf(path, sizeof(path), "/(a name longer than PATH_MAX)/inode:%u:%u:%llu",
			       major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
	} else if (len <= 0 || path[0] != '/') {
		/* No path to decide on (cannot happen for a file opened by a
		 * name): fail closed. */
		k->read_denied++;
		return FAN_DENY;
	} else {
		path[len] = '\0';
	}
	/* The name now, not the one the tree opened: removed or renamed
	 * over since (e151), it reads "NAME (deleted)". Decided as NAME,
	 * and on identity whatever the links. */
	bool unsure = st.st_nlink == 0 || nameless;
	size_t pl = long_name ? 0 : strlen(path);
	if (pl > 10 && strcmp(path + pl - 10, " (deleted)") == 0) {
		path[pl - 10] = '\0';
		unsure = true;
	}
	const char *dp = long_name ? long_name : path; /* the name decided */

	struct seccomp_notif req;
	memset(&req, 0, sizeof(req));
	req.pid = (uint32_t)m->pid;
	struct cw_notif n = { .run = run, .req = &req, .tid = m->pid, .tgid = tgid, .ppid = ppid, .syscall = "open" };
	/* (its process now: deciding may read the connector again, as for
	 * a notification: notify.c identify_caller) */
	const struct cw_proc *caller = cw_tracker_find(run, tgid);
	n.proc = caller && caller->alive ? caller->serial : 0;
	struct cw_event ev;
	cw_event_init(&ev, "open");
	ev.via = "fanotify";
	ev.op.kind = CW_OP_OPEN_READ;
	ev.op.path = dp;
	ev.checked = true;
	/* A *.pem or *.key holding no private key (a certificate) is not a
	 * secret (fs_open.c, note_key_free): this is the very file opened. */
	if (cw_path_secret_by_key_name(&run->ctx, dp))
		ev.op.key_free = S_ISREG(st.st_mode) && st.st_size <= (off_t)(4u << 20) &&
				 cw_keys_scan_fd(m->fd, 4u << 20) == 0 &&
				 !cw_secret_ids_key_held(run, st.st_dev, st.st_ino);
	bool secret_name = cw_path_is_secret(&run->ctx, dp) && !ev.op.key_free;
	char alias[PATH_MAX + 64];
	const char *name = secret_name ? NULL
				       : unsure ? cw_secret_ids_find_any(run, &st) : cw_secret_ids_find(run, &st);
	const char *linked = secret_name || name ? NULL : cw_secret_ids_linked(run, dp);
	if (name) {
		snprintf(alias, sizeof(alias), "the same file as the secret %s", name);
		ev.op.alias = alias;
	} else if (linked) {
		/* A home's secret place reached through a symbolic link: the
		 * kernel names its target (e157). */
		snprintf(alias, sizeof(alias), "the secret %s, through a symbolic link", linked);
		ev.op.alias = alias;
	} else if (!secret_name && S_ISREG(st.st_mode) && cw_secret_ids_key_held(run, st.st_dev, st.st_ino)) {
		/* A private key when the tree opened it to write (e167). */
		ev.op.alias = "a file that held a private key";
	} else if (!secret_name && S_ISREG(st.st_mode) && cw_keys_worth_scanning(dp, st.st_size) &&
		   cw_keys_scan_fd(m->fd, cw_keys_scan_size(st.st_size)) == 1) {
		ev.op.alias = "a file holding a private key";
	} else if (!secret_name && !S_ISDIR(st.st_mode) && nameless) {
		/* No name, and no secret known by this inode: a .env that was
		 * deeper than PATH_MAX before the run is not known by inode
		 * (e165). Whether it is a secret cannot be told: read as one
		 * (fail closed; the portable back end decides on the name). */
		ev.op.alias = "a file with no name shorter than PATH_MAX, which may be a secret's";
	}
	bool allowed = cw_event_decide(&n, &ev);
	if (!allowed) {
		/* What the open fails with: fanotify's FAN_DENY is EPERM
		 * (kernel_attach: FAN_DENY_ERRNO is for HSM groups only). */
		ev.err = EPERM;
		ev.verified = true;
	}
	cw_event_record(&n, &ev);
	if (!allowed) {
		k->read_denied++;
		return FAN_DENY;
	}
	/* Other names of a file with several may be a secret's, decided by
	 * name: no mark, but for the package-managed /usr, whose files an
	 * image often hard-links (every open of libc would be an event). */
	bool quiet = ev.d.verdict == CW_ALLOW && !secret_name && !ev.op.alias && !unsure &&
		     (S_ISDIR(st.st_mode) || st.st_nlink == 1 || strncmp(dp, "/usr/", 5) == 0);
	if (quiet) {
		/* A directory's ignore mark must survive modification (the
		 * kernel refuses it otherwise: EISDIR): a new entry changes
		 * no name of the directory's own, and renames flush. */
		bool dir = S_ISDIR(st.st_mode);
		uint64_t mask = dir ? FAN_OPEN_PERM | FAN_ONDIR : FAN_OPEN_PERM;
		unsigned flags = FAN_MARK_ADD | FAN_MARK_IGNORE | (dir ? FAN_MARK_IGNORED_SURV_MODIFY : 0);
		if (fanotify_mark(k->fan, flags, mask, m->fd, NULL) == 0)
			k->read_marked++;
		else
			cw_debug("fanotify ignore mark: %s", strerror(errno));
	}
	return FAN_ALLOW;
}

/* Two threads serve the fanotify group. The reader answers capwatch's own
 * events at once and queues the tree's; the decider takes the loop's lock
 * and decides them. Deciding opens files (/proc, the ELF of an image...),
 * some on the tree's mounts: their events are capwatch's own, and only a
 * thread that never waits for anything but the group may answer those.
 * Between them, the queue k->fq (struct cw_kernel). */

static void fan_respond(int fan, int fd, unsigned response)
{
	struct fanotify_response r = { .fd = fd, .response = response };
	while (write(fan, &r, sizeof(r)) < 0 && errno == EINTR)
		;
	close(fd);
}

/* Under fast_mu: drop the loader slots of the thread TID, or of every
 * thread of TGID (either <= 0: not that way); their descriptors go in
 * FDS (as many as slots), to be closed when the lock is let go. Their
 * count. */
static unsigned drop_slots(struct cw_kernel *k, pid_t tid, pid_t tgid, int *fds)
{
	unsigned n = 0;
	for (unsigned i = 0; i < k->ninterp; i++) {
		struct interp *ip = &k->interp[i];
		if ((ip->tid == 0 && ip->tgid == 0) ||
		    !((tid > 0 && ip->tid == tid) || (tgid > 0 && ip->tgid == tgid)))
			continue;
		ip->tid = ip->tgid = 0;
		if (ip->prog >= 0)
			fds[n++] = ip->prog;
		ip->prog = -1;
	}
	return n;
}

#define NAPPR CW_ARRAY_SIZE(((struct cw_kernel *)0)->appr)

/* Under fast_mu: the approval of the thread TID that its exec event has
 * not taken yet, or NULL. */
static struct approval *approval_of(struct cw_kernel *k, pid_t tid)
{
	for (unsigned i = 0; i < NAPPR; i++)
		if (k->appr[i].tid == tid && !k->appr[i].used)
			return &k->appr[i];
	return NULL;
}

/* Under fast_mu: free the approvals of the thread TID, or of every
 * thread of TGID (either <= 0: not that way); their pins are put in
 * PINS (NAPPR of them), to be closed when the lock is let go
 * (close_pins): no system call under fast_mu. Their count. */
static unsigned drop_approvals(struct cw_kernel *k, pid_t tid, pid_t tgid, int *pins)
{
	unsigned n = 0;
	for (unsigned i = 0; i < NAPPR; i++) {
		struct approval *a = &k->appr[i];
		if (a->tid == 0 || !((tid > 0 && a->tid == tid) || (tgid > 0 && a->tgid == tgid)))
			continue;
		if (a->pin >= 0)
			pins[n++] = a->pin;
		memset(a, 0, sizeof(*a));
		a->pin = -1;
	}
	return n;
}

static void close_pins(const int *pins, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		close(pins[i]);
}

/* The tree's thread TID of TGID is having its execve or execveat
 * continued (handlers/exec.c): it is a member of the tree (only the
 * tree's threads carry the filter that notified it), and when ST is not
 * NULL the profile allowed the name that named the file ST, which PIN (an
 * O_PATH descriptor of it, taken over here; -1 with ST NULL) holds.
 * Its exec's first fanotify event then needs no cgroup test, and when
 * it opens that very file, neither the decider (fan_fast). The ELF
 * interpreter that file names is read now, as decide_exec reads it at
 * the event: the slot the loader's event is answered from. */
void cw_kernel_exec_allowed(struct cw_run *run, pid_t tid, pid_t tgid, int pin, const struct stat *st)
{
	struct cw_kernel *k = run->kernel;
	if (!k || tid <= 0) {
		if (pin >= 0)
			close(pin);
		return;
	}
	/* (the caller holds the loop's lock: the table is ours) */
	struct cw_proc *p = cw_tracker_find(run, tgid);
	if (p && p->alive && tid != tgid)
		p->exec_tid = tid; /* its old leader's exit may follow the exec (on_exit_event) */
	struct approval n;
	memset(&n, 0, sizeof(n));
	n.tid = tid;
	n.tgid = tgid;
	n.pin = -1;
	if (st && pin >= 0 && S_ISREG(st->st_mode)) {
		/* Read as the decider reads the event's descriptor; a file
		 * capwatch cannot read here is left to the decider. */
		char lp[64];
		snprintf(lp, sizeof(lp), "/proc/self/fd/%d", pin);
		int rfd = open(lp, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct stat rs, is;
		if (rfd >= 0 && fstat(rfd, &rs) == 0 && rs.st_dev == st->st_dev && rs.st_ino == st->st_ino) {
			n.file = true;
			n.dev = st->st_dev;
			n.ino = st->st_ino;
			n.c = st->st_ctim; /* (taken before the read: prepare_exec) */
			n.m = st->st_mtim;
			n.has_interp = elf_interp(rfd, &is, n.iname, sizeof(n.iname));
			if (n.has_interp) {
				n.idev = is.st_dev;
				n.iino = is.st_ino;
				n.interp_system = cw_tracker_system_loader(n.iname, &is);
			}
		}
		if (rfd >= 0)
			close(rfd);
	}
	if (n.file) {
		n.pin = pin;
		pin = -1;
	}
	int pins[NAPPR + 1];
	unsigned np = 0;
	int fds[CW_ARRAY_SIZE(k->interp)];
	pthread_mutex_lock(&k->fast_mu);
	/* A new exec of the thread: what an earlier one left (a program
	 * the kernel refused before its loader was opened, an exec that
	 * failed before any event) is stale. */
	unsigned nf = drop_slots(k, tid, 0, fds);
	np = drop_approvals(k, tid, 0, pins);
	struct approval *slot = NULL;
	for (unsigned i = 0; i < NAPPR && !slot; i++)
		if (k->appr[i].tid == 0)
			slot = &k->appr[i];
	for (unsigned i = 0; i < NAPPR && !slot; i++)
		if (k->appr[i].used)
			slot = &k->appr[i];
	if (!slot) {
		/* Every entry an exec still to come (64 threads execing at
		 * once): the oldest goes to the decider, by name. */
		slot = &k->appr[k->appr_next++ % NAPPR];
	}
	if (slot->pin >= 0)
		pins[np++] = slot->pin;
	*slot = n;
	pthread_mutex_unlock(&k->fast_mu);
	close_pins(pins, np);
	close_pins(fds, nf);
	if (pin >= 0)
		close(pin);
}

/* The thread TID is gone (the connector's exit event): an entry it left
 * in the fast tables must not vouch for whoever gets its number next. */
static void fast_forget(struct cw_kernel *k, pid_t tid)
{
	int pins[NAPPR], fds[CW_ARRAY_SIZE(k->interp)];
	pthread_mutex_lock(&k->fast_mu);
	unsigned np = drop_approvals(k, tid, 0, pins);
	unsigned nf = drop_slots(k, tid, 0, fds);
	pthread_mutex_unlock(&k->fast_mu);
	close_pins(pins, np);
	close_pins(fds, nf);
}

/* The process TGID has a new image (the connector's exec event), or the
 * number is a new process's (its fork): what its threads left is stale,
 * and so are the files the reader allowed it (check_image has looked). */
static void fast_forget_process(struct cw_kernel *k, pid_t tgid)
{
	int pins[NAPPR], fds[CW_ARRAY_SIZE(k->interp)];
	pthread_mutex_lock(&k->fast_mu);
	unsigned np = drop_approvals(k, 0, tgid, pins);
	unsigned nf = drop_slots(k, 0, tgid, fds);
	unsigned j = 0;
	for (unsigned i = 0; i < k->nfok; i++)
		if (k->fok[i].tgid != tgid)
			k->fok[j++] = k->fok[i];
	k->nfok = j;
	pthread_mutex_unlock(&k->fast_mu);
	close_pins(pins, np);
	close_pins(fds, nf);
}

/* What the reader answers itself, without the loop's lock, the decider's
 * hand-over or a look up of any name (each was a wake-up of another
 * thread on the path of every exec), on the file's device and inode as
 * cached (AT_STATX_DONT_SYNC: no file system is asked, so the reader
 * cannot be made to wait on one) and the thread (FAN_REPORT_TID):
 *  - an exec's first event, the very file that the thread's exec
 *    notification allowed by its name, held since by the approval's
 *    pin (cw_kernel_exec_allowed); recorded for check_image, and its
 *    PT_INTERP read then becomes the thread's loader slot;
 *  - its second, the system's dynamic loader that this program names as
 *    its PT_INTERP - the decider's own first answer for it
 *    (decide_exec), on the same facts: the file, its owner and mode, and
 *    the name capwatch looked up.
 * True when answered (FAN_ALLOW). *MEMBER: otherwise, whether the event
 * is the first of an exec whose notification the tree's thread made,
 * which spares the reader the cgroup test. */
static bool fan_fast(struct cw_kernel *k, const struct fanotify_event_metadata *m, bool *member)
{
	*member = false;
	/* After the connector dropped events, an exit may be among them: an
	 * entry could then outlive its thread, and its number be another's
	 * (e137). The cgroup and the decider answer from then on. */
	if (!(m->mask & FAN_OPEN_EXEC_PERM) || m->pid <= 0 || __atomic_load_n(&k->lost, __ATOMIC_RELAXED))
		return false;
	bool want = false;
	pthread_mutex_lock(&k->fast_mu);
	for (unsigned i = 0; i < k->ninterp && !want; i++)
		want = k->interp[i].tid == m->pid && k->interp[i].system;
	const struct approval *pa = approval_of(k, m->pid);
	want = want || (pa && pa->file);
	pthread_mutex_unlock(&k->fast_mu);
	struct statx sx;
	const unsigned need = STATX_TYPE | STATX_MODE | STATX_UID | STATX_INO | STATX_CTIME | STATX_MTIME;
	bool have = want && statx(m->fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, need, &sx) == 0 &&
		    (sx.stx_mask & need) == need;
	struct stat st;
	memset(&st, 0, sizeof(st));
	if (have) {
		st.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		st.st_ino = (ino_t)sx.stx_ino;
		st.st_mode = sx.stx_mode;
		st.st_uid = sx.stx_uid;
		st.st_ctim.tv_sec = sx.stx_ctime.tv_sec;
		st.st_ctim.tv_nsec = sx.stx_ctime.tv_nsec;
		st.st_mtim.tv_sec = sx.stx_mtime.tv_sec;
		st.st_mtim.tv_nsec = sx.stx_mtime.tv_nsec;
	}
	bool allow = false, loader = false;
	struct interp taken = { .prog = -1 };
	int old = -1;
	pthread_mutex_lock(&k->fast_mu);
	for (unsigned i = 0; have && i < k->ninterp && !loader; i++) {
		struct interp *ip = &k->interp[i];
		if (ip->tid == m->pid && ip->system && ip->dev == st.st_dev && ip->ino == st.st_ino &&
		    cw_tracker_system_loader(ip->name, &st)) {
			taken = *ip; /* its descriptor with it */
			ip->tid = ip->tgid = 0;
			ip->prog = -1;
			loader = true;
		}
	}
	struct approval *a = loader ? NULL : approval_of(k, m->pid);
	if (a) {
		*member = true;
		if (have && a->file && a->dev == st.st_dev && a->ino == st.st_ino &&
		    timespec_eq(&a->c, &st.st_ctim) && timespec_eq(&a->m, &st.st_mtim) &&
		    k->nfok < CW_ARRAY_SIZE(k->fok)) {
			k->fok[k->nfok].tgid = a->tgid;
			k->fok[k->nfok].dev = a->dev;
			k->fok[k->nfok].ino = a->ino;
			k->nfok++;
			a->used = true;
			if (a->has_interp) {
				/* Its PT_INTERP was read from this very content (the
				 * times tell): the loader's event checks them again. */
				struct interp slot = {
					.tgid = a->tgid, .tid = a->tid, .dev = a->idev, .ino = a->iino,
					.system = a->interp_system, .prog = a->pin, .prog_c = a->c, .prog_m = a->m,
				};
				snprintf(slot.name, sizeof(slot.name), "%s", a->iname);
				a->pin = -1;
				interp_set(k, &slot, &old);
			}
			allow = true;
			k->fast_programs++;
		} else {
			/* Another file, changed since, or no room: the
			 * decider's, which takes the approval (decide_exec). */
			k->fast_members++;
		}
	}
	pthread_mutex_unlock(&k->fast_mu);
	if (old >= 0)
		close(old);
	if (loader) {
		/* The image that names it is still the one read: when it was
		 * rewritten in between (a #! script naming the loader), the
		 * slot is gone and the decider decides the loader by its name,
		 * as a program of its own (e134). */
		bool same = prog_unchanged(taken.prog, &taken.prog_c, &taken.prog_m);
		if (taken.prog >= 0)
			close(taken.prog);
		if (same) {
			pthread_mutex_lock(&k->fast_mu);
			k->fast_allowed++;
			pthread_mutex_unlock(&k->fast_mu);
			allow = true;
		}
	}
	return allow;
}

static void *fan_reader(void *arg)
{
	struct cw_run *run = arg;
	struct cw_kernel *k = run->kernel;
	struct fan_queue *fq = &k->fq;
	pid_t self = getpid();
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	for (;;) {
		ssize_t len = read(k->fan, buf, sizeof(buf));
		if (len < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (len <= 0)
			return NULL;
		struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
		for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
			if (m->fd < 0)
				continue; /* FAN_NOFD: an overflow, nothing to answer */
			if (m->vers != FANOTIFY_METADATA_VERSION) {
				fan_respond(k->fan, m->fd, FAN_DENY);
				continue;
			}
			/* Not the tree's (capwatch, a process of the host on a
			 * bind of a watched mount, a helper capwatch forked):
			 * answered here, never behind the loop's lock. The
			 * cgroup test reads only /proc and what is set before
			 * this thread starts. */
			bool member = false;
			if (m->pid != self && fan_fast(k, m, &member)) {
				fan_respond(k->fan, m->fd, FAN_ALLOW);
				continue;
			}
			if (m->pid == self || !(m->mask & (FAN_OPEN_EXEC_PERM | FAN_OPEN_PERM)) ||
			    (!member && !cw_cgroup_member_running(k->cg_line, m->pid))) {
				fan_respond(k->fan, m->fd, FAN_ALLOW);
				continue;
			}
			pthread_mutex_lock(&fq->mu);
			if (fq->n == FANQ) {
				/* Cannot happen within --max-procs; fail closed. */
				pthread_mutex_unlock(&fq->mu);
				fan_respond(k->fan, m->fd, FAN_DENY);
				continue;
			}
			fq->ev[(fq->head + fq->n) % FANQ] = *m;
			fq->n++;
			pthread_cond_signal(&fq->cv);
			pthread_mutex_unlock(&fq->mu);
		}
	}
}

static void *fan_decider(void *arg)
{
	struct cw_run *run = arg;
	struct cw_kernel *k = run->kernel;
	struct fan_queue *fq = &k->fq;
	for (;;) {
		pthread_mutex_lock(&fq->mu);
		while (fq->n == 0)
			pthread_cond_wait(&fq->cv, &fq->mu);
		struct fanotify_event_metadata m = fq->ev[fq->head];
		fq->head = (fq->head + 1) % FANQ;
		fq->n--;
		pthread_mutex_unlock(&fq->mu);
		cw_loop_lock(run);
		connector_drain(run);
		/* (a member: fan_reader asked the cgroup, or the thread's exec
		 * notification vouched for it) */
		unsigned response = (m.mask & FAN_OPEN_EXEC_PERM) ? decide_exec(run, &m) : decide_read(run, &m);
		cw_loop_unlock(run);
		fan_respond(k->fan, m.fd, response);
	}
	return NULL;
}

/* Unescape a mountinfo field (\040 for a space...) in place. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Mark every mount of the child's mount namespace. */
static int mark_mounts(struct cw_run *run, uint64_t mask)
{
	struct cw_kernel *k = run->kernel;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)run->child);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	/* The mount that holds its root first (in a chroot, no mountinfo
	 * line names it "/"). */
	char rootp[64];
	snprintf(rootp, sizeof(rootp), "/proc/%d/root/", (int)run->child);
	int root_err = 0;
	if (fanotify_mark(k->fan, FAN_MARK_ADD | FAN_MARK_MOUNT, mask, AT_FDCWD, rootp) < 0)
		root_err = -errno;
	else
		k->marks++;
	while (getline(&line, &cap, f) > 0) {
		/* id parent major:minor root mountpoint ... */
		char *save = NULL, *tok = strtok_r(line, " ", &save);
		for (int i = 0; tok && i < 4; i++)
			tok = strtok_r(NULL, " ", &save);
		if (!tok)
			continue;
		unescape(tok);
		char target[PATH_MAX + 64];
		int l = snprintf(target, sizeof(target), "/proc/%d/root%s", (int)run->child, tok);
		if (l < 0 || (size_t)l >= sizeof(target))
			continue;
		if (fanotify_mark(k->fan, FAN_MARK_ADD | FAN_MARK_MOUNT, mask, AT_FDCWD, target) == 0) {
			k->marks++;
		} else {
			/* Hidden under another mount, or a kind fanotify cannot
			 * watch: nothing can be exec'd from what the tree cannot
			 * reach, and the rest is counted. */
			k->mark_failures++;
			cw_debug("fanotify mark %s: %s", tok, strerror(errno));
		}
	}
	free(line);
	fclose(f);
	return root_err;
}

/* --- the tree's own PID namespace (CAPWATCH_KERNEL_READS=1) --- */

/* The namespace's init: it only reaps the orphans that come to it, and
 * ends when capwatch closes QUIT_R (or dies: PDEATHSIG), which kills what
 * is left of the namespace. Nothing of it can be reached from the tree: it
 * is not dumpable (no /proc/1/root, fd, environ without CAP_SYS_PTRACE,
 * which the tree lacks), its root is an empty read-only tmpfs of a mount
 * namespace of its own, it holds no descriptor but QUIT_R, and the kernel
 * drops every signal the tree sends it (it has no handler). */
static __attribute__((noreturn)) void ns_init_main(int quit_r)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("capwatch-init", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
		  "size=4k,mode=0555") < 0 ||
	    chdir("/tmp") < 0 || chroot(".") < 0)
		_exit(1); /* the namespace dies with it: the tree never starts */
	/* It needs no privilege from here on. */
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof(none));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_capset, &h, none) < 0)
		_exit(1);
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if (quit_r > 0)
		syscall(SYS_close_range, 0U, (unsigned)quit_r - 1, 0U);
	syscall(SYS_close_range, (unsigned)quit_r + 1, ~0U, 0U);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	for (;;) {
		struct pollfd p[2] = { { quit_r, POLLIN, 0 }, { sfd, POLLIN, 0 } };
		if (poll(p, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : 100) < 0 && errno != EINTR)
			_exit(1);
		if (p[0].revents)
			_exit(0);
		struct signalfd_siginfo si;
		while (sfd >= 0 && read(sfd, &si, sizeof(si)) > 0)
			;
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
	}
}

int cw_kernel_reads_prepare(struct cw_run *run)
{
	int own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return -errno;
	int q[2];
	if (pipe2(q, O_CLOEXEC) < 0) {
		int e = -errno;
		close(own);
		return e;
	}
	if (unshare(CLONE_NEWPID) < 0) {
		int e = -errno;
		close(own); close(q[0]); close(q[1]);
		return e;
	}
	pid_t c = fork();
	if (c == 0) {
		close(q[1]);
		ns_init_main(q[0]);
	}
	int e = c < 0 ? -errno : 0;
	close(q[0]);
	if (e < 0) {
		if (setns(own, CLONE_NEWPID) < 0)
			abort(); /* never fork capwatch's own helpers into it */
		close(own); close(q[1]);
		return e;
	}
	run->ns_init = c;
	run->ns_init_w = q[1];
	run->own_pidns_fd = own;
	run->kernel_reads = true;
	return 0;
}

int cw_kernel_reads_forked(struct cw_run *run)
{
	if (run->own_pidns_fd < 0)
		return 0;
	int r = setns(run->own_pidns_fd, CLONE_NEWPID) < 0 ? -errno : 0;
	close(run->own_pidns_fd);
	run->own_pidns_fd = -1;
	return r;
}

bool cw_kernel_ns_pid_in_tree(const struct cw_run *run, pid_t pid)
{
	/* Every process of the namespace but its init descends from the
	 * command (capwatch forks only those two into it). */
	if (pid <= 1 || run->ns_proc_fd < 0)
		return false;
	char num[16];
	snprintf(num, sizeof(num), "%d", (int)pid);
	struct stat st;
	return fstatat(run->ns_proc_fd, num, &st, 0) == 0;
}

/* The last number of the NSpid line of /proc/TASKDIR/status, or -1. */
static pid_t ns_tid_of(const char *status)
{
	char buf[2048];
	if (cw_read_small(status, buf, sizeof(buf)) < 0)
		return -1;
	char *l = strstr(buf, "\nNSpid:");
	if (!l)
		return -1;
	l += 7;
	char *nl = strchr(l, '\n');
	if (nl)
		*nl = '\0';
	/* "NSpid:\tHOST\tTREE": a task of the tree's namespace has two
	 * numbers at least. One alone is a task of capwatch's namespace (a
	 * host process that got a dead member's number), not the tree's. */
	char *last = strrchr(l, '\t');
	if (!last || last == strchr(l, '\t'))
		return -1;
	return (pid_t)atoi(last + 1);
}

pid_t cw_kernel_host_tid(pid_t tgid, pid_t nstid)
{
	char p[96];
	snprintf(p, sizeof(p), "/proc/%d/status", (int)tgid);
	if (ns_tid_of(p) == nstid)
		return tgid;
	snprintf(p, sizeof(p), "/proc/%d/task", (int)tgid);
	DIR *d = opendir(p);
	if (!d)
		return -1;
	pid_t found = -1;
	struct dirent *e;
	while (found < 0 && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%.16s/status", (int)tgid, e->d_name);
		if (ns_tid_of(p) == nstid)
			found = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return found;
}

pid_t cw_kernel_ns_pid_to_host(struct cw_run *run, pid_t nspid)
{
	if (!run->kernel_reads || nspid <= 1)
		return -1;
	connector_drain(run); /* a member forked just now has its entry */
	for (size_t i = 0; i < cw_tracker_count(run); i++) {
		struct cw_proc *p = cw_tracker_at(run, i);
		if (p->alive && p->nspid == nspid)
			return p->pid;
	}
	return -1;
}

void cw_kernel_names_changed(struct cw_run *run)
{
	struct cw_kernel *k = run->kernel;
	if (!run->kernel_reads || !k || k->fan < 0 || !k->read_marked)
		return;
	/* A new name (a rename, a link) may make a marked inode a secret's:
	 * every inode is decided again at its next open. */
	if (fanotify_mark(k->fan, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL) < 0)
		cw_debug("fanotify flush: %s", strerror(errno));
	k->read_marked = 0;
}

/* The tree's view (in the child, after unshare(CLONE_NEWNS), before it
 * drops its capabilities; async-signal-safe): a /proc of its PID
 * namespace, a /dev of its own with the harmless devices of the host's
 * (the same inodes, so that capwatch's view of them is the tree's), and
 * the host's /dev/pts, /dev/shm and /dev/mqueue;
 * every other mount nodev, so that no other device node opens. */
static int reads_view(void)
{
	static const char *const nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
	int fds[CW_ARRAY_SIZE(nodes)], shm, mq, pts;
	char p[64];
	for (size_t i = 0; i < CW_ARRAY_SIZE(nodes); i++) {
		memcpy(p, "/dev/", 5);
		size_t l = strlen(nodes[i]);
		memcpy(p + 5, nodes[i], l + 1);
		fds[i] = (int)syscall(SYS_open_tree, AT_FDCWD, p, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	}
	shm = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/shm", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	pts = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/pts", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	mq = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/mqueue", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	struct mount_attr a = { .attr_set = MOUNT_ATTR_NODEV };
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &a, sizeof(a)) < 0)
		return -errno;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -errno;
	if (mount("capwatch-dev", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") < 0)
		return -errno;
	for (size_t i = 0; i < CW_ARRAY_SIZE(nodes); i++) {
		if (fds[i] < 0)
			continue;
		memcpy(p, "/dev/", 5);
		size_t l = strlen(nodes[i]);
		memcpy(p + 5, nodes[i], l + 1);
		int f = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (f >= 0)
			close(f);
		if (syscall(SYS_move_mount, fds[i], "", AT_FDCWD, p, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return -errno;
		close(fds[i]);
	}
	/* The host's ptys, as capwatch sees them (it performs the tree's
	 * read-write opens of ptmx and of pty slaves, fs_special.c): reads
	 * there, another session's terminal, are Landlock's to refuse
	 * (cw_landlock_child grants reads on the devices above only). */
	if (pts >= 0 && (mkdir("/dev/pts", 0755) < 0 ||
			 syscall(SYS_move_mount, pts, "", AT_FDCWD, "/dev/pts", MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
			 symlink("pts/ptmx", "/dev/ptmx") < 0))
		return -errno;
	/* Cloned before the nodev above: no device node may open there
	 * either (red team e155). */
	struct mount_attr nd = { .attr_set = MOUNT_ATTR_NODEV };
	if (shm >= 0 && syscall(SYS_mount_setattr, shm, "", AT_EMPTY_PATH, &nd, sizeof(nd)) < 0)
		return -errno;
	if (mq >= 0 && syscall(SYS_mount_setattr, mq, "", AT_EMPTY_PATH, &nd, sizeof(nd)) < 0)
		return -errno;
	if (mkdir("/dev/shm", 01777) < 0)
		return -errno;
	if (shm >= 0 ? syscall(SYS_move_mount, shm, "", AT_FDCWD, "/dev/shm", MOVE_MOUNT_F_EMPTY_PATH) < 0
		     : mount("shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=01777") < 0)
		return -errno;
	if (mq >= 0 && (mkdir("/dev/mqueue", 0755) < 0 ||
			syscall(SYS_move_mount, mq, "", AT_FDCWD, "/dev/mqueue", MOVE_MOUNT_F_EMPTY_PATH) < 0))
		return -errno;
	if (symlink("/proc/self/fd", "/dev/fd") < 0 || symlink("/proc/self/fd/0", "/dev/stdin") < 0 ||
	    symlink("/proc/self/fd/1", "/dev/stdout") < 0 || symlink("/proc/self/fd/2", "/dev/stderr") < 0)
		return -errno;
	return 0;
}

int cw_kernel_child(bool reads)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (reads) {
		/* Private: a mount the host makes later would reach the tree
		 * unwatched and with devices. */
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return -errno;
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		int r = reads_view();
		if (r < 0)
			return r;
		/* A cwd under /dev or /proc stayed on the covered mount,
		 * which fanotify does not watch (red team e152): entered
		 * again by its name, in the new view. */
		return chdir(cwd) < 0 ? -errno : 0;
	}
	/* The host's mounts still arrive (slave); none of the tree's leave. */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 && errno != EINVAL)
		return -errno; /* EINVAL: a chroot whose "/" is no mount (copies stay peers) */
	return 0;
}

int cw_kernel_ready(struct cw_run *run)
{
	struct cw_kernel *k = run->kernel;
	if (run->kernel_reads) {
		char pp[64];
		snprintf(pp, sizeof(pp), "/proc/%d/root/proc", (int)run->child);
		run->ns_proc_fd = open(pp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (run->ns_proc_fd < 0)
			return -errno;
		snprintf(pp, sizeof(pp), "/proc/%d/root", (int)run->child);
		run->tree_root_fd = open(pp, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (run->tree_root_fd < 0)
			return -errno;
	}
	int r = mark_mounts(run, run->kernel_reads ? CW_FAN_MASK | CW_FAN_READ_MASK : CW_FAN_MASK);
	if (r < 0) {
		cw_err("fanotify cannot watch the command's root mount: %s", strerror(-r));
		return r;
	}
	pthread_t th;
	int e = pthread_create(&th, NULL, fan_decider, run);
	if (e == 0) {
		pthread_detach(th);
		e = pthread_create(&th, NULL, fan_reader, run);
	}
	if (e != 0)
		return -e; /* (a decider alone waits forever, harmlessly) */
	pthread_detach(th);
	k->fan_started = true;
	cw_debug("kernel back end: %lu mounts watched (%lu could not be)", k->marks, k->mark_failures);
	return 0;
}

/* --- the tracker's operations --- */

/* The ingress guard on the run's group (ingress.h, SECURITY.md), before
 * the command runs: a socket's programs are its cgroup's when it is made.
 * --observe denies nothing, and a profile whose host_visible_binding
 * default is allow lets the tree open ports to the network by itself:
 * neither has one (red team 27: under the observe profile, e186's socket
 * would have lost what it may receive). A build without BPF runs
 * without it, as the portable back end does (enforcement.layers says
 * which); one that has it and cannot attach it says the run is degraded:
 * a datagram socket the kernel autobinds would be open to the network. */
static void ingress_attach(struct cw_run *run, const struct cw_kernel *k)
{
	if (run->observe || cw_profile_default(run->profile, CW_CAP_HOST_VISIBLE_BINDING) == CW_ALLOW)
		return;
	char why[256];
	int r = cw_ingress_attach(k->cg_dir, &run->ingress, why, sizeof(why));
	if (r == -ENOSYS) {
		cw_info("kernel back end without its ingress guard: %s", why);
		return;
	}
	if (r < 0) {
		size_t dl = strlen(run->downgrade_reason);
		snprintf(run->downgrade_reason + dl, sizeof(run->downgrade_reason) - dl,
			 "%sno ingress guard (%s): a datagram socket the kernel autobinds is reachable "
			 "from the network", dl ? "; " : "", why);
		run->degraded = true; /* said by the run, with the other reasons */
	}
}

static int kernel_attach(struct cw_run *run, pid_t child)
{
	struct cw_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->cg_events = k->cn = k->fan = k->sentinel_w = k->cg_kill_fd = -1;
	pthread_mutex_init(&k->fq.mu, NULL);
	pthread_mutex_init(&k->fast_mu, NULL);
	for (unsigned i = 0; i < CW_ARRAY_SIZE(k->appr); i++)
		k->appr[i].pin = -1;
	for (unsigned i = 0; i < CW_ARRAY_SIZE(k->interp); i++)
		k->interp[i].prog = -1;
	struct cw_hash_key hk;
	cw_hash_key_random(&hk);
	cw_hmap_init(&k->threads, &hk, sizeof(pid_t), sizeof(struct thread_of), 1u << 20);
	cw_hash_key_random(&hk);
	cw_hmap_init(&k->images, &hk, sizeof(struct image_id), 0, 0);
	struct stat self;
	if (stat("/proc/self/exe", &self) == 0) {
		k->self_dev = self.st_dev;
		k->self_ino = self.st_ino;
	}
	pthread_cond_init(&k->fq.cv, NULL);
	run->kernel = k;
	char mnt[256], own[512];
	int r = cgroup2_root(mnt, sizeof(mnt), own, sizeof(own));
	if (r < 0)
		return r;
	const char *rel = strcmp(own, "/") == 0 ? "" : own;
	int l1 = snprintf(k->cg_dir, sizeof(k->cg_dir), "%s%s/capwatch-%d", mnt, rel, (int)getpid());
	int l2 = snprintf(k->cg_line, sizeof(k->cg_line), "0::%s/capwatch-%d", rel, (int)getpid());
	if (l1 < 0 || (size_t)l1 >= sizeof(k->cg_dir) || l2 < 0 || (size_t)l2 >= sizeof(k->cg_line))
		return -ENAMETOOLONG;
	/* The limits module may have made this very group (a v2 pids
	 * controller): then the child is in it already. */
	if (mkdir(k->cg_dir, 0755) == 0)
		k->cg_made = true;
	else if (errno != EEXIST)
		return -errno;
	char num[32];
	snprintf(num, sizeof(num), "%d", (int)child);
	if ((r = cw_write_at(k->cg_dir, "cgroup.procs", num)) < 0)
		return r;
	char p[700];
	snprintf(p, sizeof(p), "%s/cgroup.events", k->cg_dir);
	k->cg_events = open(p, O_RDONLY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/cgroup.kill", k->cg_dir);
	k->cg_kill_fd = open(p, O_WRONLY | O_CLOEXEC);
	if (k->cg_events < 0 || k->cg_kill_fd < 0)
		return -errno;
	ingress_attach(run, k);
	if ((k->cn = connector_open()) < 0)
		return k->cn;
	/* (FAN_DENY_ERRNO would let a denial say EACCES, as under the
	 * portable back end, but the kernel takes it only from HSM groups
	 * and only for EIO, EAGAIN, ENOSPC, EDQUOT: a denial is EPERM.) */
	/* FAN_REPORT_TID: an event names the thread that opened, as the
	 * trace's tid does under the portable back end (decide_* take the
	 * process from it). capwatch's main thread is told by its pid, its
	 * other threads by the cgroup test like any process outside the
	 * tree: capwatch is never in the tree's group. */
	k->fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_REPORT_TID, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (k->fan < 0)
		return -errno;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -errno;
	if ((r = sentinel_start(k)) < 0)
		return r;
	struct cw_proc *c = cw_tracker_add(run, child);
	if (!c)
		return -ENOMEM;
	c->ppid = getpid();
	if (run->kernel_reads) {
		char st[64];
		snprintf(st, sizeof(st), "/proc/%d/status", (int)child);
		c->nspid = ns_tid_of(st);
	}
	if ((r = cw_loop_add_source(run, k->cn, EPOLLIN, on_connector)) < 0 ||
	    (r = cw_loop_add_source(run, k->cg_events, EPOLLPRI, on_cgroup_events)) < 0)
		return r;
	return 0;
}

static void kernel_reap(struct cw_run *run)
{
	connector_drain(run);
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG | WUNTRACED | WCONTINUED);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		if (WIFSTOPPED(status)) {
			if (pid == run->child && run->tty_mode && run->stop_requested) {
				/* The terminal stopped the job: capwatch stops too
				 * (the shell waits for capwatch). */
				run->stop_requested = false;
				cw_record_trace_flush(run);
				raise(SIGSTOP);
			}
			continue;
		}
		if (WIFCONTINUED(status))
			continue;
		struct cw_proc *p = cw_tracker_find(run, pid);
		if (p && p->alive)
			cw_tracker_exited(run, p, status);
		if (pid == run->child) {
			run->child_exited = true;
			run->child_status = status;
		}
	}
}

static size_t kernel_alive(const struct cw_run *run)
{
	const struct cw_kernel *k = run->kernel;
	if (!k || k->cg_events < 0)
		return 0;
	if (cgroup_populated(k))
		return 1;
	/* Empty: the last exits may still be queued (the connector) or
	 * waiting to be reaped (orphans, whose parent is capwatch now). */
	kernel_reap((struct cw_run *)run);
	/* Whatever the table still thinks alive missed its exit. */
	for (size_t i = 0; i < cw_tracker_count(run); i++) {
		struct cw_proc *p = cw_tracker_at(run, i);
		if (p->alive)
			cw_tracker_dead((struct cw_run *)run, p);
	}
	return 0;
}

static void kernel_kill_all(struct cw_run *run, int sig)
{
	struct cw_kernel *k = run->kernel;
	if (sig == SIGKILL) {
		cw_kernel_kill_cgroup(run);
	} else if (k) {
		char p[700];
		snprintf(p, sizeof(p), "%s/cgroup.procs", k->cg_dir);
		FILE *f = fopen(p, "re");
		int pid;
		while (f && fscanf(f, "%d", &pid) == 1)
			kill(pid, sig);
		if (f)
			fclose(f);
	}
	if (!run->tty_mode && run->child > 0 && !run->child_exited)
		kill(-run->child, sig);
}

const struct cw_tracker_ops cw_tracker_kernel = {
	.name = "kernel",
	.attach = kernel_attach,
	.reap = kernel_reap,
	.alive = kernel_alive,
	.kill_all = kernel_kill_all,
};

void cw_kernel_kill_cgroup(const struct cw_run *run)
{
	const struct cw_kernel *k = run->kernel;
	if (k && k->cg_kill_fd >= 0 && pwrite(k->cg_kill_fd, "1", 1, 0) < 0)
		cw_debug("cgroup.kill: %s", strerror(errno));
}

void cw_kernel_teardown(struct cw_run *run)
{
	struct cw_kernel *k = run->kernel;
	if (!k)
		return;
	pthread_mutex_lock(&k->fast_mu);
	cw_debug("kernel back end: %lu exec events decided, %lu loaders allowed by the reader, "
		 "%lu members vouched for by their exec notification, %lu programs allowed by the reader",
		 k->exec_events, k->fast_allowed, k->fast_members, k->fast_programs);
	pthread_mutex_unlock(&k->fast_mu);
	if (k->sentinel_w >= 0) {
		/* A clean end: the sentinel goes without killing. */
		if (write(k->sentinel_w, "x", 1) < 0)
			cw_debug("sentinel: %s", strerror(errno));
		close(k->sentinel_w);
		k->sentinel_w = -1;
		if (k->sentinel > 0)
			waitpid(k->sentinel, NULL, 0);
	}
	if (k->cg_dir[0]) {
		for (int i = 0; i < 200; i++) {
			cw_kernel_kill_cgroup(run);
			if (rmdir(k->cg_dir) == 0 || errno == ENOENT || errno != EBUSY)
				break;
			usleep(10000);
		}
	}
	if (k->cn >= 0)
		close(k->cn);
	if (run->ns_init_w >= 0) {
		close(run->ns_init_w);
		run->ns_init_w = -1;
		if (run->ns_init > 0)
			waitpid(run->ns_init, NULL, 0);
	}
	/* The rest stays until the process ends: the fanotify thread may be
	 * reading its group, and the loop's sources name these. */
}

const char *cw_kernel_layers(const struct cw_run *run)
{
	if (run->kernel_reads)
		return run->ingress ? "cgroup-v2+pidns+fanotify-exec+fanotify-open+proc-connector+bpf-ingress"
				    : "cgroup-v2+pidns+fanotify-exec+fanotify-open+proc-connector";
	return run->ingress ? "cgroup-v2+fanotify-exec+proc-connector+bpf-ingress"
			    : "cgroup-v2+fanotify-exec+proc-connector";
}
