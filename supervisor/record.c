/* The run's clock, its trace buffer and its notes (record.h). */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "supervisor/record.h"
#include "supervisor/state.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

double cw_record_time(const struct cw_run *run)
{
	return cw_now() - run->t0;
}

/* The soft RLIMIT_FSIZE back up to the hard one: what cw_limits_own_raise()
 * did at the start for this limit, repeated here rather than called so that
 * recording depends on no other module (limits.c records notes). */
static void raise_fsize(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			cw_debug("raising capwatch's own limit %d: %s", RLIMIT_FSIZE, strerror(errno));
	}
}

/* EFBIG: a soft RLIMIT_FSIZE lowered on capwatch since it started
 * (SIGXFSZ is ignored, so the write fails instead of killing us): raised
 * again to the hard limit and tried once more. */
int cw_record_write_all(int fd, const char *buf, size_t n, size_t *done)
{
	bool raised = false;
	*done = 0;
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EFBIG && !raised) {
				raised = true;
				raise_fsize();
				continue;
			}
			return -errno;
		}
		if (w == 0)
			return -EIO;
		buf += w;
		n -= (size_t)w;
		*done += (size_t)w;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t n)
{
	size_t done;
	return cw_record_write_all(fd, buf, n, &done);
}

/* The trace keeps every event up to a write failure (EFBIG, ENOSPC...):
 * a line cut by the failure is taken off again (back to the last
 * newline written, when the file can be truncated), and nothing is
 * written after it, so the file stays valid JSONL with no gap. */
static void trace_failed(struct cw_run *run, int err, off_t cut)
{
	if (cut >= 0 && ftruncate(run->trace_fd, cut) == 0)
		lseek(run->trace_fd, cut, SEEK_SET);
	run->trace_failed = true;
	cw_err("writing the trace failed: %s; it ends at the last complete event written", strerror(-err));
}

void cw_record_trace_flush(struct cw_run *run)
{
	run->last_flush = cw_now();
	if (run->trace_fd < 0 || run->tlen == 0)
		return;
	if (run->trace_failed) {
		run->tlen = 0;
		return;
	}
	off_t base = lseek(run->trace_fd, 0, SEEK_CUR); /* -1 on a pipe */
	size_t done;
	int e = cw_record_write_all(run->trace_fd, run->tbuf, run->tlen, &done);
	if (e < 0) {
		const char *nl = done ? memrchr(run->tbuf, '\n', done) : NULL;
		size_t keep = nl ? (size_t)(nl - run->tbuf) + 1 : 0;
		trace_failed(run, e, base >= 0 && keep < done ? base + (off_t)keep : -1);
	}
	run->tlen = 0;
}

void cw_record_trace_emit(struct cw_run *run)
{
	struct cw_jbuf *j = &run->tj;
	if (run->trace_fd >= 0 && !j->oom) {
		if (run->tlen + j->len + 1 > run->tcap)
			cw_record_trace_flush(run);
		if (j->len + 1 > run->tcap) {
			/* A line bigger than the buffer: write it directly. */
			if (!run->trace_failed) {
				off_t base = lseek(run->trace_fd, 0, SEEK_CUR);
				int e = write_all(run->trace_fd, j->buf, j->len);
				if (e == 0)
					e = write_all(run->trace_fd, "\n", 1);
				if (e < 0)
					trace_failed(run, e, base);
			}
		} else {
			memcpy(run->tbuf + run->tlen, j->buf, j->len);
			run->tlen += j->len;
			run->tbuf[run->tlen++] = '\n';
		}
	}
	cw_jbuf_reset(j);
}

void cw_record_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cw_log(strcmp(level, "warning") == 0 ? CW_LOG_WARNING : CW_LOG_INFO, "%s", msg);
	run->events++;
	cw_trace_note_write(&run->tj, ++run->seq, cw_record_time(run), pid, level, msg);
	cw_record_trace_emit(run);
}
