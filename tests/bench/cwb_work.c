/* cwb_work: the syscall-heavy parts of the benchmark workloads, and the
 * micro-benchmarks, in C so that what is measured is the syscalls and not
 * an interpreter.
 *
 *   cwb_work open DIR NFILES N     N times: open+close one of DIR/d<k>/f<j>
 *                                  and stat another (N opens, N stats)
 *   cwb_work net N                 N loopback TCP connections to a listener
 *                                  of its own (socket, connect, accept, one
 *                                  byte each way, close); needs a netns
 *   cwb_work micro KIND N [PATH]   N operations after N/10 warm-up ones;
 *                                  prints "micro KIND n=N us_per_op=X ok=O
 *                                  failed=F errno=E" on stdout
 *     KIND: getppid (never notified: the filter's own cost),
 *           stat PATH (never notified), open PATH (open+close; given a
 *           path the profile denies, it times the denial),
 *           connect (loopback: socket+connect+accept+2 close),
 *           connect-ext (socket+connect to 203.0.113.7:9+close; only ever
 *           run inside a private netns, where it fails ENETUNREACH bare
 *           and EPERM when capwatch denies it)
 *
 * "micro" exits 0 whatever the operations returned: the driver checks
 * ok/failed/errno against what the mode should give. "open" and "net"
 * exit 1 if any operation failed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long parse_n(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (*end || n <= 0) {
		fprintf(stderr, "cwb_work: bad count %s\n", s);
		exit(2);
	}
	return n;
}

static int do_open(const char *dir, long nfiles, long n)
{
	char **paths = calloc((size_t)nfiles, sizeof(*paths));
	if (!paths)
		return 1;
	for (long i = 0; i < nfiles; i++)
		if (asprintf(&paths[i], "%s/d%ld/f%ld", dir, i % 10, i / 10) < 0)
			return 1;
	long bad = 0;
	struct stat st;
	for (long i = 0; i < n; i++) {
		int fd = open(paths[i % nfiles], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			bad++;
		else
			close(fd);
		if (stat(paths[(i * 7 + 3) % nfiles], &st) < 0)
			bad++;
	}
	for (long i = 0; i < nfiles; i++)
		free(paths[i]);
	free(paths);
	if (bad) {
		fprintf(stderr, "cwb_work: %ld of %ld opens/stats failed\n", bad, 2 * n);
		return 1;
	}
	return 0;
}

static int listener(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)a, sizeof(*a)) < 0 || listen(l, 64) < 0 ||
	    getsockname(l, (struct sockaddr *)a, &len) < 0) {
		fprintf(stderr, "cwb_work: loopback listener: %s\n", strerror(errno));
		return -1;
	}
	return l;
}

/* One loopback connection: 0, or -errno of the step that failed. */
static int one_connect(int l, const struct sockaddr_in *a, int exchange)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	int rc = 0;
	if (connect(s, (const struct sockaddr *)a, sizeof(*a)) < 0) {
		rc = -errno;
		close(s);
		return rc;
	}
	int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0) {
		rc = -errno;
	} else if (exchange) {
		char b = 'x';
		if (write(s, &b, 1) != 1 || read(c, &b, 1) != 1 || write(c, &b, 1) != 1 || read(s, &b, 1) != 1)
			rc = -EIO;
	}
	if (c >= 0)
		close(c);
	close(s);
	return rc;
}

static int do_net(long n)
{
	struct sockaddr_in a;
	int l = listener(&a);
	if (l < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		int rc = one_connect(l, &a, 1);
		if (rc < 0) {
			fprintf(stderr, "cwb_work: loopback connection %ld: %s\n", i, strerror(-rc));
			return 1;
		}
	}
	close(l);
	return 0;
}

/* --- micro --- */

struct micro {
	const char *path;
	int l;
	struct sockaddr_in a;
	long ok, failed;
	int last_errno;
};

typedef void (*micro_fn)(struct micro *m);

static void note(struct micro *m, int rc)
{
	if (rc < 0) {
		m->failed++;
		m->last_errno = -rc;
	} else
		m->ok++;
}

static void m_getppid(struct micro *m)
{
	note(m, getppid() > 0 ? 0 : -errno);
}

static void m_stat(struct micro *m)
{
	struct stat st;
	note(m, stat(m->path, &st) < 0 ? -errno : 0);
}

static void m_open(struct micro *m)
{
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	note(m, fd < 0 ? -errno : 0);
}

static void m_connect(struct micro *m)
{
	note(m, one_connect(m->l, &m->a, 0));
}

static void m_connect_ext(struct micro *m)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		note(m, -errno);
		return;
	}
	int rc = connect(s, (const struct sockaddr *)&m->a, sizeof(m->a)) < 0 ? -errno : 0;
	close(s);
	note(m, rc);
}

static int do_micro(const char *kind, long n, const char *path)
{
	struct micro m = { .path = path, .l = -1 };
	micro_fn fn = NULL;
	if (strcmp(kind, "getppid") == 0)
		fn = m_getppid;
	else if (strcmp(kind, "stat") == 0 && path)
		fn = m_stat;
	else if (strcmp(kind, "open") == 0 && path)
		fn = m_open;
	else if (strcmp(kind, "connect") == 0) {
		fn = m_connect;
		m.l = listener(&m.a);
		if (m.l < 0)
			return 1;
	} else if (strcmp(kind, "connect-ext") == 0) {
		fn = m_connect_ext;
		m.a.sin_family = AF_INET;
		m.a.sin_port = htons(9);
		inet_pton(AF_INET, "203.0.113.7", &m.a.sin_addr);
	} else {
		fprintf(stderr, "cwb_work: unknown micro kind %s (or PATH missing)\n", kind);
		return 2;
	}
	for (long i = 0; i < n / 10 + 1; i++)
		fn(&m);
	m.ok = m.failed = 0;
	double t0 = now();
	for (long i = 0; i < n; i++)
		fn(&m);
	double dt = now() - t0;
	printf("micro %s n=%ld us_per_op=%.3f ok=%ld failed=%ld errno=%s\n", kind, n, dt * 1e6 / (double)n,
	       m.ok, m.failed, m.failed ? strerrorname_np(m.last_errno) : "0");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "open") == 0)
		return do_open(argv[2], parse_n(argv[3]), parse_n(argv[4]));
	if (argc >= 3 && strcmp(argv[1], "net") == 0)
		return do_net(parse_n(argv[2]));
	if (argc >= 4 && strcmp(argv[1], "micro") == 0)
		return do_micro(argv[2], parse_n(argv[3]), argc > 4 ? argv[4] : NULL);
	fprintf(stderr, "usage: cwb_work open DIR NFILES N | net N | micro KIND N [PATH]\n");
	return 2;
}
