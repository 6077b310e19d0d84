#ifndef CAPWATCH_RECORD_H
#define CAPWATCH_RECORD_H
/* What every module records of the run as it goes: the run's clock, the
 * trace (one buffered JSON line at a time, run->tj) and notes. A service
 * for the whole supervisor that calls no other supervisor module, so that
 * recording never makes a module depend on the top of the program. */
#include <stddef.h>

struct cw_run;

/* Seconds since the run started. */
double cw_record_time(const struct cw_run *run);

/* Write all N bytes of BUF to FD; *DONE says how many went either way.
 * The writer of capwatch's own outputs (trace, report): a soft
 * RLIMIT_FSIZE lowered since capwatch raised it is raised again once.
 * 0 or -errno. */
int cw_record_write_all(int fd, const char *buf, size_t n, size_t *done);

/* Append the line in run->tj to the trace (buffered). */
void cw_record_trace_emit(struct cw_run *run);
void cw_record_trace_flush(struct cw_run *run);

/* A "note" line and a log message at LEVEL "warning"/"info". */
void cw_record_note(struct cw_run *run, int pid, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
