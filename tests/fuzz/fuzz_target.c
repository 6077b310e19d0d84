/* The supervisor fuzzer's target (issue 14 item 11): for SECONDS it issues
 * every syscall capwatch's filter notifies (supervisor/handlers/table.c),
 * and numbers with no row, with random lengths, flags, pointers (NULL,
 * bad, unmapped, ending at a PROT_NONE guard page, rewritten by a second
 * thread) and descriptors. It is run under capwatch by tests/fuzz/run.sh;
 * what it checks is capwatch (no crash, hang or lost report), not what
 * the calls return.
 *
 *     fuzz_target SEED SECONDS [WORKSPACE]
 *
 * The same SEED gives the same sequence of choices in the main thread
 * (the flipping thread and the kernel's answers are not reproducible).
 *
 * Safety, because a capwatch bug must not turn into damage on the host:
 * - every path a mutating call gets is built from a small alphabet under
 *   the run's scratch TMPDIR (the cwd), under WORKSPACE (a temporary
 *   directory of run.sh) or under /proc/self/fd/N for a directory this
 *   program opened there; names never hold '/' or start a ".." that could
 *   climb out. Paths outside (/etc/hostname, /dev/null, ...) are only
 *   opened, read-only;
 * - signals, ptrace and process_vm_* name this process, its own threads,
 *   children it forked and has not reaped (their pids cannot be reused), or
 *   pids that cannot exist; never pid 0, -1 or a random number;
 * - metadata calls on descriptors (fchmod, fchown, fsetxattr) only get
 *   descriptors of files and directories this program made;
 * - TIOCSTI only on a pty this program opened or on a non-terminal;
 * - escape calls (mount, reboot, kexec, acct, ...) get arguments the kernel
 *   would refuse even if capwatch let them through;
 * - sockaddrs are loopback, 203.0.113.0/24, unix or garbage families, and
 *   run.sh runs everything in a private network namespace;
 * - at most MAX_CHILDREN children, each with an alarm. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

#define XATTR_CREATE_ 1
#define XATTR_REPLACE_ 2
#define PTRACE_PEEKTEXT_ 1
#define PTRACE_PEEKDATA_ 2
#define PTRACE_PEEKUSER_ 3
#define PTRACE_CONT_ 7
#define PTRACE_KILL_ 8
#define PTRACE_GETREGS_ 12
#define PTRACE_ATTACH_ 16
#define PTRACE_DETACH_ 17
#define PTRACE_SEIZE_ 0x4206
#define PTRACE_INTERRUPT_ 0x4207
#define MAX_CHILDREN 4
#define NO_PID 0x7fffffffL       /* above any pid_max */
#define PG 4096

/* ---- randomness ---- */
static uint64_t rs;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}
static uint64_t rn(uint64_t n) { return n ? rnd() % n : 0; }
static int chance(int pct) { return (int)rn(100) < pct; }
#define PICK(arr) (arr[rn(sizeof(arr) / sizeof(arr[0]))])

/* ---- memory ---- */
static char *guard_a;          /* RW page followed by a PROT_NONE page */
static char *unmapped;         /* a page no access reaches (PROT_NONE) */
static char big[65536];        /* long paths, argv strings */
static char scratch[8][8192];  /* what the kernel may write into */
static char work[64][8192];    /* arguments built for one call */
static int workn;
static char *wbuf(void) { return work[workn++ % 64]; }

/* Buffers the second thread rewrites while calls read them. */
#define NFLIP 6
static char flipbuf[NFLIP][512] __attribute__((aligned(64)));
static char flipvar[NFLIP][3][512];
static volatile int stop_flipper;

static const char *ws = ".";   /* the workspace directory (absolute) */
static pid_t self_pid, main_tid;
static volatile pid_t flip_tid;

/* A pointer to LEN bytes at SRC, or one of the bad kinds. */
static void *ptr_to(const void *src, size_t len)
{
	int r = (int)rn(100);
	if (r < 6)
		return NULL;
	if (r < 9)
		return (void *)(uintptr_t)(r & 1 ? 0x1000 : 1);
	if (r < 12)
		return (void *)(uintptr_t)(r & 1 ? 0xffffffffff600000ull : 0xffff888000000000ull);
	if (r < 14)
		return (void *)(uintptr_t)0x0000800000000000ull;
	if (r < 18)
		return unmapped + rn(PG);
	if (r < 30 && len) {
		/* end of the mapping: part of it (or all, without what follows
		 * it, e.g. a string's NUL) lies in the PROT_NONE page */
		size_t keep = rn(len + 1);
		if (keep > PG)
			keep = PG;
		char *p = guard_a + PG - keep;
		memcpy(p, src, keep);
		return p;
	}
	if (r < 38 && len <= 512) {
		int i = (int)rn(NFLIP);
		return flipbuf[i];
	}
	char *w = wbuf();
	memcpy(w, src, len < 8192 ? len : 8192);
	return w;
}

/* ---- descriptors ---- */
static int fds[64], nfds;        /* everything opened at the start */
static int metafds[16], nmeta;   /* files and directories made here */
static int dirfds[8], ndir;      /* directories in scratch / workspace */
static int sockfds[24], nsock;
static int ptyfds[2] = { -1, -1 };
static int pidfds[8], npidfd;

static void addfd(int fd)
{
	if (fd >= 0 && nfds < 64)
		fds[nfds++] = fd;
}

static long fd_hibits(long fd)
{
	return chance(5) ? (long)((uint64_t)fd | (rnd() << 32)) : fd;
}

static long pick_fd(void)
{
	int r = (int)rn(100);
	long fd;
	if (r < 50 && nfds)
		fd = fds[rn(nfds)];
	else if (r < 65)
		fd = (long)rn(48);
	else if (r < 75)
		fd = AT_FDCWD;
	else if (r < 80)
		fd = -1;
	else if (r < 84)
		fd = (long)(int)rnd();
	else if (r < 88)
		fd = 1000 + (long)rn(30);
	else
		fd = ndir ? dirfds[rn(ndir)] : AT_FDCWD;
	return fd_hibits(fd);
}

/* A directory descriptor for a call that may change what it names: with
 * AT_EMPTY_PATH and "" the call acts on the descriptor itself, so only
 * descriptors of what we made (scratch files and directories, our sockets),
 * AT_FDCWD or numbers that are no descriptor; never stdin/stdout/stderr,
 * /dev/null, the pty, or an eventfd or pidfd (their anonymous inode is
 * shared with the whole system). */
static long pick_dirfd(void)
{
	int r = (int)rn(100);
	long fd;
	if (r < 35)
		fd = AT_FDCWD;
	else if (r < 60 && ndir)
		fd = dirfds[rn(ndir)];
	else if (r < 75 && nmeta)
		fd = metafds[rn(nmeta)];
	else if (r < 82 && nsock)
		fd = sockfds[rn(nsock)];
	else if (r < 88)
		fd = -1;
	else if (r < 94)
		fd = 4096 + (long)rn(60000);
	else
		fd = (long)((uint64_t)rnd() | (1ull << 31)) ;
	return fd_hibits(fd);
}

static long pick_sockfd(void)
{
	if (chance(80) && nsock)
		return fd_hibits(sockfds[rn(nsock)]);
	return pick_fd();
}

static long pick_metafd(void)
{
	if (chance(90) && nmeta)
		return fd_hibits(metafds[rn(nmeta)]);
	return chance(50) ? -1 : 4096 + (long)rn(1000);
}

/* ---- pids: only this process, its threads, its unreaped children,
 * or pids that cannot exist ---- */
static pid_t kids[MAX_CHILDREN];
static int nkids;

static long pick_pid(void)
{
	int r = (int)rn(100);
	long p;
	if (r < 30)
		p = self_pid;
	else if (r < 55 && nkids)
		p = kids[rn(nkids)];
	else if (r < 65)
		p = chance(50) ? main_tid : flip_tid;
	else if (r < 80)
		p = NO_PID - (long)rn(16);
	else if (r < 88)
		p = -NO_PID;
	else if (r < 94)
		p = 4194304 + 1 + (long)rn(1000000);  /* above pid_max's maximum */
	else
		p = (long)(uint64_t)self_pid | (long)(rnd() << 32); /* the kernel sees our pid */
	return p;
}

/* Signals safe to send to ourselves (handled, ignored or invalid). */
static long pick_sig_self(void)
{
	static const int s[] = { 0, SIGUSR1, SIGUSR2, SIGWINCH, SIGURG, SIGCONT, SIGCHLD,
				 SIGALRM, SIGHUP, SIGPIPE, SIGIO };
	int r = (int)rn(100);
	if (r < 70)
		return PICK(s);
	if (r < 85)
		return SIGRTMIN + (long)rn(SIGRTMAX - SIGRTMIN + 1);
	return 65 + (long)rn(2000);
}

/* ---- paths ---- */
static const char *names[] = { "a", "b", "c", "d", "e", "f", "l", "ld", "s", "x", "d/x", "d/y",
			       "ld/x", "nonexist", ".", "d/..", "d/../a", "" };

static size_t rand_name(char *p, size_t cap)
{
	/* random bytes, never '/', '.' or NUL: one component that cannot climb */
	size_t n = 1 + rn(cap < 40 ? cap : 40);
	for (size_t i = 0; i < n; i++) {
		unsigned char c;
		do
			c = (unsigned char)rnd();
		while (c == '/' || c == '.' || c == 0);
		p[i] = (char)c;
	}
	return n;
}

/* A path for a call that may change something: under the cwd (scratch),
 * the workspace, or /proc/self/fd/<one of our directories>. Returns the
 * buffer and its length (including the NUL, unless unterminated). */
static char *gen_path_(size_t *lenp, int proc)
{
	char *b = big;
	size_t n = 0, cap = sizeof(big) - 1;
	int base = (int)rn(10);
	if (base < 2)
		n = (size_t)snprintf(b, cap, "%s/", ws);
	else if (base < 3 && ndir && proc)
		n = (size_t)snprintf(b, cap, "/proc/self/fd/%d/", dirfds[rn(ndir)]);
	else if (base < 4 && proc)
		n = (size_t)snprintf(b, cap, "/proc/self/cwd/");
	int kind = (int)rn(100);
	if (kind < 60) {
		const char *s = PICK(names);
		memcpy(b + n, s, strlen(s));
		n += strlen(s);
	} else if (kind < 75) {
		n += rand_name(b + n, cap - n);
	} else if (kind < 85) {
		/* long: many components, up to ~5000 bytes */
		size_t target = 200 + rn(5000);
		while (n + 3 < target && n + 3 < cap) {
			memcpy(b + n, chance(50) ? "d/" : "./", 2);
			n += 2;
		}
		b[n++] = 'a';
	} else if (kind < 92) {
		/* one over-long component */
		size_t k = 250 + rn(20);
		memset(b + n, 'x', k);
		n += k;
	} else {
		const char *s = PICK(names);
		memcpy(b + n, s, strlen(s));
		n += strlen(s);
		b[n++] = '/';
		n += rand_name(b + n, cap - n);
	}
	b[n] = '\0';
	if (chance(8)) {
		/* unterminated: fill to the end of the guarded page */
		*lenp = n;
		return b;
	}
	*lenp = n + 1;
	return b;
}

static char *gen_path(size_t *lenp) { return gen_path_(lenp, 1); }

/* A symlink's target: /proc/self in it would mean whoever follows the
 * link, which a supervisor bug could make capwatch itself. */
static void *link_target_arg(void)
{
	size_t n;
	char *p = gen_path_(&n, 0);
	return ptr_to(p, n);
}

static void *path_arg(void)
{
	size_t n;
	char *p = gen_path(&n);
	return ptr_to(p, n);
}

/* Outside paths, opened read-only only. */
static const char *ro_paths[] = { "/etc/hostname", "/etc/passwd", "/proc/self/status",
				  "/proc/self/mem", "/proc/self/maps", "/dev/null", "/dev/zero",
				  "/proc/self/fd/0", "/proc/self/exe", "/nonexistent-cwfz/x",
				  "/proc/1/environ", "/sys/kernel/mm/transparent_hugepage/enabled",
				  "/etc", "/proc/self/cwd", "/root/.ssh/id_rsa", "/bin/true" };

/* ---- sockaddrs ---- */
static void *gen_sockaddr(socklen_t *lenp, int for_bind)
{
	char *w = wbuf();
	memset(w, 0, 512);
	socklen_t len = 0;
	int r = (int)rn(100);
	if (r < 30) {
		struct sockaddr_in *a = (void *)w;
		static const uint32_t ips[] = { 0x7f000001, 0x7f010203, 0xcb007101, 0xcb0071fe, 0xcb007107, 0 };
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)(chance(50) ? 1 + rn(1024) : rn(65536)));
		a->sin_addr.s_addr = htonl(PICK(ips));
		len = sizeof(*a);
	} else if (r < 50) {
		struct sockaddr_in6 *a = (void *)w;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)rn(65536));
		int k = (int)rn(5);
		if (k == 0)
			a->sin6_addr.s6_addr[15] = 1;             /* ::1 */
		else if (k >= 2) {                                /* ::ffff:v4 */
			a->sin6_addr.s6_addr[10] = a->sin6_addr.s6_addr[11] = 0xff;
			uint32_t v4 = htonl(k == 2 ? 0x7f000001 : k == 3 ? 0xcb007105 : 0);
			memcpy(&a->sin6_addr.s6_addr[12], &v4, 4);
		}
		a->sin6_scope_id = chance(10) ? (uint32_t)rnd() : 0;
		len = sizeof(*a);
	} else if (r < 78) {
		struct sockaddr_un *a = (void *)w;
		a->sun_family = AF_UNIX;
		int k = (int)rn(4);
		if (k == 0) {                           /* abstract */
			size_t n = rn(120);
			for (size_t i = 1; i < n && i < sizeof(a->sun_path); i++)
				a->sun_path[i] = (char)rnd();
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
		} else if (k == 1) {                    /* full, unterminated */
			memset(a->sun_path, 'a', sizeof(a->sun_path));
			memset(w + sizeof(*a), 'b', 100);
			len = (socklen_t)(sizeof(*a) + rn(30));
		} else {
			size_t n;
			char *p = gen_path(&n);
			if (n > 200)
				n = 200;
			memcpy(a->sun_path, p, n);
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
		}
	} else if (r < 84) {
		struct sockaddr_nl *a = (void *)w;
		a->nl_family = AF_NETLINK;
		a->nl_pid = (uint32_t)(chance(50) ? 0 : rnd());
		a->nl_groups = (uint32_t)rnd();
		len = sizeof(*a);
	} else if (r < 88) {
		((struct sockaddr *)w)->sa_family = AF_UNSPEC;
		len = (socklen_t)rn(32);
	} else {
		for (int i = 0; i < 128; i++)
			w[i] = (char)rnd();
		((struct sockaddr *)w)->sa_family = (sa_family_t)(chance(70) ? rn(48) : rnd());
		len = (socklen_t)rn(130);
	}
	(void)for_bind;
	/* lengths around the edges */
	int lr = (int)rn(100);
	if (lr < 6)
		len = 0;
	else if (lr < 12)
		len = (socklen_t)rn(4);
	else if (lr < 16)
		len = (socklen_t)(len ? len - 1 : 0);
	else if (lr < 22)
		len = PICK(((socklen_t[]){ 110, 111, 128, 129, 200, 4096, 0x7fffffff, 0xffffffff, 0x80000000 }));
	*lenp = len;
	return ptr_to(w, len < 512 ? len : 512);
}

static unsigned long gen_len(void)
{
	int r = (int)rn(100);
	if (r < 50)
		return rn(64);
	if (r < 70)
		return rn(8192);
	if (r < 80)
		return PICK(((unsigned long[]){ 0, 1, 4095, 4096, 4097, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
						  (unsigned long)-1, 1ul << 40 }));
	return rnd();
}

static void *gen_iov(unsigned long *cnt, int writable)
{
	struct iovec *v = (void *)wbuf();
	unsigned long n = rn(9);
	for (unsigned long i = 0; i < n; i++) {
		char *sb = scratch[rn(8)];
		int r = (int)rn(100);
		if (r < 70) {
			v[i].iov_base = sb + rn(64);
			v[i].iov_len = rn(8192 - 64);
		} else if (r < 80) {
			v[i].iov_base = NULL;
			v[i].iov_len = rn(100);
		} else if (r < 90) {
			v[i].iov_base = unmapped;
			v[i].iov_len = gen_len();
		} else {
			/* huge length with a base the kernel faults on */
			v[i].iov_base = writable ? (void *)unmapped : (void *)(guard_a + PG - 16);
			v[i].iov_len = (size_t)-1 >> rn(40);
		}
	}
	unsigned long c = n;
	int r = (int)rn(100);
	if (r < 5)
		c = 1025;
	else if (r < 9)
		c = 0x7fffffff;
	else if (r < 11)
		c = rnd();
	*cnt = c;
	return ptr_to(v, n * sizeof(*v));
}

static void *gen_msghdr(void)
{
	struct msghdr *m = (void *)wbuf();
	memset(m, 0, sizeof(*m));
	socklen_t nl;
	m->msg_name = chance(70) ? gen_sockaddr(&nl, 0) : NULL;
	m->msg_namelen = chance(80) ? nl : (socklen_t)gen_len();
	unsigned long c;
	m->msg_iov = gen_iov(&c, 0);
	m->msg_iovlen = c;
	if (chance(50)) {
		char *cb = wbuf();
		size_t off = 0;
		int ncm = 1 + (int)rn(3);
		for (int k = 0; k < ncm && off + 64 < 8192; k++) {
			struct cmsghdr *cm = (void *)(cb + off);
			int t = (int)rn(4);
			cm->cmsg_level = t < 3 ? SOL_SOCKET : (int)rnd();
			if (t == 0) {
				int nf = (int)rn(5);
				cm->cmsg_type = SCM_RIGHTS;
				cm->cmsg_len = CMSG_LEN(nf * sizeof(int));
				for (int i = 0; i < nf; i++)
					((int *)CMSG_DATA(cm))[i] = (int)pick_fd();
			} else if (t == 1) {
				struct ucred uc = { (pid_t)pick_pid(), chance(50) ? getuid() : (uid_t)rn(70000),
						    chance(50) ? getgid() : (gid_t)rn(70000) };
				cm->cmsg_type = SCM_CREDENTIALS;
				cm->cmsg_len = CMSG_LEN(sizeof(uc));
				memcpy(CMSG_DATA(cm), &uc, sizeof(uc));
			} else {
				cm->cmsg_type = (int)rn(80);
				cm->cmsg_len = CMSG_LEN(rn(32));
			}
			if (chance(10))
				cm->cmsg_len = PICK(((size_t[]){ 0, 1, sizeof(struct cmsghdr) - 1, 8192, 1ul << 31,
								 (size_t)-1 }));
			off += CMSG_SPACE(rn(32) + 16);
		}
		m->msg_controllen = chance(80) ? off : gen_len();
		m->msg_control = ptr_to(cb, off);
	} else if (chance(20)) {
		m->msg_control = ptr_to(NULL, 0);
		m->msg_controllen = gen_len();
	}
	m->msg_flags = (int)rnd();
	return ptr_to(m, sizeof(*m));
}

/* argv/envp: a NULL-terminated array, an unterminated one at the guard, a
 * huge one, or a bad pointer */
static void *gen_argv(void)
{
	int r = (int)rn(100);
	if (r < 10)
		return NULL;
	if (r < 15)
		return unmapped;
	if (r < 22) {
		/* 100000 pointers to a 4000-byte string: E2BIG */
		static char **huge;
		if (!huge) {
			huge = mmap(NULL, 100001 * sizeof(char *), PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (huge == MAP_FAILED) {
				huge = NULL;
				return NULL;
			}
			static char s[4000];
			memset(s, 'A', sizeof(s) - 1);
			for (int i = 0; i < 100000; i++)
				huge[i] = s;
		}
		return huge;
	}
	char **v = (char **)(void *)wbuf();
	int n = (int)rn(12);
	for (int i = 0; i < n; i++) {
		int k = (int)rn(10);
		if (k < 6) {
			size_t len;
			char *p = gen_path(&len);
			char *c = wbuf();
			memcpy(c, p, len < 8000 ? len : 8000);
			c[len < 8000 ? len : 7999] = '\0';
			v[i] = c;
		} else if (k < 8) {
			v[i] = guard_a + PG - 1 - rn(8);   /* crosses into the guard */
			memset(v[i], 'g', (size_t)(guard_a + PG - v[i]));
		} else
			v[i] = (char *)(k == 8 ? unmapped : (void *)1);
	}
	v[n] = NULL;
	if (r < 35) {
		/* unterminated: the array ends at the guard page */
		char **g = (char **)(void *)(guard_a + PG - n * sizeof(char *));
		memcpy(g, v, n * sizeof(char *));
		return g;
	}
	return v;
}

/* ---- children ---- */
static void reap(int block)
{
	for (int i = 0; i < nkids;) {
		int st;
		pid_t p = waitpid(kids[i], &st, block ? 0 : WNOHANG);
		if (p == kids[i] || (p < 0 && errno == ECHILD)) {
			kids[i] = kids[--nkids];
			continue;
		}
		i++;
	}
}

/* A child waiting to be signalled, traced and read; it dies by itself. */
static void spawn_sleeper(void)
{
	if (nkids >= MAX_CHILDREN)
		return;
	pid_t p = fork();
	if (p == 0) {
		alarm(1 + (unsigned)rn(3));
		signal(SIGALRM, SIG_DFL);
		for (;;)
			pause();
	}
	if (p > 0)
		kids[nkids++] = p;
}

static void after_fork_child(void)
{
	signal(SIGALRM, SIG_DFL);
	alarm(2);
}

/* ---- the calls ---- */
static int verbose;
static volatile unsigned long calls;
static volatile long last_call[7];

static long sc(long nr, long a, long b, long c, long d, long e, long f)
{
	last_call[0] = nr, last_call[1] = a, last_call[2] = b, last_call[3] = c;
	last_call[4] = d, last_call[5] = e, last_call[6] = f;
	if (verbose)
		fprintf(stderr, "#%lu %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n", calls, nr, a, b, c, d, e, f);
	return syscall(nr, a, b, c, d, e, f);
}

static void closefd_if_new(long r)
{
	if (r > 2 && r < 65536) {
		for (int i = 0; i < nfds; i++)
			if (fds[i] == r)
				return;
		close((int)r);
	}
}

static long gen_open_flags(int ro)
{
	static const long bits[] = { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NONBLOCK,
				     O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_PATH, O_TMPFILE, O_NOCTTY,
				     O_SYNC, O_DSYNC, O_NOATIME, O_LARGEFILE, O_DIRECT, 3 };
	long f = 0;
	int n = (int)rn(5);
	for (int i = 0; i < n; i++)
		f |= PICK(bits);
	if (chance(5))
		f = (long)rnd();
	if (ro)
		f &= (O_NONBLOCK | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_PATH | O_NOCTTY | O_LARGEFILE |
		      O_NOATIME);
	else
		f |= O_NONBLOCK;   /* a FIFO would block (the itimer interrupts it anyway) */
	return f;
}

static void do_open(void)
{
	int ro = chance(20);
	void *path;
	if (ro) {
		const char *s = PICK(ro_paths);
		path = ptr_to(s, strlen(s) + 1);
	} else
		path = path_arg();
	long flags = gen_open_flags(ro);
	long mode = chance(80) ? (long)rn(07777) : (long)rnd();
	long r = -1;
	switch (rn(4)) {
	case 0:
		r = sc(__NR_open, (long)path, flags, mode, 0, 0, 0);
		break;
	case 1:
		r = sc(__NR_openat, pick_dirfd(), (long)path, flags, mode, 0, 0);
		break;
	case 2: {
		struct { uint64_t flags, mode, resolve, ext; } *h = (void *)wbuf();
		h->flags = (uint64_t)flags;
		if (chance(10))
			h->flags |= rnd() << 32;
		h->mode = (uint64_t)mode;
		h->resolve = chance(50) ? rn(0x40) : rnd();
		h->ext = chance(80) ? 0 : rnd();
		long size = PICK(((long[]){ 24, 24, 24, 32, 0, 8, 23, 4096, 4097, 1l << 32 }));
		if (!ro || !(h->flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE)))
			r = sc(__NR_openat2, pick_dirfd(), (long)path, (long)ptr_to(h, 32), size, 0, 0);
		break;
	}
	default:
		if (!ro)
			r = sc(__NR_creat, (long)path, mode, 0, 0, 0, 0);
	}
	closefd_if_new(r);
}

static void do_fs(void)
{
	long a1 = (long)path_arg(), a2;
	long mode = chance(80) ? (long)rn(07777) : (long)rnd();
	switch (rn(38)) {
	case 0: sc(__NR_unlink, a1, 0, 0, 0, 0, 0); break;
	case 1: sc(__NR_unlinkat, pick_dirfd(), a1, chance(50) ? AT_REMOVEDIR : (long)rnd(), 0, 0, 0); break;
	case 2: sc(__NR_rmdir, a1, 0, 0, 0, 0, 0); break;
	case 3: a2 = (long)path_arg(); sc(__NR_rename, a1, a2, 0, 0, 0, 0); break;
	case 4: a2 = (long)path_arg(); sc(__NR_renameat, pick_dirfd(), a1, pick_dirfd(), a2, 0, 0); break;
	case 5:
		a2 = (long)path_arg();
		sc(__NR_renameat2, pick_dirfd(), a1, pick_dirfd(), a2,
		   chance(70) ? (long)rn(8) : (long)rnd(), 0);
		break;
	case 6: a2 = (long)path_arg(); sc(__NR_link, a1, a2, 0, 0, 0, 0); break;
	case 7:
		a2 = (long)path_arg();
		sc(__NR_linkat, pick_dirfd(), a1, pick_dirfd(), a2,
		   PICK(((long[]){ 0, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, AT_EMPTY_PATH | AT_SYMLINK_FOLLOW, -1 })), 0);
		break;
	case 8: a2 = (long)path_arg(); sc(__NR_symlink, (long)link_target_arg(), a2, 0, 0, 0, 0); break;
	case 9: a2 = (long)path_arg(); sc(__NR_symlinkat, (long)link_target_arg(), pick_dirfd(), a2, 0, 0, 0); break;
	case 10: sc(__NR_mkdir, a1, mode, 0, 0, 0, 0); break;
	case 11: sc(__NR_mkdirat, pick_dirfd(), a1, mode, 0, 0, 0); break;
	case 12:
	case 13: {
		static const long types[] = { S_IFREG, S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK, 0, S_IFDIR, S_IFLNK };
		long m = PICK(types) | (mode & 07777);
		if (chance(5))
			m = (long)rnd();
		/* a device number only for character devices: 1:3 is /dev/null */
		long dev = (m & S_IFMT) == S_IFCHR && chance(50) ? (long)((1 << 8) | 3) : 0;
		if (rn(2))
			sc(__NR_mknod, a1, m, dev, 0, 0, 0);
		else
			sc(__NR_mknodat, pick_dirfd(), a1, m, dev, 0, 0);
		break;
	}
	case 14: sc(__NR_truncate, a1, chance(50) ? (long)rn(4096) : (long)rnd(), 0, 0, 0, 0); break;
	case 15: sc(__NR_chmod, a1, mode, 0, 0, 0, 0); break;
	case 16: sc(__NR_fchmodat, pick_dirfd(), a1, mode, chance(50) ? 0 : (long)rnd(), 0, 0); break;
	case 17:
		sc(__NR_fchmodat2, pick_dirfd(), a1, mode,
		   PICK(((long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, -1 })), 0, 0);
		break;
	case 18: sc(__NR_chown, a1, chance(50) ? -1 : (long)rn(70000), chance(50) ? -1 : (long)rn(70000), 0, 0, 0); break;
	case 19: sc(__NR_lchown, a1, -1, (long)rn(70000), 0, 0, 0); break;
	case 20:
		sc(__NR_fchownat, pick_dirfd(), a1, (long)rn(70000), -1,
		   PICK(((long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, -1 })), 0);
		break;
	case 21: {
		long t[4] = { (long)rnd(), (long)rnd(), (long)rn(2000000), (long)rnd() };
		sc(__NR_utime, a1, chance(30) ? 0 : (long)ptr_to(t, 16), 0, 0, 0, 0);
		break;
	}
	case 22: {
		long t[4] = { (long)rn(1 << 30), (long)rn(2000000), (long)rnd(), (long)rn(1000000) };
		sc(__NR_utimes, a1, chance(30) ? 0 : (long)ptr_to(t, 32), 0, 0, 0, 0);
		break;
	}
	case 23: {
		long t[4] = { (long)rn(1 << 30), PICK(((long[]){ 0, UTIME_NOW, UTIME_OMIT, 999999999, 1000000000 })),
			      (long)rnd(), PICK(((long[]){ 0, UTIME_NOW, UTIME_OMIT, -1 })) };
		int nopath = chance(20);   /* NULL path: the descriptor itself */
		sc(__NR_utimensat, nopath ? pick_metafd() : pick_dirfd(), nopath ? 0 : a1, chance(30) ? 0 : (long)ptr_to(t, 32),
		   PICK(((long[]){ 0, AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, -1 })), 0, 0);
		break;
	}
	case 24: {
		long t[4] = { (long)rn(1 << 30), 0, 0, 0 };
		sc(__NR_futimesat, pick_dirfd(), a1, chance(30) ? 0 : (long)ptr_to(t, 32), 0, 0, 0);
		break;
	}
	case 25:
	case 26:
	case 27:
	case 28:
	case 29:
	case 30: {
		static const char *xn[] = { "user.a", "trusted.x", "security.capability", "system.posix_acl_access",
					    "bogus", "" };
		const char *n = PICK(xn);
		long name = (long)ptr_to(n, strlen(n) + 1);
		long val = (long)ptr_to(scratch[0], 64);
		long sz = (long)gen_len();
		long fl = PICK(((long[]){ 0, XATTR_CREATE_, XATTR_REPLACE_, 3, -1 }));
		switch (rn(6)) {
		case 0: sc(__NR_setxattr, a1, name, val, sz, fl, 0); break;
		case 1: sc(__NR_lsetxattr, a1, name, val, sz, fl, 0); break;
		case 2: sc(__NR_removexattr, a1, name, 0, 0, 0, 0); break;
		case 3: sc(__NR_lremovexattr, a1, name, 0, 0, 0, 0); break;
		case 4: sc(__NR_fsetxattr, pick_metafd(), name, val, sz, fl, 0); break;
		default: sc(__NR_fremovexattr, pick_metafd(), name, 0, 0, 0, 0); break;
		}
		break;
	}
	case 31: sc(__NR_fchmod, pick_metafd(), mode, 0, 0, 0, 0); break;
	case 32: sc(__NR_fchown, pick_metafd(), (long)rn(70000), chance(50) ? -1 : (long)rn(70000), 0, 0, 0); break;
	case 33: {
		/* name_to_handle_at: the kernel writes the handle into our buffer */
		struct { uint32_t bytes; int type; } *h = (void *)scratch[1];
		h->bytes = chance(70) ? (uint32_t)rn(140) : (uint32_t)rnd();
		sc(__NR_name_to_handle_at, pick_dirfd(), a1,
		   (long)(chance(80) ? (void *)h : ptr_to(NULL, 0)),
		   (long)(chance(80) ? (void *)scratch[2] : ptr_to(NULL, 0)),
		   PICK(((long[]){ 0, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, 0x200 /* AT_HANDLE_FID */, -1 })), 0);
		break;
	}
	default:
		do_open();
	}
}

static void do_net(void)
{
	socklen_t len;
	long r;
	switch (rn(9)) {
	case 0: {
		long fam = chance(60) ? PICK(((long[]){ AF_UNIX, AF_INET, AF_INET6 })) : (long)rn(46);
		if (chance(3))
			fam = (long)rnd();
		long type = PICK(((long[]){ SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET, SOCK_RDM, 0, 11 }));
		type |= chance(50) ? SOCK_NONBLOCK | SOCK_CLOEXEC : 0;
		r = sc(__NR_socket, fam, type, chance(70) ? 0 : (long)rn(300), 0, 0, 0);
		closefd_if_new(r);
		break;
	}
	case 1: {
		void *a = gen_sockaddr(&len, 0);
		sc(__NR_connect, pick_sockfd(), (long)a, (long)len, 0, 0, 0);
		break;
	}
	case 2: {
		void *a = gen_sockaddr(&len, 1);
		sc(__NR_bind, pick_sockfd(), (long)a, (long)len, 0, 0, 0);
		break;
	}
	case 3: sc(__NR_listen, pick_sockfd(), chance(70) ? (long)rn(16) : (long)rnd(), 0, 0, 0, 0); break;
	case 4:
	case 5: {
		void *a = gen_sockaddr(&len, 0);
		long flags = MSG_DONTWAIT | (chance(80) ? (long)(rn(2) ? MSG_FASTOPEN : 0) : (long)rnd());
		sc(__NR_sendto, pick_sockfd(), (long)ptr_to(scratch[3], 256), (long)gen_len(), flags,
		   chance(90) ? (long)a : 0, (long)len);
		break;
	}
	case 6:
	case 7:
		sc(__NR_sendmsg, pick_sockfd(), (long)gen_msghdr(), MSG_DONTWAIT | (chance(80) ? 0 : (long)rnd()), 0, 0, 0);
		break;
	default: {
		int n = (int)rn(6);
		struct mmsghdr *mm = (void *)scratch[4];
		for (int i = 0; i < n; i++) {
			void *h = gen_msghdr();
			if ((char *)h >= work[0] && (char *)h < work[64])
				memcpy(&mm[i].msg_hdr, h, sizeof(struct msghdr));
			else
				memset(&mm[i].msg_hdr, 0, sizeof(struct msghdr));
			mm[i].msg_len = (unsigned)rnd();
		}
		long vlen = n;
		int k = (int)rn(100);
		void *arr = mm;
		if (k < 10)
			vlen = PICK(((long[]){ 1025, 0x7fffffff, 0xffffffff, -1, 1l << 33 }));
		else if (k < 25) {
			/* the array runs into the guard page */
			size_t keep = (size_t)n * sizeof(*mm) / 2;
			arr = guard_a + PG - keep;
			memcpy(arr, mm, keep);
		} else if (k < 30)
			arr = ptr_to(NULL, 0);
		sc(__NR_sendmmsg, pick_sockfd(), (long)arr, vlen, MSG_DONTWAIT, 0, 0);
	}
	}
}

static void sig_handler(int s) { (void)s; }

static void do_signal(void)
{
	/* a child of ours, or ourselves with a harmless signal */
	int to_kid = nkids && chance(40);
	long pid = to_kid ? kids[rn(nkids)] : pick_pid();
	int ours = pid == self_pid || pid == main_tid || pid == flip_tid ||
		   (long)(int)pid == self_pid;
	long sig = to_kid ? (long)PICK(((int[]){ 0, SIGKILL, SIGTERM, SIGUSR1, SIGCONT, SIGHUP, 77 }))
			  : ours ? pick_sig_self() : (long)rn(70);
	if (!to_kid && !ours && sig == SIGSTOP)
		sig = 0;
	switch (rn(8)) {
	case 0: sc(__NR_kill, pid, sig, 0, 0, 0, 0); break;
	case 1: {
		long tid = to_kid ? pid : ours ? (chance(50) ? main_tid : flip_tid) : pid;
		sc(__NR_tkill, tid, sig, 0, 0, 0, 0);
		break;
	}
	case 2: {
		long tid = to_kid ? pid : ours ? (chance(50) ? main_tid : flip_tid) : pid;
		sc(__NR_tgkill, to_kid ? pid : ours ? self_pid : pid, tid, sig, 0, 0, 0);
		break;
	}
	case 3:
	case 4: {
		siginfo_t *si = (void *)wbuf();
		memset(si, 0, sizeof(*si));
		si->si_signo = (int)sig;
		si->si_code = chance(50) ? SI_QUEUE : (int)rnd();
		si->si_pid = (pid_t)pick_pid();
		void *p = ptr_to(si, sizeof(*si));
		if (rn(2)) {
			sc(__NR_rt_sigqueueinfo, pid, sig, (long)p, 0, 0, 0);
		} else {
			long tid = to_kid ? pid : ours ? main_tid : pid;
			sc(__NR_rt_tgsigqueueinfo, to_kid ? pid : ours ? self_pid : pid, tid, sig, (long)p, 0, 0);
		}
		break;
	}
	case 5: {
		long pfd = npidfd && chance(80) ? pidfds[rn(npidfd)] : pick_fd();
		/* our pidfd is of ourselves */
		long s = pick_sig_self();
		sc(__NR_pidfd_send_signal, pfd, s, chance(60) ? 0 : (long)ptr_to(wbuf(), sizeof(siginfo_t)),
		   chance(80) ? 0 : (long)rnd(), 0, 0);
		break;
	}
	default: {
		long cmd = rn(2) ? F_SETOWN : F_SETOWN_EX;
		long fd = pick_fd();
		if (cmd == F_SETOWN)
			sc(__NR_fcntl, fd, cmd, pick_pid(), 0, 0, 0);
		else {
			struct f_owner_ex *o = (void *)wbuf();
			o->type = (int)(chance(80) ? rn(4) : rnd());
			o->pid = (pid_t)pick_pid();
			sc(__NR_fcntl, fd, cmd, (long)ptr_to(o, sizeof(*o)), 0, 0, 0);
		}
		/* a SIGIO owner is a signal later: aim it back at ourselves */
		if (fd >= 0 && fd < 65536)
			fcntl((int)fd, F_SETOWN, self_pid);
	}
	}
}

static void do_proc(void)
{
	long pid = nkids && chance(50) ? kids[rn(nkids)] : pick_pid();
	switch (rn(6)) {
	case 0: {
		static const long reqs[] = { PTRACE_PEEKDATA_, PTRACE_PEEKTEXT_, PTRACE_PEEKUSER_, PTRACE_GETREGS_,
					     PTRACE_ATTACH_, PTRACE_SEIZE_, PTRACE_INTERRUPT_, PTRACE_DETACH_,
					     PTRACE_CONT_, PTRACE_KILL_, 0x4206, 12345 };
		long req = PICK(reqs);
		sc(__NR_ptrace, req, pid, (long)(chance(50) ? (void *)scratch[5] : ptr_to(NULL, 0)),
		   (long)scratch[5], 0, 0);
		if (req == PTRACE_ATTACH_ || req == PTRACE_SEIZE_)
			sc(__NR_ptrace, PTRACE_DETACH_, pid, 0, 0, 0, 0);
		break;
	}
	case 1:
	case 2: {
		unsigned long lc, rc;
		void *l = gen_iov(&lc, rn(2));
		void *r = gen_iov(&rc, 1);
		sc(rn(2) ? __NR_process_vm_readv : __NR_process_vm_writev, pid, (long)l, (long)lc, (long)r,
		   (long)rc, chance(90) ? 0 : (long)rnd());
		break;
	}
	case 3: {
		long r = sc(__NR_pidfd_open, pid, chance(70) ? 0 : PICK(((long[]){ O_NONBLOCK, 1, -1 })), 0, 0, 0, 0);
		closefd_if_new(r);
		break;
	}
	case 4: {
		long pfd = npidfd && chance(80) ? pidfds[rn(npidfd)] : pick_fd();
		long r = sc(__NR_pidfd_getfd, pfd, pick_fd(), chance(90) ? 0 : (long)rnd(), 0, 0, 0);
		closefd_if_new(r);
		break;
	}
	default: {
		/* TIOCSTI: only on our own pty or on something that is no terminal */
		long fd = chance(50) && ptyfds[0] >= 0 ? ptyfds[rn(2)] : pick_fd();
		int ok = fd == ptyfds[0] || fd == ptyfds[1] || (fd >= 0 && fd < 65536 && !isatty((int)fd)) ||
			 fd < 0 || fd >= 65536;
		if (ok)
			sc(__NR_ioctl, fd, TIOCSTI, (long)ptr_to("x", 1), 0, 0, 0);
		if (ptyfds[0] >= 0) {
			/* drain what we typed */
			char b[256];
			while (read(ptyfds[0], b, sizeof(b)) > 0)
				;
			tcflush(ptyfds[1], TCIFLUSH);
		}
	}
	}
}

static void do_exec(void)
{
	if (nkids >= MAX_CHILDREN)
		return;
	/* arguments built before the fork, so the sequence stays seeded */
	static const char *progs[] = { "/bin/true", "/bin/false", "/proc/self/exe/x", "a", "d", "f",
				       "/nonexistent-cwfz/x", "/dev/null" };
	void *path;
	if (chance(40)) {
		const char *s = PICK(progs);
		path = ptr_to(s, strlen(s) + 1);
	} else
		path = path_arg();
	void *argv = gen_argv();
	void *envp = gen_argv();
	int at = rn(2);
	long dfd = pick_dirfd();
	long fl = PICK(((long[]){ 0, AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, -1 }));
	pid_t p = fork();
	if (p == 0) {
		after_fork_child();
		if (at)
			sc(__NR_execveat, dfd, (long)path, (long)argv, (long)envp, fl, 0);
		else
			sc(__NR_execve, (long)path, (long)argv, (long)envp, 0, 0, 0);
		_exit(127);
	}
	if (p > 0)
		kids[nkids++] = p;
}

static void do_escape(void)
{
	long a = (long)path_arg();
	long r;
	switch (rn(40)) {
	case 0:
	case 1: {
		if (nkids >= MAX_CHILDREN)
			break;
		static const long esc[] = { CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
					    CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP, CLONE_UNTRACED };
		long fl = SIGCHLD;
		int n = 1 + (int)rn(3);
		for (int i = 0; i < n; i++)
			fl |= PICK(esc);
		r = sc(__NR_clone, fl, 0, 0, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			kids[nkids++] = (pid_t)r;
		break;
	}
	case 2: {
		static const long esc[] = { CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
					    CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP, 0x80 /* NEWTIME */,
					    CLONE_FILES, CLONE_FS };
		sc(__NR_unshare, PICK(esc) | (chance(30) ? PICK(esc) : 0), 0, 0, 0, 0, 0);
		break;
	}
	case 3: {
		/* a new listener: bad programs, or one that allows everything */
		static struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog *pr = (void *)wbuf();
		pr->len = chance(50) ? 1 : (unsigned short)rnd();
		pr->filter = chance(50) ? &allow : (struct sock_filter *)unmapped;
		r = sc(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER | (chance(30) ? (long)rn(64) : 0),
		       (long)ptr_to(pr, sizeof(*pr)), 0, 0, 0);
		closefd_if_new(r);
		break;
	}
	case 4: {
		long old = personality(0xffffffff);
		sc(__NR_personality, (long)(rnd() & 0x0fffffff) | ADDR_NO_RANDOMIZE, 0, 0, 0, 0, 0);
		if (old != -1)
			personality((unsigned long)old);
		break;
	}
	case 5:
		r = sc(__NR_io_uring_setup, (long)rn(4096), (long)ptr_to(scratch[6], 120), 0, 0, 0, 0);
		closefd_if_new(r);
		break;
	case 6: {
		static const char *fst[] = { "tmpfs", "proc", "bogusfs-cwfz" };
		const char *t = PICK(fst);
		sc(__NR_mount, a, (long)path_arg(), (long)ptr_to(t, strlen(t) + 1),
		   (long)(rnd() & ~0ul), 0, 0);
		break;
	}
	case 7: sc(__NR_umount2, a, (long)rn(16), 0, 0, 0, 0); break;
	case 8: sc(__NR_pivot_root, a, (long)path_arg(), 0, 0, 0, 0); break;
	case 9: sc(__NR_chroot, a, 0, 0, 0, 0, 0); break;
	case 10: sc(__NR_setns, pick_fd(), (long)rnd(), 0, 0, 0, 0); break;
	case 11:
		r = sc(__NR_open_tree, pick_dirfd(), a, (long)(chance(50) ? 1 /* OPEN_TREE_CLONE */ : rnd()), 0, 0, 0);
		closefd_if_new(r);
		break;
	case 12: sc(__NR_move_mount, pick_fd(), a, pick_dirfd(), (long)path_arg(), (long)rn(0x80), 0); break;
	case 13:
		r = sc(__NR_fsopen, (long)ptr_to("bogusfs-cwfz", 13), (long)rn(4), 0, 0, 0, 0);
		closefd_if_new(r);
		break;
	case 14: sc(__NR_fsconfig, pick_fd(), (long)rn(10), a, 0, 0, 0); break;
	case 15: sc(__NR_fsmount, pick_fd(), (long)rn(4), (long)rnd(), 0, 0, 0); break;
	case 16: sc(__NR_fspick, pick_dirfd(), a, (long)rn(16), 0, 0, 0); break;
	case 17: sc(__NR_mount_setattr, pick_dirfd(), a, (long)rn(0x10000), (long)ptr_to(NULL, 0), (long)gen_len(), 0); break;
	case 18: sc(__NR_bpf, (long)rn(40), (long)ptr_to(NULL, 0), (long)gen_len(), 0, 0, 0); break;
	case 19: sc(__NR_init_module, (long)ptr_to(NULL, 0), (long)gen_len(), (long)ptr_to("", 1), 0, 0, 0); break;
	case 20: sc(__NR_finit_module, pick_fd(), (long)ptr_to("", 1), (long)rnd(), 0, 0, 0); break;
	case 21: sc(__NR_delete_module, (long)ptr_to("cwfz_nonexistent", 17), (long)rn(4096), 0, 0, 0, 0); break;
	case 22: sc(__NR_kexec_load, 0, 0, 0, (long)0xdead0000, 0, 0); break;        /* bad flags: EINVAL */
	case 23: sc(__NR_kexec_file_load, pick_fd(), -1, 0, 0, (long)0xdead0000, 0); break;
	case 24: sc(__NR_perf_event_open, (long)ptr_to(NULL, 0), self_pid, -1, -1, (long)rnd(), 0); break;
	case 25: r = sc(__NR_userfaultfd, (long)rn(4), 0, 0, 0, 0, 0); closefd_if_new(r); break;
	case 26:
		sc(rn(2) ? __NR_add_key : __NR_request_key, (long)ptr_to("cwfz_bogus_type", 16),
		   (long)ptr_to("d", 2), (long)ptr_to(NULL, 0), (long)gen_len(), 0, 0);
		break;
	case 27: sc(__NR_keyctl, (long)rn(40) + 1000, 0, 0, 0, 0, 0); break;     /* no such command */
	case 28: {
		/* identity: no change (passed unrecorded), a real change (our own
		 * credentials only, refused), high bits over our ids */
		long u = getuid(), g = getgid();
		long v = PICK(((long[]){ -1, 0, 1, 1000, 65534, 0x7fffffff }));
		if (chance(50))
			v = chance(50) ? -1 : (chance(50) ? u : g);
		if (chance(10))
			v = (long)((uint64_t)(uint32_t)v | (rnd() << 32));
		long w = chance(50) ? -1 : v;
		switch (rn(9)) {
		case 0: sc(__NR_setuid, chance(50) ? u : v, 0, 0, 0, 0, 0); break;
		case 1: sc(__NR_setgid, chance(50) ? g : v, 0, 0, 0, 0, 0); break;
		case 2: sc(__NR_setreuid, v, w, 0, 0, 0, 0); break;
		case 3: sc(__NR_setregid, w, v, 0, 0, 0, 0); break;
		case 4: sc(__NR_setresuid, v, w, chance(50) ? -1 : v, 0, 0, 0); break;
		case 5: sc(__NR_setresgid, w, v, -1, 0, 0, 0); break;
		case 6: sc(__NR_setfsuid, v, 0, 0, 0, 0, 0); break;
		case 7: sc(__NR_setfsgid, v, 0, 0, 0, 0, 0); break;
		default: {
			gid_t *gl = (void *)wbuf();
			gl[0] = (gid_t)g;
			gl[1] = 65534;
			sc(__NR_setgroups, PICK(((long[]){ 0, 1, 2, 1 << 20, -1 })), (long)ptr_to(gl, 8), 0, 0, 0, 0);
		}
		}
		break;
	}
	case 29:
		/* host settings, with arguments the kernel refuses */
		switch (rn(14)) {
		case 0: sc(__NR_settimeofday, (long)unmapped, 0, 0, 0, 0, 0); break;
		case 1: sc(__NR_clock_settime, 0x7fff, (long)unmapped, 0, 0, 0, 0); break;
		case 2: sc(__NR_clock_adjtime, 0x7fff, (long)unmapped, 0, 0, 0, 0); break;
		case 3: sc(__NR_sethostname, (long)unmapped, 8, 0, 0, 0, 0); break;
		case 4: sc(__NR_setdomainname, (long)unmapped, 8, 0, 0, 0, 0); break;
		case 5: sc(__NR_acct, (long)unmapped, 0, 0, 0, 0, 0); break;
		case 6: sc(__NR_swapon, a, (long)rnd(), 0, 0, 0, 0); break;
		case 7: sc(__NR_swapoff, a, 0, 0, 0, 0, 0); break;
		case 8: sc(__NR_reboot, 0x1234, 0x5678, 0, 0, 0, 0); break;        /* bad magic */
		case 9: sc(__NR_iopl, 4 + (long)rn(100), 0, 0, 0, 0, 0); break;     /* > 3: EINVAL */
		case 10: sc(__NR_ioperm, 1l << 40, 8, 0, 0, 0, 0); break;
		case 11: sc(__NR_quotactl, (long)rnd() | 0x7f000000, a, 0, 0, 0, 0); break;
		case 12: sc(__NR_syslog, 10 /* size of the buffer */, 0, 0, 0, 0, 0); break;
		default: sc(__NR_quotactl_fd, pick_fd(), (long)rnd() | 0x7f000000, 0, 0, 0, 0); break;
		}
		break;
	case 30: sc(__NR_vhangup, 0, 0, 0, 0, 0, 0); break;  /* setsid'd by run.sh: no terminal */
	case 31: r = sc(__NR_fanotify_init, (long)rnd() & 0xffff, (long)rn(4), 0, 0, 0, 0); closefd_if_new(r); break;
	case 32: sc(__NR_fanotify_mark, pick_fd(), (long)rn(8), (long)rnd(), pick_dirfd(), a, 0); break;
	case 33:
		switch (rn(4)) {
		case 0: sc(__NR_lookup_dcookie, (long)rnd(), (long)scratch[6], (long)rn(8192), 0, 0, 0); break;
		case 1:
			/* the handle name_to_handle_at may have written, read-only */
			r = sc(__NR_open_by_handle_at, pick_dirfd(), (long)ptr_to(scratch[1], 140),
			       chance(80) ? O_RDONLY | O_NONBLOCK : O_PATH, 0, 0, 0);
			closefd_if_new(r);
			break;
		case 2:
			/* decided in the filter (EPERM) */
			sc(rn(2) ? __NR_io_uring_enter : __NR_io_uring_register, pick_fd(), (long)rn(8), 0,
			   0, 0, 0);
			break;
		default:
			/* ENOSYS in the filter; bad arguments in case it is not */
			if (sc(__NR_clone3, (long)ptr_to(NULL, 0), (long)rn(200), 0, 0, 0, 0) == 0)
				_exit(0);
		}
		break;
	case 34: {
		/* refused rows with pid arguments: ours, or none */
		switch (rn(6)) {
		case 0: sc(__NR_migrate_pages, pick_pid(), 64, (long)ptr_to(NULL, 0), (long)ptr_to(NULL, 0), 0, 0); break;
		case 1: sc(__NR_move_pages, pick_pid(), 1, (long)ptr_to(NULL, 0), 0, (long)scratch[6], 0); break;
		case 2: sc(__NR_kcmp, pick_pid(), pick_pid(), (long)rn(10), pick_fd(), pick_fd(), 0); break;
		case 3: sc(__NR_process_madvise, npidfd ? pidfds[0] : -1, (long)unmapped, 1, 1, 0, 0); break;
		case 4: sc(__NR_process_mrelease, npidfd ? pidfds[0] : -1, 0, 0, 0, 0, 0); break;
		default: sc(__NR_modify_ldt, 0, (long)scratch[6], 16, 0, 0, 0); break;
		}
		break;
	}
	case 35: {
		static const long old[] = { __NR_uselib, __NR_ustat, __NR_sysfs, __NR__sysctl, __NR_create_module,
					    __NR_get_kernel_syms, __NR_query_module, __NR_nfsservctl, __NR_getpmsg,
					    __NR_putpmsg, __NR_afs_syscall, __NR_tuxcall, __NR_security,
					    __NR_vserver, __NR_epoll_ctl_old, __NR_epoll_wait_old,
					    460, 463, 465, 467, 469 };
		sc(PICK(old), a, (long)ptr_to(NULL, 0), 0, 0, 0, 0);
		break;
	}
	default:
		/* numbers with no row: refused with ENOSYS, whatever the arguments */
		sc(470 + (long)rn(554), (long)rnd(), a, (long)ptr_to(NULL, 0), (long)rnd(), 0, 0);
	}
}

/* ---- the second thread ---- */

/* A FIFO open blocks until the other end comes, and under capwatch a
 * handled signal does not interrupt it (WAIT_KILLABLE_RECV: only a fatal
 * one does), so the itimer cannot: when the main thread is stuck, open
 * every FIFO we made O_RDWR (which never blocks and is both ends). */
static void fifo_unblock(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_FIFO) {
			int fd = openat(dirfd(d), e->d_name, O_RDWR | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
		} else if (e->d_type == DT_DIR && depth < 4) {
			int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				fifo_unblock(sub, depth + 1);
		}
	}
	closedir(d);
}

static void *flipper(void *arg)
{
	(void)arg;
	flip_tid = (pid_t)syscall(__NR_gettid);
	uint64_t x = 88172645463325252ull ^ (uint64_t)time(NULL);
	unsigned long seen = 0;
	int reported = 0;
	unsigned scans = 0;
	struct timespec since, now;
	clock_gettime(CLOCK_MONOTONIC, &since);
	while (!stop_flipper) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (calls != seen) {
			seen = calls;
			since = now;
			reported = 0;
			scans = 0;
		} else if ((now.tv_sec - since.tv_sec) * 1000 + (now.tv_nsec - since.tv_nsec) / 1000000 >= 200) {
			if (now.tv_sec - since.tv_sec == 5 && !reported) {
				reported = 1;
				fprintf(stderr, "fuzz_target: stuck in call #%lu: %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n",
					calls, last_call[0], last_call[1], last_call[2], last_call[3], last_call[4],
					last_call[5], last_call[6]);
			}
			if (++scans % 256 == 1) {   /* about every 30 ms */
				/* the scratch directory, and the workspace where
				 * the profile lets FIFOs be made there */
				int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (dfd >= 0)
					fifo_unblock(dfd, 0);
				dfd = open(ws, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
				struct stat st;
				if (dfd >= 0 && fstat(dfd, &st) == 0 && S_ISDIR(st.st_mode))
					fifo_unblock(dfd, 0);
				else if (dfd >= 0) {
					/* the workspace itself was replaced by a FIFO */
					close(dfd);
					dfd = open(ws, O_RDWR | O_NONBLOCK | O_CLOEXEC);
					if (dfd >= 0)
						close(dfd);
				}
			}
		}
		for (int k = 0; k < 300; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			int i = (int)(x % NFLIP), v = (int)((x >> 8) % 3);
			memcpy(flipbuf[i], flipvar[i][v], 512);
		}
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void set_flip_variants(void)
{
	/* paths (only names under the scratch directory), sockaddrs, an
	 * open_how, iovecs and a msghdr; each buffer holds one of three */
	const char *p[3] = { "a", "d/x", "/proc/self/cwd/ld/x" };
	for (int v = 0; v < 3; v++)
		strcpy(flipvar[0][v], p[v]);
	memset(flipvar[1][2], 'x', 511);   /* long, unterminated */
	strcpy(flipvar[1][0], "f");
	strcpy(flipvar[1][1], "l");
	struct sockaddr_in *a = (void *)flipvar[2][0];
	a->sin_family = AF_INET;
	a->sin_port = htons(9);
	a->sin_addr.s_addr = htonl(0x7f000001);
	a = (void *)flipvar[2][1];
	a->sin_family = AF_INET;
	a->sin_port = htons(80);
	a->sin_addr.s_addr = htonl(0xcb007107);
	struct sockaddr_un *u = (void *)flipvar[2][2];
	u->sun_family = AF_UNIX;
	strcpy(u->sun_path, "s");
	struct { uint64_t flags, mode, resolve; } *h;
	for (int v = 0; v < 3; v++) {
		h = (void *)flipvar[3][v];
		h->flags = v == 0 ? O_RDONLY : v == 1 ? (O_WRONLY | O_CREAT | O_TRUNC) : O_PATH;
		h->mode = 0644;
		h->resolve = v == 2 ? 0x10 : 0;
	}
	for (int v = 0; v < 3; v++) {
		struct iovec *io = (void *)flipvar[4][v];
		io[0].iov_base = v == 2 ? unmapped : scratch[7];
		io[0].iov_len = v == 0 ? 16 : v == 1 ? 8192 : (size_t)-1;
	}
	for (int v = 0; v < 3; v++) {
		struct msghdr *m = (void *)flipvar[5][v];
		m->msg_name = v == 0 ? flipbuf[2] : v == 1 ? NULL : unmapped;
		m->msg_namelen = v == 0 ? 16 : v == 1 ? 0 : 0x7fffffff;
		m->msg_iov = (void *)flipbuf[4];
		m->msg_iovlen = v == 2 ? 1025 : 1;
	}
	for (int i = 0; i < NFLIP; i++)
		memcpy(flipbuf[i], flipvar[i][0], 512);
}

/* ---- setup ---- */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp == '/' && chdir(tmp) == 0) {
		/* capwatch's scratch directory: writes there need no capability */
	}
	if (mkdir("d", 0755) < 0 && errno != EEXIST)
		perror("fuzz_target: mkdir d");
	for (const char *const *n = (const char *[]){ "a", "b", "d/x", NULL }; *n; n++) {
		int fd = open(*n, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
	}
	mkfifo("f", 0644);
	if (symlink("a", "l") < 0 || symlink("d", "ld") < 0)
		perror("fuzz_target: symlink");

	guard_a = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard_a == MAP_FAILED)
		exit(2);
	mprotect(guard_a + PG, PG, PROT_NONE);
	/* kept reserved (PROT_NONE) so that no later mapping lands there */
	unmapped = mmap(NULL, PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED)
		exit(2);

	int fd, sv[2];
	/* files and directories: metadata calls may name these */
	static const char *mf[] = { "a", "b", "d", ".", "d/x" };
	for (size_t i = 0; i < sizeof(mf) / sizeof(mf[0]); i++) {
		fd = open(mf[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0) {
			metafds[nmeta++] = fd;
			addfd(fd);
			struct stat st;
			if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && ndir < 8)
				dirfds[ndir++] = fd;
		}
	}
	fd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		addfd(fd);
		metafds[nmeta++] = fd;
		dirfds[ndir++] = fd;
	}
	fd = open("a", O_PATH | O_CLOEXEC);
	addfd(fd);
	/* sockets of every family capwatch lets be made */
	static const int fams[] = { AF_INET, AF_INET6, AF_UNIX };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 3; j++) {
			fd = socket(fams[i], types[j] | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (fd >= 0 && nsock < 24) {
				sockfds[nsock++] = fd;
				addfd(fd);
			}
		}
	for (int t = 0; t < 2; t++)
		if (socketpair(AF_UNIX, (t ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0) {
			sockfds[nsock++] = sv[0];
			sockfds[nsock++] = sv[1];
			addfd(sv[0]);
			addfd(sv[1]);
			addfd(dup(sv[0]));
		}
	if (pipe2(sv, O_NONBLOCK | O_CLOEXEC) == 0) {
		addfd(sv[0]);
		addfd(sv[1]);
		addfd(dup(sv[1]));
	}
	addfd((int)syscall(__NR_eventfd2, 0, O_NONBLOCK | O_CLOEXEC));
	addfd(open("/dev/null", O_RDWR | O_CLOEXEC));
	fd = (int)syscall(__NR_pidfd_open, getpid(), 0);
	if (fd >= 0) {
		pidfds[npidfd++] = fd;
		addfd(fd);
	}
	fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && grantpt(fd) == 0 && unlockpt(fd) == 0) {
		char *sn = ptsname(fd);
		int s = sn ? open(sn, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) : -1;
		if (s >= 0) {
			ptyfds[0] = fd;
			ptyfds[1] = s;
			addfd(fd);
			addfd(s);
		} else
			close(fd);
	} else if (fd >= 0)
		close(fd);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;   /* no SA_RESTART: blocked calls see EINTR */
	for (int s = 1; s < 65; s++) {
		if (s == SIGKILL || s == SIGSTOP || s == SIGSEGV || s == SIGBUS || s == SIGILL ||
		    s == SIGFPE || s == SIGTRAP || s == SIGABRT || s == SIGSYS || s == SIGCHLD ||
		    s == SIGTSTP || s == SIGTTIN || s == SIGTTOU || s == SIGXCPU || s == SIGXFSZ)
			continue;
		sigaction(s, &sa, NULL);
	}
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	/* interrupts every call that blocks (a FIFO open, a connect) */
	struct itimerval it = { { 0, 50000 }, { 0, 50000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fuzz_target SEED SECONDS [WORKSPACE]\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	double secs = strtod(argv[2], NULL);
	if (argc > 3)
		ws = argv[3];
	rs = seed ? seed : 0x9e3779b97f4a7c15ull;
	printf("fuzz_target: seed %llu, %g s\n", (unsigned long long)seed, secs);
	fflush(stdout);
	self_pid = getpid();
	main_tid = (pid_t)syscall(__NR_gettid);
	setup();
	set_flip_variants();
	pthread_t th;
	if (pthread_create(&th, NULL, flipper, NULL) != 0)
		return 2;
	while (!flip_tid)
		sched_yield();

	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	verbose = getenv("FUZZ_VERBOSE") != NULL;
	for (;;) {
		if ((calls & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
				break;
			reap(0);
			if (nkids < 2 && chance(30))
				spawn_sleeper();
		}
		int r = (int)rn(100);
		if (r < 22)
			do_open();
		else if (r < 50)
			do_fs();
		else if (r < 70)
			do_net();
		else if (r < 80)
			do_signal();
		else if (r < 87)
			do_proc();
		else if (r < 90)
			do_exec();
		else
			do_escape();
		calls++;
	}
	stop_flipper = 1;
	pthread_join(th, NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	for (int i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	reap(1);
	printf("fuzz_target: %lu calls\n", calls);
	return 0;
}
