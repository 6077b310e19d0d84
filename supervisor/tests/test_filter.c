/* The generated seccomp filter, simulated (issue 16 item 4).
 *
 * cw_filter_build() makes the REAL program (libseccomp, exported raw BPF)
 * for a run with a given profile; a classic-BPF interpreter written here
 * runs it on a struct seccomp_data and gives the 32-bit return the kernel
 * would act on. The interpreter knows only the instructions libseccomp
 * 2.5.4 emits for capwatch (ld [abs], and #k, ja, jeq/jgt/jge/jset #k,
 * ret #k; CW_FILTER_TEST_VERBOSE=1 prints each program's opcodes,
 * CW_FILTER_TEST_DUMP=verify lists the program) and fails the test on any
 * other opcode, a jump past the end, a load outside struct seccomp_data
 * or running off the end, so that it cannot agree with a filter it does
 * not understand (test_interpreter checks that it refuses them).
 *
 * Then: a table of hand-written cases (the spec, written from handlers.h
 * and the table's comments, not from filter.c), a property check of every
 * number below CW_NSYSCALLS against its row, with adversarial arguments
 * (upper halves set, every bit of a mask, every socket family), numbers
 * outside the table, and coverage: every instruction of the programs but
 * libseccomp's unreachable leftover returns was run.
 *
 * Linking: the table references the family handlers, which pull in the
 * whole supervisor. This test links filter.c, table.c and log.c only, and
 * defines the handler symbols below as stubs that abort when called (the
 * filter only stores their addresses). A handler added to table.c is an
 * undefined symbol here: a link error that says which stub to add. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <cmocka.h>
#include "supervisor/filter.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/state.h"
#include "profile.h"

/* ---- handler stubs (see above) ---- */
#define STUB(fn) void fn(struct cw_notif *n) { (void)n; abort(); }
STUB(cw_handle_open)
STUB(cw_handle_fs)
STUB(cw_handle_fs_note)
STUB(cw_handle_exec)
STUB(cw_handle_net)
STUB(cw_handle_signal)
STUB(cw_handle_proc)
STUB(cw_handle_setpgid)
STUB(cw_handle_escape)
STUB(cw_handle_errqueue)
STUB(cw_handle_unlisted)
STUB(cw_handle_pid_call)
STUB(cw_handle_ioctl)

/* ---- the classic-BPF interpreter ---- */

/* Instructions of each real program that some case ran (coverage). */
static unsigned char *hit_map;

/* Runs PROG on D as the kernel's seccomp does. Only the instructions
 * libseccomp 2.5.4 emits for capwatch's table are known: a 32-bit load
 * from seccomp_data, AND with a constant, JA and the four conditional
 * jumps on a constant, return of a constant. Anything else (scratch
 * memory, X, other ALU ops) is refused: if libseccomp starts emitting it,
 * the interpreter must be taught it first. Returns 0 with the program's
 * return in *RET, or -1 with a message in ERR (WHAT names the case). */
#define refuse(...) do { snprintf(err, errsz, __VA_ARGS__); return -1; } while (0)
static int bpf_exec(const struct sock_fprog *prog, const struct seccomp_data *d, const char *what,
		    uint32_t *ret, char *err, size_t errsz)
{
	const struct sock_filter *f = prog->filter;
	uint32_t A = 0;
	unsigned len = prog->len;
	unsigned pc = 0;

	/* Jumps are forward only (unsigned offsets): this always ends. */
	while (pc < len) {
		const struct sock_filter *in = &f[pc];
		unsigned next = pc + 1;
		if (hit_map)
			hit_map[pc] = 1;
		switch (in->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (in->k % 4 || in->k > sizeof(*d) - 4)
				refuse("%s: pc %u: load at offset %u outside seccomp_data", what, pc, in->k);
			memcpy(&A, (const char *)d + in->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			A &= in->k;
			break;
		case BPF_JMP | BPF_JA:
			if (in->k >= len - next)
				refuse("%s: pc %u: ja %u past the end (%u instructions)", what, pc, in->k, len);
			next += in->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K: {
			bool c;
			switch (BPF_OP(in->code)) {
			case BPF_JEQ: c = A == in->k; break;
			case BPF_JGT: c = A > in->k; break;
			case BPF_JGE: c = A >= in->k; break;
			default: c = (A & in->k) != 0; break;
			}
			if ((unsigned)in->jt >= len - next || (unsigned)in->jf >= len - next)
				refuse("%s: pc %u: jump (jt %u, jf %u) past the end (%u instructions)",
				       what, pc, in->jt, in->jf, len);
			next += c ? in->jt : in->jf;
			break;
		}
		case BPF_RET | BPF_K:
			*ret = in->k;
			return 0;
		default:
			refuse("%s: pc %u: opcode 0x%04x not supported by the test's interpreter",
			       what, pc, in->code);
		}
		pc = next;
	}
	refuse("%s: ran off the end of the program (%u instructions)", what, len);
}
#undef refuse

static uint32_t run_bpf(const struct sock_fprog *prog, const struct seccomp_data *d, const char *what)
{
	char err[256];
	uint32_t ret = 0;
	if (bpf_exec(prog, d, what, &ret, err, sizeof err) < 0)
		fail_msg("%s", err);
	return ret;
}

/* ---- the runs ---- */

enum prof {
	P_VERIFY,        /* built-in verify: unrestricted denied */
	P_OBSERVE,       /* built-in observe: unrestricted allowed */
	P_VERIFY_OBS,    /* verify under --observe (run->observe) */
	P_URING_ENTER,   /* verify + unrestricted allow ["io_uring_enter"] only */
	P__COUNT
};
static const char *const prof_name[P__COUNT] = { "verify", "observe", "verify+--observe", "uring-enter" };

static struct cw_run runs[P__COUNT];
static struct sock_fprog progs[P__COUNT];
static unsigned char *hits[P__COUNT]; /* per instruction: run by some case */
static char *root_list[] = { "/nonexistent-workspace", NULL };

static int build_run(enum prof p)
{
	struct cw_run *run = &runs[p];
	int rc;
	memset(run, 0, sizeof(*run));
	switch (p) {
	case P_URING_ENTER: {
		static const char json[] =
			"{\"name\": \"uring\", \"extends\": \"verify\", \"capabilities\": {"
			"\"unrestricted\": {\"default\": \"deny\", \"allow\": [\"io_uring_enter\"]}}}";
		char err[256];
		rc = cw_profile_parse(json, strlen(json), "uring.json", NULL, NULL, 0,
				      &run->profile, err, sizeof err);
		if (rc < 0)
			fprintf(stderr, "profile: %s\n", err);
		break;
	}
	case P_OBSERVE:
		rc = cw_profile_builtin("observe", &run->profile);
		break;
	default:
		rc = cw_profile_builtin("verify", &run->profile);
		break;
	}
	if (rc < 0)
		return -1;
	run->observe = p == P_VERIFY_OBS;
	run->roots = root_list;
	run->ctx.roots = (const char *const *)root_list;
	run->ctx.nroots = 1;
	if (cw_filter_build(run, &progs[p]) < 0 || progs[p].len == 0)
		return -1;
	hits[p] = calloc(progs[p].len, 1);
	return hits[p] ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	for (int p = 0; p < P__COUNT; p++)
		if (build_run(p) < 0) {
			fprintf(stderr, "building the filter for %s failed\n", prof_name[p]);
			return -1;
		}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int p = 0; p < P__COUNT; p++) {
		free(progs[p].filter);
		free(hits[p]);
		free(runs[p].syscall_names);
		cw_profile_free(runs[p].profile);
	}
	return 0;
}

static uint32_t eval(enum prof p, uint32_t arch, uint32_t nr, const uint64_t args[6], const char *what)
{
	struct seccomp_data d;
	memset(&d, 0, sizeof d);
	d.arch = arch;
	d.nr = (int)nr;
	d.instruction_pointer = 0x401000;
	memcpy(d.args, args, sizeof d.args);
	hit_map = hits[p];
	uint32_t r = run_bpf(&progs[p], &d, what);
	hit_map = NULL;
	return r;
}

static const char *ret_name(uint32_t r, char *buf, size_t sz)
{
	switch (r & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW: snprintf(buf, sz, "ALLOW"); break;
	case SECCOMP_RET_USER_NOTIF: snprintf(buf, sz, "USER_NOTIF"); break;
	case SECCOMP_RET_KILL_PROCESS: snprintf(buf, sz, "KILL_PROCESS"); break;
	case SECCOMP_RET_ERRNO: snprintf(buf, sz, "ERRNO(%u)", r & SECCOMP_RET_DATA); return buf;
	default: snprintf(buf, sz, "0x%08x", r); return buf;
	}
	if (r & SECCOMP_RET_DATA)
		snprintf(buf + strlen(buf), sz - strlen(buf), "|0x%x", r & SECCOMP_RET_DATA);
	return buf;
}

/* ---- the table ---- */

#define ALLOW_ SECCOMP_RET_ALLOW
#define NOTIF_ SECCOMP_RET_USER_NOTIF
#define KILL_ SECCOMP_RET_KILL_PROCESS
#define ERR_(e) (SECCOMP_RET_ERRNO | (e))
#define X86 AUDIT_ARCH_X86_64
#define HI (1ull << 32)   /* set in the upper half of a register */
#define ALLP (-1)         /* the same in every profile */

struct tcase {
	const char *what;
	int prof;             /* enum prof, or ALLP */
	uint32_t arch;
	uint32_t nr;
	uint64_t args[6];
	uint32_t want;
};

#define FORK_FLAGS (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD)
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
		      CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

static const struct tcase cases[] = {
	/* passed in the kernel, whatever the arguments */
	{ "read", ALLP, X86, __NR_read, { 0, 0x7ffc0000, 4096 }, ALLOW_ },
	{ "write", ALLP, X86, __NR_write, { 1, 0x7ffc0000, 12 }, ALLOW_ },
	{ "mmap", ALLP, X86, __NR_mmap, { 0, 8192, 7, 0x22, ~0ull, 0 }, ALLOW_ },
	{ "close", ALLP, X86, __NR_close, { 3 }, ALLOW_ },
	{ "read, every bit set", ALLP, X86, __NR_read, { ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull }, ALLOW_ },
	{ "fork", ALLP, X86, __NR_fork, { 0 }, ALLOW_ },
	{ "exit_group", ALLP, X86, __NR_exit_group, { 0 }, ALLOW_ },
	{ "uretprobe (335, by number)", ALLP, X86, 335, { 0 }, ALLOW_ },
	{ "file_getattr (468, by number)", ALLP, X86, 468, { 0 }, ALLOW_ },
	/* decided by a handler */
	{ "openat", ALLP, X86, __NR_openat, { (uint64_t)-100, 0x7ffc0000, O_RDONLY }, NOTIF_ },
	{ "open", ALLP, X86, __NR_open, { 0x7ffc0000, O_RDONLY }, NOTIF_ },
	{ "execve", ALLP, X86, __NR_execve, { 0x7ffc0000, 0x7ffc1000, 0x7ffc2000 }, NOTIF_ },
	{ "connect", ALLP, X86, __NR_connect, { 3, 0x7ffc0000, 16 }, NOTIF_ },
	{ "ptrace", ALLP, X86, __NR_ptrace, { 0 }, NOTIF_ },
	{ "kill", ALLP, X86, __NR_kill, { 1, 9 }, NOTIF_ },
	{ "unlinkat", ALLP, X86, __NR_unlinkat, { 0 }, NOTIF_ },
	{ "io_uring_setup", ALLP, X86, __NR_io_uring_setup, { 8, 0x7ffc0000 }, NOTIF_ },
	/* named refusals (ESCAPE rows) */
	{ "sethostname", ALLP, X86, __NR_sethostname, { 0x7ffc0000, 4 }, NOTIF_ },
	{ "acct", ALLP, X86, __NR_acct, { 0 }, NOTIF_ },
	{ "fanotify_init", ALLP, X86, __NR_fanotify_init, { 0, 0 }, NOTIF_ },
	{ "mount", ALLP, X86, __NR_mount, { 0 }, NOTIF_ },
	{ "bpf", ALLP, X86, __NR_bpf, { 0 }, NOTIF_ },
	/* no row, or a REFUSE row: refused and recorded */
	{ "999 (no row)", ALLP, X86, 999, { 0 }, NOTIF_ },
	{ "1023 (no row, last below CW_NSYSCALLS)", ALLP, X86, 1023, { 0 }, NOTIF_ },
	{ "file_setattr (469)", ALLP, X86, 469, { 0 }, NOTIF_ },
	{ "open_tree_attr (467)", ALLP, X86, 467, { 0 }, NOTIF_ },
	{ "470 (no row yet)", ALLP, X86, 470, { 0 }, NOTIF_ },
	{ "modify_ldt", ALLP, X86, __NR_modify_ldt, { 1 }, NOTIF_ },
	{ "kcmp", ALLP, X86, __NR_kcmp, { 0 }, NOTIF_ },
	/* numbers no kernel has, below the x32 range: passed (ENOSYS) */
	{ "1024", ALLP, X86, 1024, { 0 }, ALLOW_ },
	{ "5000", ALLP, X86, 5000, { 0 }, ALLOW_ },
	{ "0x3fffffff", ALLP, X86, 0x3fffffff, { 0 }, ALLOW_ },
	{ "-1 (a tracer's skip)", ALLP, X86, 0xffffffffu, { 0 }, ALLOW_ },
	/* x32 numbers and other architectures: killed */
	{ "x32 write (0x40000001)", ALLP, X86, 0x40000000u + 1, { 1, 0, 0 }, KILL_ },
	{ "x32 read (0x40000000)", ALLP, X86, 0x40000000u, { 0 }, KILL_ },
	{ "x32 execve (0x40000208)", ALLP, X86, 0x40000000u + 520, { 0 }, KILL_ },
	{ "x32 openat (0x40000101)", ALLP, X86, 0x40000000u + __NR_openat, { 0 }, KILL_ },
	{ "0x80000000", ALLP, X86, 0x80000000u, { 0 }, KILL_ },
	{ "-2", ALLP, X86, 0xfffffffeu, { 0 }, KILL_ },
	{ "i386 read (int 0x80)", ALLP, AUDIT_ARCH_I386, 3, { 0 }, KILL_ },
	{ "i386 0", ALLP, AUDIT_ARCH_I386, 0, { 0 }, KILL_ },
	{ "i386 execve", ALLP, AUDIT_ARCH_I386, 11, { 0 }, KILL_ },
	{ "aarch64 read", ALLP, AUDIT_ARCH_AARCH64, 63, { 0 }, KILL_ },
	{ "arch 0", ALLP, 0, 0, { 0 }, KILL_ },
	/* ioctl: TIOCSTI only, on the low 32 bits of cmd (K6) */
	{ "ioctl TCGETS", ALLP, X86, __NR_ioctl, { 0, TCGETS, 0x7ffc0000 }, ALLOW_ },
	{ "ioctl FS_IOC_GETFLAGS ('f')", ALLP, X86, __NR_ioctl, { 3, 0x80086601, 0 }, ALLOW_ },
	{ "ioctl FICLONE (0x94)", ALLP, X86, __NR_ioctl, { 3, 0x40049409, 4 }, ALLOW_ },
	{ "ioctl vfat's type 'r'", ALLP, X86, __NR_ioctl, { 3, 0x40047211, 0 }, NOTIF_ },
	{ "ioctl type 'r', upper half set", ALLP, X86, __NR_ioctl, { 3, (1ull << 32) | 0x40047211, 0 }, NOTIF_ },
	{ "ioctl f2fs (0xf5)", ALLP, X86, __NR_ioctl, { 3, 0x8004f50c, 0 }, NOTIF_ },
	{ "ioctl FIONREAD", ALLP, X86, __NR_ioctl, { 0, FIONREAD, 0x7ffc0000 }, ALLOW_ },
	{ "ioctl TIOCSTI", ALLP, X86, __NR_ioctl, { 0, TIOCSTI, 0x7ffc0000 }, NOTIF_ },
	{ "ioctl 1<<32|TIOCSTI", ALLP, X86, __NR_ioctl, { 0, HI | TIOCSTI, 0x7ffc0000 }, NOTIF_ },
	{ "ioctl ~0<<32|TIOCSTI", ALLP, X86, __NR_ioctl, { 0, 0xffffffff00000000ull | TIOCSTI, 0 }, NOTIF_ },
	{ "ioctl TIOCSTI as the fd, TCGETS", ALLP, X86, __NR_ioctl, { TIOCSTI, TCGETS, 0 }, ALLOW_ },
	{ "ioctl TIOCSTI as the pointer", ALLP, X86, __NR_ioctl, { 0, TCGETS, TIOCSTI }, ALLOW_ },
	{ "ioctl 1<<32|TCGETS", ALLP, X86, __NR_ioctl, { 0, HI | TCGETS, 0 }, ALLOW_ },
	/* setsockopt: the (level, optname) pairs that reroute (e121), both
	 * on their low 32 bits; every other option passes */
	{ "setsockopt SOL_IP IP_OPTIONS", ALLP, X86, __NR_setsockopt, { 3, 0, 4, 0x7ffc0000, 8 }, NOTIF_ },
	{ "setsockopt SOL_IP IP_RECVERR (glibc's resolver)", ALLP, X86, __NR_setsockopt, { 3, 0, 11, 0x7ffc0000, 4 }, ALLOW_ },
	{ "recvmsg MSG_ERRQUEUE", ALLP, X86, __NR_recvmsg, { 3, 0x7ffc0000, 0x2000 }, NOTIF_ },
	{ "recvmsg MSG_ERRQUEUE|MSG_DONTWAIT", ALLP, X86, __NR_recvmsg, { 3, 0x7ffc0000, 0x2040 }, NOTIF_ },
	{ "recvmsg MSG_DONTWAIT", ALLP, X86, __NR_recvmsg, { 3, 0x7ffc0000, 0x40 }, ALLOW_ },
	{ "recvfrom MSG_ERRQUEUE", ALLP, X86, __NR_recvfrom, { 3, 0x7ffc0000, 100, 0x2000, 0, 0 }, NOTIF_ },
	{ "recvfrom 0x2000 as the length", ALLP, X86, __NR_recvfrom, { 3, 0x7ffc0000, 0x2000, 0, 0, 0 }, ALLOW_ },
	{ "recvmmsg MSG_ERRQUEUE", ALLP, X86, __NR_recvmmsg, { 3, 0x7ffc0000, 4, 0x2000, 0 }, NOTIF_ },
	{ "setsockopt 1<<32|SOL_IP, 1<<32|IP_OPTIONS", ALLP, X86, __NR_setsockopt, { 3, HI, HI | 4, 0x7ffc0000, 8 }, NOTIF_ },
	{ "setsockopt SOL_IPV6 IPV6_RTHDR", ALLP, X86, __NR_setsockopt, { 3, 41, 57, 0x7ffc0000, 24 }, NOTIF_ },
	{ "setsockopt SOL_IPV6 IPV6_2292PKTOPTIONS", ALLP, X86, __NR_setsockopt, { 3, 41, 6, 0x7ffc0000, 24 }, NOTIF_ },
	{ "setsockopt SOL_IP IP_TRANSPARENT", ALLP, X86, __NR_setsockopt, { 3, 0, 19, 0x7ffc0000, 4 }, NOTIF_ },
	{ "setsockopt SOL_IP IP_HDRINCL", ALLP, X86, __NR_setsockopt, { 3, 0, 3, 0x7ffc0000, 4 }, NOTIF_ },
	{ "setsockopt SOL_SOCKET SO_BINDTODEVICE", ALLP, X86, __NR_setsockopt, { 3, 1, 25, 0x7ffc0000, 4 }, NOTIF_ },
	{ "setsockopt SOL_SOCKET SO_BINDTOIFINDEX", ALLP, X86, __NR_setsockopt, { 3, 1, 62, 0x7ffc0000, 4 }, NOTIF_ },
	{ "setsockopt SOL_SOCKET SO_REUSEADDR (2)", ALLP, X86, __NR_setsockopt, { 3, 1, 2, 0x7ffc0000, 4 }, ALLOW_ },
	{ "setsockopt SOL_SOCKET 4 (IP_OPTIONS' number)", ALLP, X86, __NR_setsockopt, { 3, 1, 4, 0x7ffc0000, 4 }, ALLOW_ },
	{ "setsockopt IPPROTO_TCP TCP_NODELAY", ALLP, X86, __NR_setsockopt, { 3, 6, 1, 0x7ffc0000, 4 }, ALLOW_ },
	{ "setsockopt IPPROTO_TCP 4 (TCP_KEEPIDLE)", ALLP, X86, __NR_setsockopt, { 3, 6, 4, 0x7ffc0000, 4 }, ALLOW_ },
	{ "setsockopt SOL_IPV6 IPV6_2292RTHDR (a receive flag)", ALLP, X86, __NR_setsockopt, { 3, 41, 5, 0x7ffc0000, 4 }, ALLOW_ },
	{ "setsockopt SOL_IP as the fd, IP_OPTIONS as the level", ALLP, X86, __NR_setsockopt, { 0, 4, 0, 0, 0 }, ALLOW_ },
	{ "getsockopt SOL_IP IP_OPTIONS", ALLP, X86, __NR_getsockopt, { 3, 0, 4, 0x7ffc0000, 0x7ffc1000 }, ALLOW_ },
	/* fcntl: what names or signals the owner (F_SETOWN, F_SETOWN_EX,
	 * F_SETSIG, F_SETLEASE, F_NOTIFY) and F_SETFL turning O_ASYNC on,
	 * on the low 32 bits */
	{ "fcntl F_GETFL", ALLP, X86, __NR_fcntl, { 3, F_GETFL }, ALLOW_ },
	{ "fcntl F_SETFL", ALLP, X86, __NR_fcntl, { 3, F_SETFL, O_NONBLOCK }, ALLOW_ },
	{ "fcntl F_SETFL O_ASYNC", ALLP, X86, __NR_fcntl, { 3, F_SETFL, O_NONBLOCK | O_ASYNC }, NOTIF_ },
	{ "fcntl F_SETFL 1<<32|O_ASYNC", ALLP, X86, __NR_fcntl, { 3, HI | F_SETFL, HI | O_ASYNC }, NOTIF_ },
	{ "fcntl F_SETFL O_ASYNC<<32", ALLP, X86, __NR_fcntl, { 3, F_SETFL, (uint64_t)O_ASYNC << 32 }, ALLOW_ },
	{ "fcntl F_GETFL O_ASYNC", ALLP, X86, __NR_fcntl, { 3, F_GETFL, O_ASYNC }, ALLOW_ },
	{ "fcntl F_DUPFD (0)", ALLP, X86, __NR_fcntl, { 3, F_DUPFD, 10 }, ALLOW_ },
	{ "fcntl F_SETSIG", ALLP, X86, __NR_fcntl, { 3, F_SETSIG, 10 }, NOTIF_ },
	{ "fcntl F_SETLEASE", ALLP, X86, __NR_fcntl, { 3, F_SETLEASE, F_RDLCK }, NOTIF_ },
	{ "fcntl F_NOTIFY", ALLP, X86, __NR_fcntl, { 3, F_NOTIFY, DN_MODIFY }, NOTIF_ },
	{ "fcntl F_SETOWN", ALLP, X86, __NR_fcntl, { 3, F_SETOWN, 1 }, NOTIF_ },
	{ "fcntl 1<<32|F_SETOWN", ALLP, X86, __NR_fcntl, { 3, HI | F_SETOWN, 1 }, NOTIF_ },
	{ "fcntl F_SETOWN_EX", ALLP, X86, __NR_fcntl, { 3, F_SETOWN_EX, 0x7ffc0000 }, NOTIF_ },
	{ "fcntl 1<<32|F_SETOWN_EX", ALLP, X86, __NR_fcntl, { 3, HI | F_SETOWN_EX, 0x7ffc0000 }, NOTIF_ },
	{ "fcntl F_SETOWN as the fd", ALLP, X86, __NR_fcntl, { F_SETOWN, F_GETFL }, ALLOW_ },
	/* sendto: notified with an address, all 64 bits of the pointer */
	{ "sendto, no address", ALLP, X86, __NR_sendto, { 3, 0x7ffc0000, 10, 0, 0, 0 }, ALLOW_ },
	{ "sendto, no address, addrlen 16", ALLP, X86, __NR_sendto, { 3, 0x7ffc0000, 10, 0, 0, 16 }, ALLOW_ },
	{ "sendto, an address", ALLP, X86, __NR_sendto, { 3, 0x7ffc0000, 10, 0, 0x7ffc1000, 16 }, NOTIF_ },
	{ "sendto, address 1<<40", ALLP, X86, __NR_sendto, { 3, 0, 10, 0, 1ull << 40, 16 }, NOTIF_ },
	{ "sendto, address 1<<32", ALLP, X86, __NR_sendto, { 3, 0, 10, 0, HI, 16 }, NOTIF_ },
	{ "sendto, address 1<<63", ALLP, X86, __NR_sendto, { 3, 0, 10, 0, 1ull << 63, 16 }, NOTIF_ },
	{ "sendto, address 1", ALLP, X86, __NR_sendto, { 3, 0, 10, 0, 1, 16 }, NOTIF_ },
	/* clone: namespace and tracing flags on the low 32 bits (the kernel
	 * reads lower_32_bits(clone_flags)); clone3 is ENOSYS */
	{ "clone fork flags", ALLP, X86, __NR_clone, { FORK_FLAGS, 0, 0, 0x7ffc0000, 0 }, ALLOW_ },
	{ "clone thread flags", ALLP, X86, __NR_clone, { THREAD_FLAGS, 0x7f000000, 0x7ffc0000, 0x7ffc0000, 0x7f100000 }, ALLOW_ },
	{ "clone vfork flags", ALLP, X86, __NR_clone, { CLONE_VM | CLONE_VFORK | SIGCHLD }, ALLOW_ },
	{ "clone 1<<32|SIGCHLD", ALLP, X86, __NR_clone, { HI | SIGCHLD }, ALLOW_ },
	{ "clone CLONE_NEWUSER", ALLP, X86, __NR_clone, { CLONE_NEWUSER | SIGCHLD }, NOTIF_ },
	{ "clone CLONE_NEWUSER alone", ALLP, X86, __NR_clone, { CLONE_NEWUSER }, NOTIF_ },
	{ "clone 1<<32|CLONE_NEWNET", ALLP, X86, __NR_clone, { HI | CLONE_NEWNET | SIGCHLD }, NOTIF_ },
	{ "clone fork flags|CLONE_NEWNS", ALLP, X86, __NR_clone, { FORK_FLAGS | CLONE_NEWNS }, NOTIF_ },
	{ "clone CLONE_NEWPID", ALLP, X86, __NR_clone, { CLONE_NEWPID | SIGCHLD }, NOTIF_ },
	{ "clone CLONE_NEWCGROUP", ALLP, X86, __NR_clone, { CLONE_NEWCGROUP | SIGCHLD }, NOTIF_ },
	{ "clone CLONE_UNTRACED", ALLP, X86, __NR_clone, { CLONE_UNTRACED | SIGCHLD }, NOTIF_ },
	{ "clone every flag", ALLP, X86, __NR_clone, { 0xffffffffull }, NOTIF_ },
	{ "clone3", ALLP, X86, __NR_clone3, { 0x7ffc0000, 88 }, ERR_(ENOSYS) },
	{ "clone3, no arguments", ALLP, X86, __NR_clone3, { 0 }, ERR_(ENOSYS) },
	{ "unshare CLONE_FILES", ALLP, X86, __NR_unshare, { CLONE_FILES }, ALLOW_ },
	{ "unshare CLONE_NEWUSER", ALLP, X86, __NR_unshare, { CLONE_NEWUSER }, NOTIF_ },
	{ "unshare CLONE_NEWTIME", ALLP, X86, __NR_unshare, { CLONE_NEWTIME }, NOTIF_ },
	{ "unshare 1<<32|CLONE_NEWNS", ALLP, X86, __NR_unshare, { HI | CLONE_NEWNS }, NOTIF_ },
	/* seccomp: a second listener */
	{ "seccomp filter", ALLP, X86, __NR_seccomp, { SECCOMP_SET_MODE_FILTER, 0, 0x7ffc0000 }, ALLOW_ },
	{ "seccomp filter TSYNC", ALLP, X86, __NR_seccomp, { SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, 0x7ffc0000 }, ALLOW_ },
	{ "seccomp NEW_LISTENER", ALLP, X86, __NR_seccomp, { SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0x7ffc0000 }, NOTIF_ },
	{ "seccomp 1<<32|NEW_LISTENER", ALLP, X86, __NR_seccomp, { SECCOMP_SET_MODE_FILTER, HI | SECCOMP_FILTER_FLAG_NEW_LISTENER, 0x7ffc0000 }, NOTIF_ },
	{ "seccomp NEW_LISTENER as op", ALLP, X86, __NR_seccomp, { SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 0 }, ALLOW_ },
	/* socket: families other than unix, IPv4, IPv6 below 64 */
	{ "socket AF_INET", ALLP, X86, __NR_socket, { AF_INET, SOCK_STREAM, 0 }, ALLOW_ },
	{ "socket AF_INET6", ALLP, X86, __NR_socket, { AF_INET6, SOCK_DGRAM, 0 }, ALLOW_ },
	{ "socket AF_UNIX", ALLP, X86, __NR_socket, { AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0 }, ALLOW_ },
	{ "socket 1<<32|AF_INET", ALLP, X86, __NR_socket, { HI | AF_INET, SOCK_STREAM, 0 }, ALLOW_ },
	{ "socket AF_NETLINK", ALLP, X86, __NR_socket, { AF_NETLINK, SOCK_RAW, 0 }, NOTIF_ },
	{ "socket AF_PACKET", ALLP, X86, __NR_socket, { AF_PACKET, SOCK_RAW, 0x300 }, NOTIF_ },
	{ "socket AF_UNSPEC", ALLP, X86, __NR_socket, { AF_UNSPEC, SOCK_STREAM, 0 }, NOTIF_ },
	{ "socket AF_VSOCK", ALLP, X86, __NR_socket, { AF_VSOCK, SOCK_STREAM, 0 }, NOTIF_ },
	{ "socket 63", ALLP, X86, __NR_socket, { 63, SOCK_STREAM, 0 }, NOTIF_ },
	{ "socket 1<<32|AF_NETLINK", ALLP, X86, __NR_socket, { HI | AF_NETLINK, SOCK_RAW, 0 }, NOTIF_ },
	{ "socket AF_INET as the type, AF_NETLINK", ALLP, X86, __NR_socket, { AF_NETLINK, AF_INET, 0 }, NOTIF_ },
	/* >= 64: not in the bitmap, and the kernel fails them (NPROTO is 46) */
	{ "socket 64", ALLP, X86, __NR_socket, { 64, SOCK_STREAM, 0 }, ALLOW_ },
	{ "socket 0xffffffff", ALLP, X86, __NR_socket, { 0xffffffffull, SOCK_STREAM, 0 }, ALLOW_ },
	/* personality: notified when a weakening bit is set */
	{ "personality(PER_LINUX)", ALLP, X86, __NR_personality, { PER_LINUX }, ALLOW_ },
	{ "personality(PER_LINUX32)", ALLP, X86, __NR_personality, { PER_LINUX32 }, ALLOW_ },
	{ "personality(0xffffffff) (query)", ALLP, X86, __NR_personality, { 0xffffffffull }, NOTIF_ },
	{ "personality(READ_IMPLIES_EXEC)", ALLP, X86, __NR_personality, { READ_IMPLIES_EXEC }, NOTIF_ },
	{ "personality(ADDR_NO_RANDOMIZE)", ALLP, X86, __NR_personality, { ADDR_NO_RANDOMIZE }, NOTIF_ },
	{ "personality(1<<32|ADDR_NO_RANDOMIZE)", ALLP, X86, __NR_personality, { HI | ADDR_NO_RANDOMIZE }, NOTIF_ },
	{ "personality(MMAP_PAGE_ZERO)", ALLP, X86, __NR_personality, { MMAP_PAGE_ZERO }, NOTIF_ },
	/* io_uring_enter/register: decided in the filter by the profile */
	{ "io_uring_enter, verify", P_VERIFY, X86, __NR_io_uring_enter, { 3, 1, 0, 0 }, ERR_(EPERM) },
	{ "io_uring_register, verify", P_VERIFY, X86, __NR_io_uring_register, { 3, 0 }, ERR_(EPERM) },
	{ "io_uring_enter, observe", P_OBSERVE, X86, __NR_io_uring_enter, { 3, 1, 0, 0 }, ALLOW_ },
	{ "io_uring_register, observe", P_OBSERVE, X86, __NR_io_uring_register, { 3, 0 }, ALLOW_ },
	{ "io_uring_enter, verify --observe", P_VERIFY_OBS, X86, __NR_io_uring_enter, { 3, 1 }, ALLOW_ },
	{ "io_uring_register, verify --observe", P_VERIFY_OBS, X86, __NR_io_uring_register, { 3, 0 }, ALLOW_ },
	{ "io_uring_enter, unrestricted allow [io_uring_enter]", P_URING_ENTER, X86, __NR_io_uring_enter, { 3, 1 }, ALLOW_ },
	{ "io_uring_register, unrestricted allow [io_uring_enter]", P_URING_ENTER, X86, __NR_io_uring_register, { 3, 0 }, ERR_(EPERM) },
};

static void test_cases(void **state)
{
	(void)state;
	char what[160], got_s[40], want_s[40];
	int bad = 0;
	size_t n = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct tcase *c = &cases[i];
		for (int p = 0; p < P__COUNT; p++) {
			if (c->prof != ALLP && c->prof != p)
				continue;
			snprintf(what, sizeof what, "[%s] %s (nr %u)", prof_name[p], c->what, c->nr);
			uint32_t got = eval(p, c->arch, c->nr, c->args, what);
			n++;
			if (got != c->want) {
				fprintf(stderr, "FAIL %s: got %s, want %s\n", what,
					ret_name(got, got_s, sizeof got_s), ret_name(c->want, want_s, sizeof want_s));
				bad++;
			}
		}
	}
	fprintf(stderr, "%zu table cases (%zu evaluations over %d profiles), %d wrong\n",
		sizeof cases / sizeof cases[0], n, P__COUNT, bad);
	assert_int_equal(bad, 0);
}

/* ---- the property: every number below CW_NSYSCALLS follows its row ---- */

static bool escape_allowed_in(enum prof p, const char *name)
{
	if (p == P_OBSERVE || p == P_VERIFY_OBS)
		return true;
	return p == P_URING_ENTER && strcmp(name, "io_uring_enter") == 0;
}

/* What the row says for these arguments (handlers.h), written from the
 * rule's definition: integer arguments on their low 32 bits, the
 * NOTIFY_ARG_SET pointer on all 64. */
static uint32_t model(enum prof p, const struct cw_syscall *s, const uint64_t args[6])
{
	uint32_t lo = (uint32_t)args[s->arg];
	switch (s->rule) {
	case CW_RULE_ALLOW:
		return ALLOW_;
	case CW_RULE_NONE:
	case CW_RULE_NOTIFY:
	case CW_RULE_ESCAPE:
		return NOTIF_;
	case CW_RULE_NOTIFY_ARG_SET:
		return args[s->arg] != 0 ? NOTIF_ : ALLOW_;
	case CW_RULE_ESCAPE_FLAGS:
		return (lo & s->mask) ? NOTIF_ : ALLOW_;
	case CW_RULE_ESCAPE_EQ:
		return lo == s->mask ? NOTIF_ : ALLOW_;
	case CW_RULE_NOTIFY_EQ:
		return lo == s->mask || (s->val2 && lo == s->val2) ? NOTIF_ : ALLOW_;
	case CW_RULE_NOTIFY_UNLISTED:
		return lo < 64 && !(s->allow_set & (1ull << lo)) ? NOTIF_ : ALLOW_;
	case CW_RULE_ESCAPE_SILENT:
		return escape_allowed_in(p, s->name) ? ALLOW_ : ERR_(EPERM);
	case CW_RULE_ENOSYS:
		return ERR_(ENOSYS);
	case CW_RULE_NOTIFY_IN:
		for (unsigned i = 0; i < s->nvals; i++)
			if (lo == s->vals[i])
				return NOTIF_;
		if (s->type_allow) {
			unsigned t = (lo >> 8) & 0xff;
			if (!(s->type_allow[t / 64] & (1ull << (t % 64))))
				return NOTIF_;
		}
		return ALLOW_;
	case CW_RULE_NOTIFY_IN_BIT:
		for (unsigned i = 0; i < s->nvals; i++)
			if (lo == s->vals[i])
				return NOTIF_;
		return lo == s->mask && ((uint32_t)args[s->arg + 1] & s->val2) == s->val2 ? NOTIF_ : ALLOW_;
	case CW_RULE_NOTIFY_PAIRS:
		for (unsigned i = 0; i < s->nvals; i++)
			if (lo == s->vals[2 * i] && (uint32_t)args[s->arg + 1] == s->vals[2 * i + 1])
				return NOTIF_;
		return ALLOW_;
	}
	fail_msg("row %s: unknown rule %d", s->name ? s->name : "?", s->rule);
	return 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	/* splitmix64: fixed seed, the same arguments every run */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Values worth putting in the row's argument: around its mask, value and
 * set, with and without the upper half. */
static size_t interesting(const struct cw_syscall *s, uint64_t *v, size_t max)
{
	size_t n = 0;
#define PUT(x) do { if (n < max) v[n++] = (x); } while (0)
	PUT(0);
	PUT(~0ull);
	PUT(HI);
	PUT(0xffffffffull);
	PUT(0xffffffff00000000ull);
	switch (s->rule) {
	case CW_RULE_ESCAPE_FLAGS:
		for (int b = 0; b < 32; b++) {
			PUT(1ull << b);
			PUT(HI | (1ull << b));
		}
		PUT(~(uint64_t)s->mask);
		PUT((uint32_t)~s->mask);
		break;
	case CW_RULE_ESCAPE_EQ:
	case CW_RULE_NOTIFY_EQ:
		for (int d = -2; d <= 2; d++) {
			PUT((uint32_t)(s->mask + d));
			PUT(HI | (uint32_t)(s->mask + d));
			PUT(0xffffffff00000000ull | (uint32_t)(s->mask + d));
			PUT((uint32_t)(s->val2 + d));
			PUT(HI | (uint32_t)(s->val2 + d));
		}
		break;
	case CW_RULE_NOTIFY_PAIRS: /* the first of each pair; the second: pair_partners() */
		for (unsigned k = 0; k < s->nvals; k++)
			for (int d = -1; d <= 1; d++) {
				PUT((uint32_t)(s->vals[2 * k] + d));
				PUT(HI | (uint32_t)(s->vals[2 * k] + d));
			}
		break;
	case CW_RULE_NOTIFY_IN_BIT: /* the bit's argument: the partners in test_every_number */
		for (int d = -1; d <= 1; d++) {
			PUT((uint32_t)(s->mask + d));
			PUT(HI | (uint32_t)(s->mask + d));
		}
		__attribute__((fallthrough)); /* the values */
	case CW_RULE_NOTIFY_IN:
		for (unsigned k = 0; k < s->nvals; k++)
			for (int d = -1; d <= 1; d++) {
				PUT((uint32_t)(s->vals[k] + d));
				PUT(HI | (uint32_t)(s->vals[k] + d));
			}
		/* every type byte, with and without the upper half */
		for (uint32_t t = 0; s->type_allow && t < 256; t += 7) {
			PUT((t << 8) | 0x01);
			PUT(HI | (t << 8) | 0x42);
		}
		break;
	case CW_RULE_NOTIFY_UNLISTED:
		for (uint64_t f = 0; f < 70; f++) {
			PUT(f);
			PUT(HI | f);
		}
		break;
	case CW_RULE_NOTIFY_ARG_SET:
		for (int b = 0; b < 64; b++)
			PUT(1ull << b);
		break;
	default:
		break;
	}
	for (int i = 0; i < 8; i++)
		PUT(rnd());
#undef PUT
	return n;
}

static void test_every_number(void **state)
{
	(void)state;
	char what[160], got_s[40], want_s[40];
	int bad = 0;
	unsigned long evals = 0;
	unsigned kinds[CW_RULE_NOTIFY_PAIRS + 1] = { 0 };
	for (int p = 0; p < P__COUNT; p++) {
		for (int nr = 0; nr < CW_NSYSCALLS; nr++) {
			const struct cw_syscall *s = &cw_syscalls[nr];
			uint64_t vals[256];
			size_t nv = interesting(s, vals, 256);
			if (p == 0)
				kinds[s->rule]++;
			/* NOTIFY_PAIRS: every value above against every value
			 * around the second members in the next argument. */
			uint64_t partners[128];
			size_t np = 1;
			if (s->rule == CW_RULE_NOTIFY_PAIRS) {
				np = 0;
				partners[np++] = 0;
				partners[np++] = ~0ull;
				for (unsigned k = 0; k < s->nvals && np + 6 <= 128; k++)
					for (int d = -1; d <= 1; d++) {
						partners[np++] = (uint32_t)(s->vals[2 * k + 1] + d);
						partners[np++] = HI | (uint32_t)(s->vals[2 * k + 1] + d);
					}
			} else if (s->rule == CW_RULE_NOTIFY_IN_BIT) {
				/* the bit alone, with others, in the upper half */
				np = 0;
				partners[np++] = 0;
				partners[np++] = ~0ull;
				partners[np++] = s->val2;
				partners[np++] = HI | s->val2;
				partners[np++] = (uint64_t)s->val2 << 32;
				partners[np++] = ~(uint64_t)s->val2;
				partners[np++] = s->val2 | 04000; /* O_NONBLOCK */
			}
			for (size_t ij = 0; ij < nv * np; ij++) {
				size_t i = ij / np, j = ij % np;
				uint64_t args[6];
				for (int a = 0; a < 6; a++)
					args[a] = (i & 1) ? rnd() : (i & 2) ? ~0ull : 0;
				args[s->arg] = vals[i];
				if (s->rule == CW_RULE_NOTIFY_PAIRS || s->rule == CW_RULE_NOTIFY_IN_BIT)
					args[s->arg + 1] = partners[j];
				snprintf(what, sizeof what, "[%s] nr %d (%s, rule %d) args[%u]=0x%llx args[%u]=0x%llx",
					 prof_name[p], nr, s->name ? s->name : "no row", s->rule,
					 s->arg, (unsigned long long)vals[i], s->arg + 1u,
					 (unsigned long long)(s->arg < 5 ? args[s->arg + 1] : 0));
				uint32_t got = eval(p, X86, (uint32_t)nr, args, what);
				uint32_t want = model(p, s, args);
				evals++;
				/* Default deny, independent of the model: a number
				 * whose row is not ALLOW (or one of the conditional
				 * rules, or a silent escape the profile allows) never
				 * passes. */
				bool may_pass = s->rule == CW_RULE_ALLOW ||
					s->rule == CW_RULE_NOTIFY_ARG_SET || s->rule == CW_RULE_ESCAPE_FLAGS ||
					s->rule == CW_RULE_ESCAPE_EQ || s->rule == CW_RULE_NOTIFY_EQ ||
					s->rule == CW_RULE_NOTIFY_UNLISTED || s->rule == CW_RULE_NOTIFY_IN ||
					s->rule == CW_RULE_NOTIFY_PAIRS || s->rule == CW_RULE_NOTIFY_IN_BIT ||
					(s->rule == CW_RULE_ESCAPE_SILENT && escape_allowed_in(p, s->name));
				if (got == ALLOW_ && !may_pass) {
					fprintf(stderr, "FAIL %s: passes in the kernel without an ALLOW row\n", what);
					bad++;
				} else if (got != want) {
					if (bad < 50)
						fprintf(stderr, "FAIL %s: got %s, want %s\n", what,
							ret_name(got, got_s, sizeof got_s),
							ret_name(want, want_s, sizeof want_s));
					bad++;
				}
				if (s->rule == CW_RULE_ALLOW && got != ALLOW_) {
					fprintf(stderr, "FAIL %s: an ALLOW row is not passed\n", what);
					bad++;
				}
			}
		}
	}
	fprintf(stderr, "every number: %lu evaluations; rows by rule:", evals);
	for (unsigned k = 0; k <= CW_RULE_NOTIFY_PAIRS; k++)
		fprintf(stderr, " %u:%u", k, kinds[k]);
	fprintf(stderr, "; %d wrong\n", bad);
	assert_int_equal(bad, 0);
}

/* Numbers at and above CW_NSYSCALLS: passed below the x32 range, killed
 * in it (but -1), whatever the arguments. */
static void test_outside_the_table(void **state)
{
	(void)state;
	char what[96], got_s[40];
	int bad = 0;
	for (int p = 0; p < P__COUNT; p++) {
		for (int i = 0; i < 4000; i++) {
			uint32_t nr;
			if (i < 1024)
				nr = CW_NSYSCALLS + (uint32_t)i;
			else if (i < 2048)
				nr = 0x40000000u + (uint32_t)(i - 1024);
			else if (i < 3000)
				nr = CW_NSYSCALLS + (uint32_t)(rnd() % (0x40000000u - CW_NSYSCALLS));
			else
				nr = 0x40000000u + (uint32_t)(rnd() % 0xc0000000u);
			uint32_t want = nr == 0xffffffffu || nr < 0x40000000u ? ALLOW_ : KILL_;
			uint64_t args[6];
			for (int a = 0; a < 6; a++)
				args[a] = rnd();
			snprintf(what, sizeof what, "[%s] nr 0x%x", prof_name[p], nr);
			uint32_t got = eval(p, X86, nr, args, what);
			if (got != want) {
				if (bad < 20)
					fprintf(stderr, "FAIL %s: got %s\n", what, ret_name(got, got_s, sizeof got_s));
				bad++;
			}
			/* and on any other architecture, killed */
			uint32_t arch = (i & 1) ? AUDIT_ARCH_I386 : (uint32_t)rnd();
			if (arch == AUDIT_ARCH_X86_64)
				continue;
			got = eval(p, arch, nr % CW_NSYSCALLS, args, what);
			if (got != KILL_) {
				if (bad < 20)
					fprintf(stderr, "FAIL %s arch 0x%x: got %s\n", what, arch,
						ret_name(got, got_s, sizeof got_s));
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
}

/* The interpreter itself: it runs a small hand-written program right and
 * refuses what it does not know, so that it cannot pass silently. */
static int exec_insns(const struct sock_filter *insns, unsigned short n, const struct seccomp_data *d,
		      uint32_t *ret, char *err, size_t errsz)
{
	struct sock_fprog f = { .len = n, .filter = (struct sock_filter *)insns };
	return bpf_exec(&f, d, "hand", ret, err, errsz);
}

static void test_interpreter(void **state)
{
	(void)state;
	char err[256];
	uint32_t r;
	struct seccomp_data d = { .nr = 5, .arch = AUDIT_ARCH_X86_64 };
	d.args[1] = 0x0000000700000003ull;
	/* nr & 4 ? (args[1] high word == 7 ? 0x1234 : 1) : 1, through JSET */
	const struct sock_filter good[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 6),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 4, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 7, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x1234),
		BPF_STMT(BPF_RET | BPF_K, 1),
	};
	assert_int_equal(exec_insns(good, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 0x1234);
	d.args[1] = 0x0000000800000007ull; /* the low word is not the high one */
	assert_int_equal(exec_insns(good, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 1);
	d.nr = 3;
	d.args[1] = 0x0000000700000003ull;
	assert_int_equal(exec_insns(good, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 1);
	const struct sock_filter jgt[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 3, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 3, 1, 2),
		BPF_STMT(BPF_RET | BPF_K, 10),
		BPF_STMT(BPF_RET | BPF_K, 20),
		BPF_STMT(BPF_JMP | BPF_JA, 0),
		BPF_STMT(BPF_RET | BPF_K, 30),
	};
	d.nr = 4; /* > 3 */
	assert_int_equal(exec_insns(jgt, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 10);
	d.nr = 3; /* >= 3 */
	assert_int_equal(exec_insns(jgt, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 20);
	d.nr = 2; /* neither: ja 0, ret 30 */
	assert_int_equal(exec_insns(jgt, 7, &d, &r, err, sizeof err), 0);
	assert_int_equal(r, 30);

	const struct sock_filter unknown[] = {
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter jeq_x[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter len_load[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter ret_a[] = { BPF_STMT(BPF_RET | BPF_A, 0) };
	const struct sock_filter imm[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_IMM, 1), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter st[] = { BPF_STMT(BPF_ST, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter mem[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_MEM, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter tax[] = {
		BPF_STMT(BPF_MISC | BPF_TAX, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter past[] = {
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter past_f[] = {
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 0, 0, 1), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter ja_past[] = {
		BPF_STMT(BPF_JMP | BPF_JA, 1), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter off_end[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 1) };
	const struct sock_filter far_load[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, sizeof(struct seccomp_data)), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter odd_load[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct sock_filter byte_load[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0), BPF_STMT(BPF_RET | BPF_K, 0) };
	const struct { const struct sock_filter *f; unsigned short n; const char *msg; } bad[] = {
		{ unknown, 2, "opcode 0x0004" }, { jeq_x, 2, "opcode 0x001d" },
		{ len_load, 2, "opcode 0x0080" }, { ret_a, 1, "opcode 0x0016" },
		{ imm, 2, "opcode 0x0000" }, { st, 2, "opcode 0x0002" },
		{ mem, 2, "opcode 0x0060" }, { tax, 2, "opcode 0x0007" },
		{ past, 2, "past the end" }, { past_f, 2, "past the end" }, { ja_past, 2, "past the end" },
		{ off_end, 2, "ran off the end" }, { far_load, 2, "outside seccomp_data" },
		{ odd_load, 2, "outside seccomp_data" }, { byte_load, 2, "opcode 0x0030" },
		{ good, 0, "ran off the end" },
	};
	d.nr = 0;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		if (exec_insns(bad[i].f, bad[i].n, &d, &r, err, sizeof err) != -1 || !strstr(err, bad[i].msg))
			fail_msg("bad program %zu accepted or wrong message (\"%s\", want \"%s\")",
				 i, err, bad[i].msg);
	}
	/* the real programs end in a return */
	for (int p = 0; p < P__COUNT; p++) {
		assert_true(progs[p].len > 0);
		assert_int_equal(progs[p].filter[progs[p].len - 1].code, BPF_RET | BPF_K);
	}
}

/* Coverage (run last): every compare, load and jump of every real program
 * was run by some case above, and every return value in it was returned.
 * A return that was never run must be one libseccomp leaves behind where
 * no number can arrive: the default action (ALLOW) after a group of
 * compares that covers its whole range (every number in it has a rule),
 * or the bad-arch KILL at the very end (the arch and x32 checks jump to
 * their own). Anything else never run is an error. */
static void test_coverage(void **state)
{
	(void)state;
	bool verbose = getenv("CW_FILTER_TEST_VERBOSE") != NULL;
	const char *dump = getenv("CW_FILTER_TEST_DUMP"); /* a profile name */
	int bad = 0;
	for (int p = 0; p < P__COUNT; p++) {
		const struct sock_fprog *f = &progs[p];
		unsigned ops[256] = { 0 }, dead = 0;
		for (unsigned pc = 0; pc < f->len; pc++) {
			const struct sock_filter *in = &f->filter[pc];
			ops[in->code & 0xff]++;
			if (dump && strcmp(dump, prof_name[p]) == 0)
				fprintf(stderr, "%4u%c 0x%02x jt %3u jf %3u k 0x%08x\n", pc,
					hits[p][pc] ? ' ' : '!', in->code, in->jt, in->jf, in->k);
			if (hits[p][pc])
				continue;
			bool leftover = in->code == (BPF_RET | BPF_K) &&
				(in->k == SECCOMP_RET_ALLOW ||
				 (pc == f->len - 1u && in->k == SECCOMP_RET_KILL_PROCESS));
			if (leftover) {
				dead++;
				continue;
			}
			fprintf(stderr, "%s: instruction %u (code 0x%02x k 0x%x) never run\n",
				prof_name[p], pc, in->code, in->k);
			bad++;
		}
		/* every return value of the program was returned */
		for (unsigned pc = 0; pc < f->len; pc++) {
			const struct sock_filter *in = &f->filter[pc];
			if (in->code != (BPF_RET | BPF_K))
				continue;
			bool seen = false;
			for (unsigned q = 0; q < f->len && !seen; q++)
				seen = hits[p][q] && f->filter[q].code == (BPF_RET | BPF_K) &&
				       f->filter[q].k == in->k;
			if (!seen) {
				fprintf(stderr, "%s: return 0x%08x never returned\n", prof_name[p], in->k);
				bad++;
			}
		}
		if (verbose) {
			fprintf(stderr, "%s: %u instructions, %u leftover returns never run; opcodes:",
				prof_name[p], f->len, dead);
			for (unsigned c = 0; c < 256; c++)
				if (ops[c])
					fprintf(stderr, " 0x%02x:%u", c, ops[c]);
			fprintf(stderr, "\n");
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_number),
		cmocka_unit_test(test_outside_the_table),
		cmocka_unit_test(test_interpreter),
		cmocka_unit_test(test_coverage),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
