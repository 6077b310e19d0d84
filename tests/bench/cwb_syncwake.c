/* cwb_syncwake.so: an experiment, not a fix. LD_PRELOADed into capwatch
 * (cwb_run --preload), it sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on every
 * seccomp listener the first time capwatch calls SECCOMP_IOCTL_NOTIF_RECV
 * on it, so that the benchmark can measure what that flag would change
 * in the real supervisor without touching supervisor/. capwatch drops
 * LD_PRELOAD from the command's environment: the workload never sees it.
 * Listener descriptors seen are remembered by number (below 1024). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/ioctl.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

typedef int (*ioctl_fn)(int, unsigned long, ...);
static unsigned char done[1024];

int ioctl(int fd, unsigned long req, ...)
{
	static ioctl_fn real;
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (req == SECCOMP_IOCTL_NOTIF_RECV && fd >= 0 && fd < 1024 && !done[fd]) {
		done[fd] = 1;
		real(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, 0);
	}
	return real(fd, req, arg);
}
