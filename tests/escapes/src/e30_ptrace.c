/* E30: ptrace a process outside the supervised tree (PTRACE_SEIZE +
 * PTRACE_INTERRUPT, then POKEDATA of its marker word; the victim notices).
 * Exit 0 when attached. */
#include "esc.h"
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e30_ptrace PID ADDR");
	pid_t pid = atoi(argv[1]);
	uintptr_t addr = (uintptr_t)strtoull(argv[2], NULL, 0);
	long r = ptrace(PTRACE_SEIZE, pid, 0, 0);
	printf("PTRACE_SEIZE(%d) -> %ld (%s)\n", (int)pid, r, r ? strerror(errno) : "ok");
	if (r)
		return 1;
	ptrace(PTRACE_INTERRUPT, pid, 0, 0);
	int st;
	waitpid(pid, &st, __WALL);
	r = ptrace(PTRACE_POKEDATA, pid, (void *)addr, (void *)0x4457454e5750LL); /* "PWNED" */
	printf("POKEDATA -> %ld\n", r);
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return 0;
}
