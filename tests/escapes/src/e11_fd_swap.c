/* E11: fd-table swap: thread A calls utimensat(SLOT, NULL, {0,0}) (an
 * fd-based metadata change the supervisor checks through
 * /proc/TID/fd/SLOT); thread B dup2()s GOOD's and EVIL's descriptors onto
 * SLOT.
 * A hit: EVIL's mtime becomes 0. Both descriptors are O_RDONLY: ownership
 * suffices for utimensat with explicit times. */
#include "esc.h"
#include <pthread.h>
#include <sys/syscall.h>

/* The swapped slot: far above what a test's launcher may leave open (make
 * -j hands its jobserver's pipe to recipes on 3 and 4: the two files then
 * opened on 5 and 6, and the program gave up with no result). */
#define SLOT 50

static int good_fd, evil_fd;
static volatile int stop;

static void *swap(void *arg)
{
	(void)arg;
	while (!stop) {
		dup2(evil_fd, SLOT);
		dup2(good_fd, SLOT);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e11_fd_swap SECONDS GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	good_fd = open(argv[2], O_RDONLY);
	evil_fd = open(argv[3], O_RDONLY);
	if (good_fd < 0 || evil_fd < 0 || good_fd == SLOT || evil_fd == SLOT)
		return 2;
	dup2(good_fd, SLOT);
	pthread_t t;
	pthread_create(&t, NULL, swap, NULL);
	long attempts = 0, ok = 0, hits = 0;
	const struct timespec zero[2] = { { 0, 0 }, { 0, 0 } };
	while (esc_now() < end) {
		attempts++;
		if (syscall(SYS_utimensat, SLOT, NULL, zero, 0) < 0)
			continue;
		ok++;
		struct stat st;
		if (fstat(evil_fd, &st) == 0 && st.st_mtime == 0) {
			hits++;
			break; /* the first hit is enough; it cannot be undone here */
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
