#ifndef CAPWATCH_TOOLS_EXPORT_TIMELINE_H
#define CAPWATCH_TOOLS_EXPORT_TIMELINE_H
/* The timeline of capwatch export --format html, at scale (issue 18): the
 * processes grouped into lanes (one per program, or per parent), drawn on a
 * canvas by the page's own script from a compact, bounded data block, so a
 * run of 10,000 processes gives a page of a few hundred kilobytes and a
 * few dozen lanes, not 10,000 elements. */
#include <stdio.h>
#include "tools/common.h"

struct cw_tl;

/* Read the trace FILE into RUN (as cw_tool_run_load does) and keep, besides, a
 * bounded sample of its operations for the page: every denial first (up to
 * the budget), then flagged allows, then the other operations, evenly
 * spread over each class. Returns 0 or -errno (message printed). */
int cw_tl_load(const char *file, struct cw_tool_run *run, struct cw_tl **out);
void cw_tl_free(struct cw_tl *tl);

/* The timeline's section: toolbar, canvas, notes (the script draws it). */
void cw_tl_write_section(FILE *o, const struct cw_tool_run *run, const struct cw_tl *tl);
/* The programs table: one row per program with its counts (static HTML,
 * readable without the script). */
void cw_tl_write_programs(FILE *o, const struct cw_tool_run *run);
/* Inside the page's one <script> element: the data and the drawing code. */
int cw_tl_write_script(FILE *o, const struct cw_tool_run *run, struct cw_tl *tl);

/* HTML-escape S to O (export.c's escaper; every string from a trace goes
 * through it). */
void cw_export_h(FILE *o, const char *s);

#endif
