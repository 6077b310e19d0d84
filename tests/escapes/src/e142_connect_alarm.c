/* E142: an alarm-bounded blocking connect. A listener on 127.0.0.1:PORT
 * with a backlog of 0 is filled by non-blocking connects, so the next
 * blocking connect waits (its SYNs are dropped); SIGALRM comes after 1 s.
 *
 *   e142_connect_alarm PORT [restart|thread|nonblock]
 *
 * Plain: the handler has no SA_RESTART, so the kernel ends the connect
 * with EINTR. restart: the handler (SA_RESTART) raises the listener's
 * backlog, so the connect goes on waiting and is connected at a later
 * SYN. thread (red team 18): another thread connects while the main one
 * waits in vfork() for a child that sleeps 1.5 s; the kernel gives the
 * process's SIGALRM to the main thread, whose handler (no SA_RESTART)
 * raises the backlog when vfork returns: the connecting thread is not
 * interrupted and gets connected (under capwatch it once got errno 512).
 * nonblock (red team 18): another thread makes the socket non-blocking
 * 300 ms into the connect and raises the backlog at 1.5 s, no alarm: the
 * connect goes on waiting and gets connected (capwatch's worker once
 * spun on it meanwhile). capwatch performs the connect on a worker
 * thread while the caller waits killably (WAIT_KILLABLE_RECV): before the
 * fix the alarm neither ended it nor ran the handler. Prints "connect:
 * <result> after N ms handler=0|1". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static int listener = -1, sock = -1;
static struct sockaddr_in a;

static void on_alarm(int s)
{
	(void)s;
	handled = 1;
	if (listener >= 0)
		listen(listener, 64); /* room for the waiting connect's next SYN */
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void *connector(void *arg)
{
	(void)arg;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = connect(sock, (struct sockaddr *)&a, sizeof(a));
	int e = errno;
	printf("connect: %s after %ld ms handler=%d\n",
	       r == 0 ? "connected" : (e == EINTR ? "eintr" : strerror(e)), ms_since(&t0), (int)handled);
	return NULL;
}

static void *unblocker(void *arg)
{
	(void)arg;
	usleep(300000);
	fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK);
	usleep(1200000);
	listen(listener, 64);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: e142_connect_alarm PORT [restart|thread|nonblock]\n");
		return 2;
	}
	const char *mode = argc == 3 ? argv[2] : "plain";
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)atoi(argv[1]));
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
	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (strcmp(mode, "nonblock") == 0) {
		listener = l;
		pthread_t t;
		pthread_create(&t, NULL, unblocker, NULL);
		connector(NULL);
		pthread_join(t, NULL);
		return 0;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART, unless asked */
	if (strcmp(mode, "restart") == 0) {
		sa.sa_flags = SA_RESTART;
		listener = l;
	}
	if (strcmp(mode, "thread") == 0)
		listener = l;
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	if (strcmp(mode, "thread") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, connector, NULL);
		usleep(100000);
		pid_t c = vfork(); /* this thread waits here, killably */
		if (c == 0) {
			usleep(1500000);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
		pthread_join(t, NULL);
		return 0;
	}
	connector(NULL);
	return 0;
}
