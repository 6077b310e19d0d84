/* E03: a statically linked program (no dynamic loader, so no LD_PRELOAD
 * library): writes FILE and, if given, connects to ADDR PORT. */
#include "esc.h"
#include <arpa/inet.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 2, "e03_static FILE [ADDR PORT]");
	int r = esc_append(argv[1], "pwn-e03\n");
	printf("append -> %d\n", r);
	if (argc >= 4) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3])) };
		inet_pton(AF_INET, argv[2], &sin.sin_addr);
		int c = connect(s, (struct sockaddr *)&sin, sizeof(sin));
		printf("connect -> %d (%s)\n", c, c ? strerror(errno) : "ok");
		if (c == 0 && write(s, "e03\n", 4) != 4)
			return 1;
	}
	return 0;
}
