/* What the handlers read of a target thread from /proc, and small helpers
 * shared by the handlers (see common.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "supervisor/handlers/common.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd of the thread */
#endif
#include "supervisor/util.h"

int cw_target_pidfd(const struct cw_notif *n)
{
	int pfd = (int)syscall(SYS_pidfd_open, n->tid, PIDFD_THREAD);
	if (pfd < 0 && errno == EINVAL) /* before 6.9: process pidfds only */
		pfd = (int)syscall(SYS_pidfd_open, n->tgid, 0);
	return pfd < 0 ? -errno : pfd;
}

int cw_dup_target_fd(const struct cw_notif *n, int fd)
{
	_cleanup_close_ int pfd = cw_target_pidfd(n);
	if (pfd < 0)
		return pfd;
	int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	return d < 0 ? -errno : d;
}

int cw_start_detached(void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	pthread_t th;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	int e = pthread_create(&th, &at, fn, arg);
	pthread_attr_destroy(&at);
	return -e;
}

ssize_t cw_read_text(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	ssize_t r = read(f, buf, size - 1);
	if (r <= 0)
		return -EIO;
	buf[r] = '\0';
	return r;
}

/* The four ids after KEY ("\nUid:") in BUF, or false. */
static bool ids_of(const char *buf, const char *key, unsigned long ids[4])
{
	const char *p = strstr(buf, key);
	return p && sscanf(p + strlen(key), "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) == 4;
}

int cw_target_status(pid_t tid, struct cw_target_status *st)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	ssize_t r = cw_read_text(path, buf, sizeof(buf));
	if (r < 0)
		return (int)r;
	const char *t = strstr(buf, "\nTgid:");
	const char *c = strstr(buf, "\nCapEff:");
	const char *u = strstr(buf, "\nUmask:");
	if (!t || !c || !ids_of(buf, "\nUid:", st->uid) || !ids_of(buf, "\nGid:", st->gid))
		return -EIO;
	st->tgid = (pid_t)strtol(t + 6, NULL, 10);
	st->ns_tgid = st->tgid;
	const char *ns = strstr(buf, "\nNStgid:");
	if (ns) {
		const char *e = strchr(ns + 8, '\n');
		const char *last = ns + 8;
		for (const char *q = ns + 8; *q && (!e || q < e); q++)
			if (*q == '\t' || *q == ' ')
				last = q + 1;
		st->ns_tgid = (pid_t)strtol(last, NULL, 10);
	}
	st->cap_eff = strtoull(c + 8, NULL, 16);
	st->umask = u ? (int)(strtoul(u + 7, NULL, 8) & 0777) : -1;
	return 0;
}

int cw_target_umask(pid_t tid)
{
	struct cw_target_status st;
	int e = cw_target_status(tid, &st);
	if (e < 0)
		return e;
	return st.umask >= 0 ? st.umask : -EIO;
}
