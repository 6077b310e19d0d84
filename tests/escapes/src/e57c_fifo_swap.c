/* E57c accomplice: swaps a regular file and a FIFO under one name as fast
 * as the kernel allows (renameat2 RENAME_EXCHANGE), for SECS seconds. It
 * runs outside capwatch, as a process the supervised tree does not
 * control; every open the tree makes of NAME may find either object.
 *
 * usage: e57c_fifo_swap NAME SECS
 * prints "SWAPS n=N" at the end. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: e57c_fifo_swap NAME SECS\n");
		return 2;
	}
	const char *name = argv[1];
	char other[4096];
	snprintf(other, sizeof(other), "%s.fifo", name);
	FILE *f = fopen(name, "w");
	if (!f || fputs("data\n", f) < 0 || fclose(f) != 0 || mkfifo(other, 0644) < 0) {
		perror("e57c_fifo_swap: setup");
		return 1;
	}
	double end = now() + atof(argv[2]);
	unsigned long n = 0;
	while (now() < end) {
		for (int i = 0; i < 256; i++) {
			if (renameat2(AT_FDCWD, name, AT_FDCWD, other, RENAME_EXCHANGE) < 0) {
				perror("e57c_fifo_swap: renameat2");
				return 1;
			}
			n++;
		}
	}
	/* Leave the regular file under NAME. */
	struct stat st;
	if (stat(name, &st) == 0 && S_ISFIFO(st.st_mode))
		renameat2(AT_FDCWD, name, AT_FDCWD, other, RENAME_EXCHANGE);
	printf("SWAPS n=%lu\n", n);
	return 0;
}
