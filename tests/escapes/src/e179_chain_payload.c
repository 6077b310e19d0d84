/* E179 (red team 16): e178's leaderless payload, with a thread chain.
 * Built -nostdlib -static: no notified call before the marker's open.
 * The leader clones a thread and exits (its /proc/PID/exe fails); every
 * thread clones the next and exits at once, LINKS times, so that the
 * process always has a live thread but each lives a few microseconds:
 * image_of's fallback lists /proc/PID/task, then stats each entry's exe,
 * and each listed thread is gone by then -> "gone already", no kill.
 * The last link opens argv[1] (the marker). */
#include <sys/syscall.h>
#include <linux/sched.h>
#include <fcntl.h>
#ifndef LINKS
#define LINKS 3000
#endif
#define NST 64
static long sc(long n, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}
static char stacks[NST][8192] __attribute__((aligned(16)));
static long count;
static const char *marker;
static void link_main(void);
/* clone a thread running link_main on stack S; the caller exits at once
 * (no use of its own stack after the clone). */
static void spawn_and_exit(char *s)
{
	long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	__asm__ volatile("syscall\n\t"
			 "test %%rax,%%rax\n\t"
			 "jnz 1f\n\t"
			 "call *%%rbx\n\t"
			 "1:\n\t"
			 "mov $60,%%eax\n\t"
			 "xor %%edi,%%edi\n\t"
			 "syscall\n\t"
			 "hlt"
			 :
			 : "a"(SYS_clone), "D"(flags), "S"(s), "d"(0), "r"(r10), "r"(r8), "b"(link_main)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}
static void link_main(void)
{
	long i = __atomic_add_fetch(&count, 1, __ATOMIC_SEQ_CST);
	if (i >= LINKS) {
		long fd = sc(SYS_open, (long)marker, O_WRONLY | O_CREAT | O_APPEND, 0644, 0, 0);
		if (fd >= 0)
			sc(SYS_write, fd, (long)"payload\n", 8, 0, 0);
		sc(SYS_exit_group, fd >= 0 ? 0 : 1, 0, 0, 0, 0);
	}
	spawn_and_exit(stacks[i % NST] + sizeof(stacks[0]));
}
__attribute__((used)) void cstart(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	marker = argc > 1 ? argv[1] : "PAYLOAD_RAN";
#ifdef FORK_CHILD
	/* e179b: the chain in a child forked at once: check_fork's image_of
	 * races it the same way (its leader gone, "gone already"). */
	if (sc(SYS_fork, 0, 0, 0, 0, 0) != 0)
		sc(SYS_exit_group, 0, 0, 0, 0, 0);
#endif
	spawn_and_exit(stacks[0] + sizeof(stacks[0]));
}
__asm__(".globl _start\n_start:\n\tmov %rsp,%rdi\n\tand $-16,%rsp\n\tcall cstart\n\thlt\n");
