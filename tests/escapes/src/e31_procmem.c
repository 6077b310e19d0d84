/* E31: reach into a process outside the tree: process_vm_writev,
 * a write to /proc/PID/mem, pidfd_getfd of its fds. MODE picks one. */
#include "esc.h"
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e31_procmem vm|mem|getfd PID ADDR");
	pid_t pid = atoi(argv[2]);
	uint64_t addr = strtoull(argv[3], NULL, 0);
	uint64_t val = 0x4457454e5750ULL;
	if (!strcmp(argv[1], "vm")) {
		struct iovec l = { &val, sizeof(val) }, r = { (void *)(uintptr_t)addr, sizeof(val) };
		ssize_t n = process_vm_writev(pid, &l, 1, &r, 1, 0);
		printf("process_vm_writev -> %zd (%s)\n", n, n < 0 ? strerror(errno) : "ok");
		return n == sizeof(val) ? 0 : 1;
	}
	if (!strcmp(argv[1], "mem")) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/mem", (int)pid);
		int fd = open(p, O_RDWR);
		printf("open %s -> %d (%s)\n", p, fd, fd < 0 ? strerror(errno) : "ok");
		if (fd < 0)
			return 1;
		ssize_t n = pwrite(fd, &val, sizeof(val), (off_t)addr);
		printf("pwrite -> %zd\n", n);
		return n == sizeof(val) ? 0 : 1;
	}
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	printf("pidfd_open -> %d (%s)\n", pfd, pfd < 0 ? strerror(errno) : "ok");
	if (pfd < 0)
		return 1;
	int got = 0;
	for (int fd = 0; fd < 3; fd++) {
		int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
		printf("pidfd_getfd(%d) -> %d (%s)\n", fd, d, d < 0 ? strerror(errno) : "ok");
		got += d >= 0;
	}
	return got ? 0 : 1;
}
