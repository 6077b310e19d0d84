/* One logging module (style.md): one message, one write. */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "supervisor/log.h"

static cw_log_level max_level = CW_LOG_WARNING;
static int log_fd = 2;

void cw_log_set_level(cw_log_level max)
{
	max_level = max;
}

cw_log_level cw_log_get_level(void)
{
	return max_level;
}

void cw_log_set_fd(int fd)
{
	log_fd = fd;
}

void cw_log(cw_log_level level, const char *fmt, ...)
{
	char buf[2048];
	static const char prefix[] = "capwatch: ";
	size_t n = sizeof(prefix) - 1;
	int saved = errno;
	va_list ap;

	if (level > max_level)
		return;
	memcpy(buf, prefix, n);
	va_start(ap, fmt);
	int r = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (r < 0)
		r = 0;
	n += (size_t)r < sizeof(buf) - n - 1 ? (size_t)r : sizeof(buf) - n - 2;
	buf[n++] = '\n';
	/* Diagnostics are best effort: a failed write to stderr is ignored. */
	while (write(log_fd, buf, n) < 0 && errno == EINTR)
		;
	errno = saved;
}
