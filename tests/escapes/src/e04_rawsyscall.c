/* E04: openat + write with the raw syscall instruction, no libc wrapper
 * (and no LD_PRELOAD hook can see it). */
#include "esc.h"
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e04_rawsyscall FILE");
	long fd = esc_raw6(SYS_openat, AT_FDCWD, (long)argv[1], O_WRONLY | O_APPEND, 0, 0, 0);
	printf("openat -> %ld\n", fd);
	if (fd < 0)
		return 1;
	long n = esc_raw6(SYS_write, fd, (long)"pwn-e04\n", 8, 0, 0, 0);
	printf("write -> %ld\n", n);
	return n == 8 ? 0 : 1;
}
