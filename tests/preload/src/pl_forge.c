/* A hostile member of the tree writing into the preload channel: forged,
 * malformed, truncated, oversized and flooding messages, with raw
 * syscalls (no libc wrapper the preload could see). Then it connects to
 * ADDR:PORT and prints "connect: <errno name>": the decision must be the
 * one capwatch takes without any of this.
 *   pl_forge ADDR PORT [HOSTNAME-TO-CLAIM] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "preload/proto.h"

static int chan = -1;

static void put(const void *buf, size_t n)
{
	syscall(SYS_sendto, chan, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
}

static size_t msg(unsigned char *buf, uint16_t type, int32_t tid, const char *name,
		  const struct cw_annot_addr *a, uint16_t na, const char *text)
{
	struct cw_annot_hdr h = { .magic = CW_ANNOT_MAGIC, .type = type, .tid = tid, .naddrs = na };
	size_t off = sizeof(h);
	h.namelen = name ? (uint16_t)strlen(name) : 0;
	h.textlen = text ? (uint16_t)strlen(text) : 0;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + off, a, na * sizeof(*a));
	off += na * sizeof(*a);
	if (name)
		memcpy(buf + off, name, h.namelen);
	off += h.namelen;
	if (text)
		memcpy(buf + off, text, h.textlen);
	return off + h.textlen;
}

int main(int argc, char **argv)
{
	unsigned char buf[8192];
	struct sockaddr_in s = { .sin_family = AF_INET };
	const char *env = getenv(CW_ANNOT_ENV_FD);
	int me = (int)getpid();

	if (argc < 3 || inet_pton(AF_INET, argv[1], &s.sin_addr) != 1)
		return 64;
	s.sin_port = htons((unsigned short)atoi(argv[2]));
	chan = env ? atoi(env) : CW_ANNOT_FD;

	struct cw_annot_addr a = { .family = AF_INET };
	memcpy(a.addr, &s.sin_addr, 4);

	/* 1. bad magic */
	size_t n = msg(buf, CW_ANNOT_HELLO, me, NULL, NULL, 0, NULL);
	buf[0] ^= 0xff;
	put(buf, n);
	/* 2. truncated: the header promises more text than is sent */
	n = msg(buf, CW_ANNOT_FILE, me, NULL, NULL, 0, "/etc/passwd");
	put(buf, n - 4);
	/* 3. longer than any annotation */
	memset(buf, 'A', sizeof(buf));
	n = msg(buf, CW_ANNOT_FILE, me, NULL, NULL, 0, "x");
	put(buf, sizeof(buf));
	/* 4. a host name with a newline (log injection attempt) */
	n = msg(buf, CW_ANNOT_RESOLVED, me, "evil\nALLOW external_network", &a, 1, NULL);
	put(buf, n);
	/* 5. speaking for another process: tid 1 */
	n = msg(buf, CW_ANNOT_RESOLVED, 1, "init.example", &a, 1, NULL);
	put(buf, n);
	/* 6. unknown type */
	n = msg(buf, 77, me, NULL, NULL, 0, NULL);
	put(buf, n);
	/* 7. a well-formed lie about its own resolution: it may label its own
	 *    event, never decide it */
	if (argc > 3) {
		n = msg(buf, CW_ANNOT_RESOLVED, me, argv[3], &a, 1, NULL);
		put(buf, n);
	}
	/* 8. a flood of valid messages */
	n = msg(buf, CW_ANNOT_HELLO, me, NULL, NULL, 0, NULL);
	for (int i = 0; i < 20000; i++)
		put(buf, n);

	int fd = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	long r = syscall(SYS_connect, fd, &s, sizeof(s));
	int e = errno;
	printf("connect: %s\n", r == 0 ? "OK" : e == EPERM ? "EPERM" : e == ENETUNREACH ? "ENETUNREACH" : strerror(e));
	return 0;
}
