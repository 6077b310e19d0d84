/* The trace tools' streaming reader (trace_reader.h). Every line is
 * untrusted: a trace may be edited, truncated by a crash, or hostile. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "policy/trace.h"
#include "tools/common.h"

#define CW_TR_MAX_BAD_MSGS 20

int cw_tr_read_stream(FILE *f, const char *name, cw_tr_fn on_header, cw_tr_fn on_event,
		      void *opaque, struct cw_tr_status *st, bool quiet)
{
	char *line = NULL, err[512];
	size_t cap = 0;
	ssize_t n;
	bool have_header = false;
	int r = 0;

	memset(st, 0, sizeof(*st));
	st->file = name;
	while ((n = getline(&line, &cap, f)) >= 0) {
		bool last_unterminated = n == 0 || line[n - 1] != '\n';
		cJSON *ev;
		const char *type;

		st->lines++;
		ev = cw_trace_parse_line(line, (size_t)n, st->lines, err, sizeof(err));
		if (!ev) {
			if (!have_header) {
				/* without a header nothing after it can be trusted */
				const char *m = strncmp(err, "line ", 5) ? err : strchr(err, ':') ? strchr(err, ':') + 2 : err;

				r = strstr(err, "is newer than") ? -EPROTONOSUPPORT : -EINVAL;
				if (r == -EPROTONOSUPPORT)
					cw_tool_msg("%s:%lu: %s (it reads %s); use a newer capwatch", name, st->lines, m,
						    CW_TRACE_SCHEMA);
				else
					cw_tool_msg("%s:%lu: not a capwatch trace: %s", name, st->lines, m);
				goto out;
			}
			if (last_unterminated) {
				int c = fgetc(f);

				if (c == EOF) {
					st->truncated = true;
					cw_tool_msg("%s:%lu: warning: the last line is cut short (was the run killed?); "
						    "results cover the %lu lines before it", name, st->lines,
						    st->lines - 1);
					break;
				}
				ungetc(c, f);
			}
			st->bad++;
			if (st->bad <= CW_TR_MAX_BAD_MSGS)
				cw_tool_msg("%s:%lu: %s; line skipped", name, st->lines,
					    strncmp(err, "line ", 5) ? err : strchr(err, ':') ? strchr(err, ':') + 2 : err);
			continue;
		}
		type = cw_j_str(ev, "type");
		if (!have_header) {
			if (!type || strcmp(type, "header")) {
				cw_tool_msg("%s:%lu: not a capwatch trace: the first line is not a header", name, st->lines);
				cJSON_Delete(ev);
				r = -EINVAL;
				goto out;
			}
			have_header = true;
			r = on_header ? on_header(opaque, ev, st->lines) : 0;
			cJSON_Delete(ev);
			if (r)
				goto out;
			continue;
		}
		if (type && !strcmp(type, "header")) {
			st->bad++;
			if (st->bad <= CW_TR_MAX_BAD_MSGS)
				cw_tool_msg("%s:%lu: a second header (two traces concatenated?); line skipped",
					    name, st->lines);
			cJSON_Delete(ev);
			continue;
		}
		if (type && !strcmp(type, "summary"))
			st->summary = true;
		st->events++;
		r = on_event ? on_event(opaque, ev, st->lines) : 0;
		cJSON_Delete(ev);
		if (r)
			goto out;
	}
	if (ferror(f)) {
		cw_tool_msg("%s: read error", name);
		r = -EIO;
		goto out;
	}
	if (!have_header) {
		cw_tool_msg("%s: not a capwatch trace: the file is empty", name);
		r = -EINVAL;
		goto out;
	}
	if (st->bad > CW_TR_MAX_BAD_MSGS)
		cw_tool_msg("%s: %lu corrupt lines skipped in all", name, st->bad);
	if (!st->summary && !st->truncated && !quiet)
		cw_tool_msg("%s: warning: no summary line: the run did not finish cleanly; results are partial",
			    name);
out:
	st->partial = st->bad || st->truncated || !st->summary;
	free(line);
	return r;
}

int cw_tr_read(const char *path, cw_tr_fn on_header, cw_tr_fn on_event, void *opaque,
	       struct cw_tr_status *st)
{
	FILE *f;
	int r;

	if (!strcmp(path, "-"))
		return cw_tr_read_stream(stdin, "<stdin>", on_header, on_event, opaque, st, false);
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		memset(st, 0, sizeof(*st));
		st->file = path;
		cw_tool_msg("%s: %s", path, strerror(-r));
		return r;
	}
	r = cw_tr_read_stream(f, path, on_header, on_event, opaque, st, false);
	fclose(f);
	return r;
}
