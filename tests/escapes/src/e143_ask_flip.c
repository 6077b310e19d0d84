/* E143/E144: a second thread rewrites the path of an open() while the
 * open waits for an approver (a profile that says "ask").
 *
 *   e143_ask_flip once FIRST SECOND ASKED FLIPPED
 *     open(FIRST, O_WRONLY|O_CREAT|O_TRUNC); when the file ASKED appears
 *     (the approver has the question), the buffer becomes SECOND, then
 *     FLIPPED is created (the approver may answer now). With ASKED there
 *     from the start (a bare run: nobody asks) the open waits 100 ms, so
 *     that it is the rewritten name that is opened.
 *   e143_ask_flip cycle FIRST DIR SECONDS
 *     open(FIRST, ...); for SECONDS the buffer names DIR/cNNNNNNN.lock
 *     with a new number every pass, then FIRST again.
 *   e143_ask_flip connect IP:PORT IP2:PORT2 ASKED FLIPPED
 *     connect(IP:PORT) (IPv4, TCP); when ASKED appears the sockaddr
 *     becomes IP2:PORT2, then FLIPPED is created. Prints "connect=...".
 *   e143_ask_flip kill FIRST ASKED KILLED
 *     a child opens FIRST; when ASKED appears it is SIGKILLed, then KILLED
 *     is created and the parent waits a second (an answer may come).
 *
 * Prints "open=OK" or "open=ERRNO" (the name), "elapsed=S", and
 * "flips=N". */
#define _GNU_SOURCE
#include "esc.h"
#include <pthread.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char path[4096];
static char first[4096], second[4096], asked[4096], flipped[4096], dir[4096];
static double seconds;
static volatile long flips;
static volatile int cycle_mode;

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}

static void *flipper(void *arg)
{
	(void)arg;
	if (!cycle_mode) {
		double end = esc_now() + 20;
		while (access(asked, F_OK) != 0 && esc_now() < end)
			usleep(1000);
		snprintf(path, sizeof(path), "%s", second);
		flips = 1;
		touch(flipped);
		return NULL;
	}
	double end = esc_now() + seconds;
	char name[4096];
	unsigned long k = 0;
	while (esc_now() < end) {
		int len = snprintf(name, sizeof(name), "%s/c%07lu.lock", dir, k++ % 10000000UL);
		memcpy(path, name, (size_t)len + 1);
		__asm__ volatile("" ::: "memory");
		flips++;
		usleep(200);
	}
	snprintf(path, sizeof(path), "%s", first);
	return NULL;
}

static struct sockaddr_in dst;

static int parse_in(const char *s, struct sockaddr_in *a)
{
	char ip[64];
	const char *colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(ip))
		return -1;
	memcpy(ip, s, (size_t)(colon - s));
	ip[colon - s] = '\0';
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)atoi(colon + 1));
	return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -1;
}

static void *dst_flipper(void *arg)
{
	const struct sockaddr_in *to = arg;
	double end = esc_now() + 20;
	while (access(asked, F_OK) != 0 && esc_now() < end)
		usleep(1000);
	memcpy(&dst, to, sizeof(dst));
	flips = 1;
	touch(flipped);
	return NULL;
}

/* The address of a connect waiting for an approver is rewritten. */
static int connect_mode(char **argv)
{
	static struct sockaddr_in to;
	if (parse_in(argv[2], &dst) < 0 || parse_in(argv[3], &to) < 0) {
		fprintf(stderr, "bad address\n");
		return 2;
	}
	snprintf(asked, sizeof(asked), "%s", argv[4]);
	snprintf(flipped, sizeof(flipped), "%s", argv[5]);
	pthread_t t;
	pthread_create(&t, NULL, dst_flipper, &to);
	if (access(asked, F_OK) == 0)
		usleep(100000); /* bare: the flip comes first */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int r = connect(s, (struct sockaddr *)&dst, sizeof(dst));
	int err = errno;
	printf("connect=%s\n", r == 0 ? "OK" : (strerrorname_np(err) ? strerrorname_np(err) : "?"));
	pthread_join(t, NULL);
	printf("flips=%ld\n", flips);
	return 0;
}

/* The asker dies with its question open. */
static int kill_mode(const char *file, const char *ask, const char *killed)
{
	pid_t c = fork();
	if (c == 0) {
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		printf("child open=%s\n", fd >= 0 ? "OK" : strerrorname_np(errno));
		_exit(0);
	}
	double end = esc_now() + 20;
	while (access(ask, F_OK) != 0 && esc_now() < end)
		usleep(1000);
	kill(c, SIGKILL);
	int st = 0;
	waitpid(c, &st, 0);
	printf("child %s\n", WIFSIGNALED(st) ? "killed" : "exited");
	fflush(stdout);
	touch(killed);
	sleep(1);
	return 0;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 5, "e143_ask_flip once|cycle|connect|kill ...");
	if (strcmp(argv[1], "kill") == 0)
		return kill_mode(argv[2], argv[3], argv[4]);
	if (strcmp(argv[1], "connect") == 0) {
		esc_usage(argc, 6, "e143_ask_flip connect IP:PORT IP2:PORT2 ASKED FLIPPED");
		return connect_mode(argv);
	}
	cycle_mode = strcmp(argv[1], "cycle") == 0;
	snprintf(first, sizeof(first), "%s", argv[2]);
	if (cycle_mode) {
		snprintf(dir, sizeof(dir), "%s", argv[3]);
		seconds = atof(argv[4]);
	} else {
		esc_usage(argc, 6, "e143_ask_flip once FIRST SECOND ASKED FLIPPED");
		snprintf(second, sizeof(second), "%s", argv[3]);
		snprintf(asked, sizeof(asked), "%s", argv[4]);
		snprintf(flipped, sizeof(flipped), "%s", argv[5]);
	}
	snprintf(path, sizeof(path), "%s", first);
	pthread_t t;
	pthread_create(&t, NULL, flipper, NULL);
	if (cycle_mode)
		usleep(20000); /* the buffer moves before the open is asked */
	else if (access(asked, F_OK) == 0)
		usleep(100000); /* bare (ASKED made in advance): the flip comes first */
	double t0 = esc_now();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = errno;
	double el = esc_now() - t0;
	if (fd >= 0) {
		printf("open=OK\n");
		close(fd);
	} else {
		printf("open=%s\n", strerrorname_np(err) ? strerrorname_np(err) : "?");
	}
	pthread_join(t, NULL);
	printf("elapsed=%.2f\nflips=%ld\n", el, flips);
	return 0;
}
