#ifndef CAPWATCH_TOOLS_TRACE_READER_H
#define CAPWATCH_TOOLS_TRACE_READER_H
/* The trace tools' one streaming reader of a trace, line by line.
 *
 * Bad input policy of the reader (cw_tr_read):
 *   - missing or unreadable file, empty file, a first line that is not a
 *     trace header, or a schema newer than capwatch.trace/v1: one-line error,
 *     the tool stops with exit 2;
 *   - a corrupt line in the middle: "capwatch: TRACE:LINE: ..." on stderr,
 *     the line is skipped and reading goes on (results are marked partial);
 *   - a last line cut short (no newline, not valid JSON: a killed run):
 *     a warning naming the line, results are partial;
 *   - no summary line: a warning that the run did not finish cleanly. */
#include <stdbool.h>
#include <stdio.h>

typedef struct cJSON cJSON;

struct cw_tr_status {
	const char *file;
	unsigned long lines;      /* lines read */
	unsigned long events;     /* non-header events delivered */
	unsigned long bad;        /* corrupt lines skipped */
	bool truncated;           /* last line cut short */
	bool summary;             /* a summary line was seen */
	bool partial;             /* any of the above: results are partial */
};

/* Called for the header (once, first) and for every valid event line.
 * EV is freed after the call returns. A non-zero return stops reading and
 * is returned by cw_tr_read. */
typedef int (*cw_tr_fn)(void *opaque, const cJSON *ev, unsigned long lineno);

/* Read the trace at PATH ("-" = stdin). Prints the bad-input messages
 * described above. Returns 0, a callback's non-zero value, or -errno
 * (-ENOENT, -EINVAL: not a trace, -EPROTONOSUPPORT: newer schema) after
 * printing one line. QUIET_TAIL suppresses the "no summary" warning. */
int cw_tr_read(const char *path, cw_tr_fn on_header, cw_tr_fn on_event, void *opaque,
	       struct cw_tr_status *st);
/* The same over an open stream (used by the fuzz target). */
int cw_tr_read_stream(FILE *f, const char *name, cw_tr_fn on_header, cw_tr_fn on_event,
		      void *opaque, struct cw_tr_status *st, bool quiet);

#endif
