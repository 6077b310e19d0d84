#ifndef CAPWATCH_TOOLS_EXPORT_SARIF_H
#define CAPWATCH_TOOLS_EXPORT_SARIF_H
/* capwatch export --format sarif: the denials of one run as a SARIF 2.1.0
 * log, for code-scanning dashboards (GitHub upload-sarif and the like). */
#include <stdbool.h>
#include <stdio.h>

/* Write the SARIF log of the run recorded in FILE (a trace, or a report) to
 * O. With FLAGGED, allowed-but-flagged operations are results too (level
 * "note"; a trace records them, a report does not). Returns 0 or -errno
 * (the message already printed). */
int cw_export_sarif(const char *file, FILE *o, bool flagged);

#endif
