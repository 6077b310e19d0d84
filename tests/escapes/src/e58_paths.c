/* E58: extreme paths. MODE:
 *   nonul  PATH   the path padded with leading '/' to exactly 4096 bytes
 *                 and no NUL, followed by an unmapped page (kernel:
 *                 ENAMETOOLONG)
 *   fits   PATH   the same padded to 4095 bytes + NUL (kernel: opens it)
 *   fault  PATH   the path's last byte is at the end of a page, the next
 *                 page unmapped, no NUL (kernel: EFAULT)
 * Each does open(O_WRONLY|O_APPEND) and appends on success. Prints the
 * result as "open -> 0" or "open -> -ERRNO". */
#include "esc.h"
#include <sys/mman.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e58_paths nonul|fits|fault PATH");
	char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + 2 * 4096, 4096) < 0)
		return 2;
	size_t len = strlen(argv[2]);
	char *p;
	if (!strcmp(argv[1], "fault")) {
		p = m + 2 * 4096 - len;
		memcpy(p, argv[2], len);
	} else {
		size_t total = !strcmp(argv[1], "nonul") ? 4096 : 4095;
		p = m + 2 * 4096 - total - (!strcmp(argv[1], "fits") ? 1 : 0);
		memset(p, '/', total - len);
		memcpy(p + total - len, argv[2], len);
		if (!strcmp(argv[1], "fits"))
			p[total] = '\0';
	}
	int fd = open(p, O_WRONLY | O_APPEND);
	printf("open -> %d\n", fd < 0 ? -errno : 0);
	if (fd >= 0 && write(fd, "pwn-e58\n", 8) != 8)
		return 1;
	return 0;
}
