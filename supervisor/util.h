#ifndef CAPWATCH_UTIL_H
#define CAPWATCH_UTIL_H
/* Small helpers shared by the supervisor: cleanup attributes (after
 * bubblewrap's utils.h and systemd), ownership transfer, time. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline void cw_freep(void *p)
{
	free(*(void **)p);
}

static inline void cw_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

#define _cleanup_free_ __attribute__((cleanup(cw_freep)))
#define _cleanup_close_ __attribute__((cleanup(cw_closep)))

/* Hand a pointer or fd out of a cleanup-scoped variable: the variable no
 * longer owns it. */
static inline void *cw_steal_pointer(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define steal_pointer(pp) ((__typeof__(*(pp)))cw_steal_pointer(pp))

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

#define CW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Monotonic seconds. */
static inline double cw_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The start of a small file (/proc/PID/stat, .../cgroup), NUL-ended:
 * its length, or -1. */
static inline ssize_t cw_read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, n - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	return r;
}

/* Write TEXT to DIR/NAME (a cgroup file): 0 or -errno. */
static inline int cw_write_at(const char *dir, const char *name, const char *text)
{
	char p[1200];
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int e = write(fd, text, strlen(text)) < 0 ? -errno : 0;
	close(fd);
	return e;
}

#endif
