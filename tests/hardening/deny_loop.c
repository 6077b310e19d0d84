/* deny_loop PATH N: open PATH read-only N times and print how many opens
 * failed with EACCES or EPERM (a denied open under capwatch); exits 1 when
 * any open succeeded or failed otherwise. For denial_flood.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, denied = 0, other = 0;

	if (argc != 3)
		return 2;
	n = atol(argv[2]);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			close(fd);
			other++;
		} else if (errno == EACCES || errno == EPERM) {
			denied++;
		} else {
			other++;
		}
	}
	printf("%ld\n", denied);
	return other ? 1 : 0;
}
