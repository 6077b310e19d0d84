/* E05: the x32 ABI: openat under its x32 number (0x40000000 | 257). */
#include "esc.h"
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e05_x32 FILE");
	long fd = esc_raw6(0x40000000L | 257, AT_FDCWD, (long)argv[1], O_WRONLY | O_APPEND, 0, 0, 0);
	printf("x32 openat -> %ld\n", fd);
	if (fd < 0)
		return fd == -ENOSYS ? 38 : 1;
	esc_raw6(SYS_write, fd, (long)"pwn-e05\n", 8, 0, 0, 0);
	return 0;
}
