/* kernel_fresh_programs.sh's program: forks a child that creates
 * OUTDIR/ok.ID after 20 ms (an open capwatch decides), and exits at once,
 * so that capwatch often reads its exec event while it is exiting.
 *
 *   fork_exit OUTDIR ID */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		usleep(20000);
		char p[4096];
		snprintf(p, sizeof(p), "%s/ok.%s", argv[1], argv[2]);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}
