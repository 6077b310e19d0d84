/* A denied connect through the resolver: pl_net [-h] HOST PORT.
 * getaddrinfo (or gethostbyname with -h), then connect to the first
 * address from a function whose name the report's call site must show.
 * Prints "connect: OK" or "connect: <errno name>". */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *ename(int e)
{
	return e == EPERM ? "EPERM" : e == ENETUNREACH ? "ENETUNREACH" : e == ECONNREFUSED ? "ECONNREFUSED" :
	       e == EACCES ? "EACCES" : strerror(e);
}

static int __attribute__((noinline)) fetch_from_host(const char *host, const char *port, int use_ghbn)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (use_ghbn) {
		struct hostent *he = gethostbyname(host);
		if (!he || he->h_addrtype != AF_INET) {
			printf("resolve: failed\n");
			return 2;
		}
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		s->sin_family = AF_INET;
		s->sin_port = htons((unsigned short)atoi(port));
		memcpy(&s->sin_addr, he->h_addr_list[0], 4);
		len = sizeof(*s);
	} else {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
		int r = getaddrinfo(host, port, &hints, &res);
		if (r) {
			printf("resolve: %s\n", gai_strerror(r));
			return 2;
		}
		memcpy(&ss, res->ai_addr, res->ai_addrlen);
		len = res->ai_addrlen;
		freeaddrinfo(res);
	}
	int fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0) {
		printf("socket: %s\n", ename(errno));
		return 2;
	}
	int r = connect(fd, (struct sockaddr *)&ss, len);
	printf("connect: %s\n", r == 0 ? "OK" : ename(errno));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int ghbn = argc > 1 && strcmp(argv[1], "-h") == 0;
	if (argc - ghbn != 3) {
		fprintf(stderr, "usage: pl_net [-h] HOST PORT\n");
		return 64;
	}
	/* Not a tail call: main stays on the stack, as the test expects. */
	int r = fetch_from_host(argv[1 + ghbn], argv[2 + ghbn], ghbn);
	fflush(stdout);
	return r;
}
