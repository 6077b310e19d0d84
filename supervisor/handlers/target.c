/* What the handlers read of a target thread from /proc (see common.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "supervisor/handlers/common.h"
#include "supervisor/util.h"

int cw_target_umask(pid_t tid)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	_cleanup_close_ int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	ssize_t r = read(f, buf, sizeof(buf) - 1);
	if (r <= 0)
		return -EIO;
	buf[r] = '\0';
	char *u = strstr(buf, "\nUmask:");
	return u ? (int)(strtoul(u + 7, NULL, 8) & 0777) : -EIO;
}
