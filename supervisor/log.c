/* One logging module (style.md): one message, one write. */
#include "config.h"
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "supervisor/log.h"
#include "text.h"

/* static by necessity: cw_log() is called from every module, from the
 * command line parser before any run exists, from the --timeout watchdog's
 * thread and from tools/, none of which has a run to hold these; set once
 * at the start of a run (the level, the descriptor) and only read after. */
/* How long a message may wait for stderr to take it (cw_log). */
#define LOG_WAIT_MS 1000

static struct {
	cw_log_level max_level;
	int fd;
} log_conf = { CW_LOG_WARNING, 2 };

void cw_log_set_level(cw_log_level max)
{
	log_conf.max_level = max;
}

cw_log_level cw_log_get_level(void)
{
	return log_conf.max_level;
}

void cw_log_set_fd(int fd)
{
	log_conf.fd = fd;
}


void cw_log(cw_log_level level, const char *fmt, ...)
{
	char raw[2048], buf[2048 * 2];
	static const char prefix[] = "capwatch: ";
	size_t n = sizeof(prefix) - 1;
	int saved = errno;
	va_list ap;

	if (level > log_conf.max_level)
		return;
	va_start(ap, fmt);
	int r = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (r < 0)
		r = 0;
	size_t rn = (size_t)r < sizeof(raw) ? (size_t)r : sizeof(raw) - 1;
	memcpy(buf, prefix, n);
	n += cw_text_escape(buf + n, sizeof(buf) - n - 1, raw, rn);
	buf[n++] = '\n';
	/* Diagnostics are best effort: a failed write to stderr is ignored,
	 * and so is one that would block. The command shares the terminal:
	 * with its output stopped (tcflow TCOOFF, ^S), or a pipe nobody
	 * reads, a plain write waits for ever, and the watchdog's warning,
	 * or the run's last line after the report, held capwatch past its
	 * timeout with no exit (red team 25, e194). A terminal that is
	 * stopped is not writable for poll (its write room is 0); a pipe is
	 * when a page is free, which a message of this size fits. Regular
	 * files are always writable. Waiting is bounded, the message dropped
	 * past it. */
	struct pollfd p = { .fd = log_conf.fd, .events = POLLOUT };
	int k;
	while ((k = poll(&p, 1, LOG_WAIT_MS)) < 0 && errno == EINTR)
		;
	if (k == 0 || (k > 0 && (p.revents & POLLOUT) == 0 && (p.revents & POLLNVAL) == 0)) {
		errno = saved;
		return;
	}
	while (write(log_conf.fd, buf, n) < 0 && errno == EINTR)
		;
	errno = saved;
}
