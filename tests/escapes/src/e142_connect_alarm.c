/* E142: an alarm-bounded blocking connect. A listener on 127.0.0.1:PORT
 * with a backlog of 0 is filled by non-blocking connects, so the next
 * blocking connect waits (its SYNs are dropped); SIGALRM comes after 1 s.
 *
 *   e142_connect_alarm PORT [restart]
 *
 * Plain: the handler has no SA_RESTART, so the kernel ends the connect
 * with EINTR. restart: the handler (SA_RESTART) raises the listener's
 * backlog, so the connect goes on waiting and is connected at the next
 * SYN. capwatch performs the connect on a worker thread while the caller
 * waits killably (WAIT_KILLABLE_RECV): before the fix the alarm neither
 * ended it nor ran the handler. Prints "connect: <result> after N ms
 * handler=0|1". */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static int listener = -1;

static void on_alarm(int s)
{
	(void)s;
	handled = 1;
	if (listener >= 0)
		listen(listener, 64); /* room for the waiting connect's next SYN */
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: e142_connect_alarm PORT [restart]\n");
		return 2;
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 0) < 0) {
		perror("bind/listen");
		return 1;
	}
	for (int i = 0; i < 4; i++) { /* fill the accept queue */
		int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(c, (struct sockaddr *)&a, sizeof(a));
	}
	usleep(100000);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART, unless asked */
	if (argc == 3 && strcmp(argv[2], "restart") == 0) {
		sa.sa_flags = SA_RESTART;
		listener = l;
	}
	sigaction(SIGALRM, &sa, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(1);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(c, (struct sockaddr *)&a, sizeof(a));
	int e = errno;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	printf("connect: %s after %ld ms handler=%d\n", r == 0 ? "connected" : (e == EINTR ? "eintr" : strerror(e)), ms,
	       (int)handled);
	return 0;
}
