#ifndef CAPWATCH_UTIL_H
#define CAPWATCH_UTIL_H
/* Small helpers shared by the supervisor: cleanup attributes (after
 * bubblewrap's utils.h and systemd), ownership transfer, time. */
#include <errno.h>
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

#endif
