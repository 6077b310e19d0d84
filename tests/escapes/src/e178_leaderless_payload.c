/* E178 (red team 15): a payload whose leader leaves at once.
 * Built -nostdlib -static: no notified call before the leader's exit.
 * _start: clone(CLONE_THREAD) a thread; the leader exits (SYS_exit, its
 * task a zombie, its mm gone: /proc/PID/exe then fails with ENOENT, and
 * check_image takes the process for "gone already"); the thread waits a
 * little, then creates argv[1] (the marker) with O_APPEND. */
#include <sys/syscall.h>
#include <linux/sched.h>
#include <fcntl.h>
static long sc(long n, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}
static char stack[65536] __attribute__((aligned(16)));
static const char *marker;
static void thread_main(void)
{
	struct { long s, ns; } ts = { 0, 3000000 }; /* 3 ms: the leader's exit first */
	sc(SYS_nanosleep, (long)&ts, 0, 0, 0, 0);
	long fd = sc(SYS_open, (long)marker, O_WRONLY | O_CREAT | O_APPEND, 0644, 0, 0);
	if (fd >= 0)
		sc(SYS_write, fd, (long)"payload\n", 8, 0, 0);
	sc(SYS_exit_group, fd >= 0 ? 0 : 1, 0, 0, 0, 0);
}
__attribute__((used)) void cstart(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	marker = argc > 1 ? argv[1] : "PAYLOAD_RAN";
#ifdef FORK_CHILD
	/* e178c: a child forked (not notified) before check_image looks at
	 * the exec'd process; check_image kills that process only, and the
	 * child has no exec event of its own. FORK_BURST children: each
	 * fork event is one more chance that capwatch reads it before the
	 * kernel attaches the child to the cgroup (CI, 2026-12-07: one run
	 * in 1,622; cgmember.c). */
#ifndef FORK_BURST
#define FORK_BURST 1
#endif
	long c = 0;
	for (int i = 0; i < FORK_BURST; i++) {
		c = sc(SYS_fork, 0, 0, 0, 0, 0);
		if (c <= 0)
			break;
	}
	if (c == 0) {
		long fd = sc(SYS_open, (long)marker, O_WRONLY | O_CREAT | O_APPEND, 0644, 0, 0);
		if (fd >= 0)
			sc(SYS_write, fd, (long)"payload\n", 8, 0, 0);
		sc(SYS_exit_group, fd >= 0 ? 0 : 1, 0, 0, 0, 0);
	}
	while (sc(SYS_wait4, -1, 0, 0, 0, 0) > 0)
		;
	sc(SYS_exit_group, 0, 0, 0, 0, 0);
#endif
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	long r;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	/* child: new stack, calls thread_main (never returns) */
	__asm__ volatile("syscall\n\t"
			 "test %%rax,%%rax\n\t"
			 "jnz 1f\n\t"
			 "call *%%rbx\n\t"
			 "1:"
			 : "=a"(r)
			 : "a"(SYS_clone), "D"(flags), "S"(stack + sizeof(stack)), "d"(0), "r"(r10), "r"(r8),
			   "b"(thread_main)
			 : "rcx", "r11", "memory");
	if (r < 0)
		sc(SYS_exit_group, 2, 0, 0, 0, 0);
#ifdef LEADER_STAYS
	for (;;) { /* control: the leader stays (check_image sees the image) */
		struct { long s, ns; } ts = { 1, 0 };
		sc(SYS_nanosleep, (long)&ts, 0, 0, 0, 0);
	}
#endif
	for (;;)
		sc(SYS_exit, 0, 0, 0, 0, 0); /* the leader alone */
}
__asm__(".globl _start\n_start:\n\tmov %rsp,%rdi\n\tand $-16,%rsp\n\tcall cstart\n\thlt\n");
