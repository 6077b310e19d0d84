/* Linked statically: no loader, so no preload. pl_static ADDR PORT does a
 * raw connect and prints "connect: OK" or "connect: <errno name>";
 * capwatch must enforce exactly as for a dynamic program. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in s = { .sin_family = AF_INET };
	if (argc != 3 || inet_pton(AF_INET, argv[1], &s.sin_addr) != 1)
		return 64;
	s.sin_port = htons((unsigned short)atoi(argv[2]));
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(fd, (struct sockaddr *)&s, sizeof(s));
	int e = errno;
	printf("connect: %s\n", r == 0 ? "OK" : e == EPERM ? "EPERM" : e == ENETUNREACH ? "ENETUNREACH" : strerror(e));
	return 0;
}
