/* E12: the last path component is a symlink swapped (atomically, by
 * rename) between GOOD and EVIL while the writer opens it. Run in the
 * workspace directory; the link is "l". */
#include "esc.h"
#include <pthread.h>

static const char *good, *evil;
static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop) {
		unlink("l.a");
		if (symlink(evil, "l.a") == 0)
			rename("l.a", "l");
		unlink("l.b");
		if (symlink(good, "l.b") == 0)
			rename("l.b", "l");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "e12_symlink_swap SECONDS GOOD EVIL");
	double end = esc_now() + atof(argv[1]);
	good = argv[2];
	evil = argv[3];
	struct esc_id canary = esc_id_of(evil);
	unlink("l");
	if (symlink(good, "l") < 0)
		return 2;
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open("l", O_WRONLY | O_APPEND);
		if (fd < 0)
			continue;
		ok++;
		if (esc_fd_is(fd, canary)) {
			hits++;
			if (write(fd, "pwn-e12\n", 8) < 0)
				perror("write");
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
