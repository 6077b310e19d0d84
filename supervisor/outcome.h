#ifndef CAPWATCH_OUTCOME_H
#define CAPWATCH_OUTCOME_H
/* The end of a run: its outcome (contract section 1), the report that
 * says it and the trace's summary line, and the minimal report the
 * --timeout watchdog writes when the run's threads are stuck. The report
 * is written element by element as it is rendered, its spilled denials
 * read back from their file. */
#include <stdbool.h>

struct cw_run;
struct cw_decision;

struct cw_outcome {
	const char *state, *kind;
	bool has_exit;
	int code, signal;
	const struct cw_decision *denial;
	int status; /* capwatch's exit status */
};

/* The back end as the report and the trace name it. */
const char *cw_outcome_backend_name(const struct cw_run *run);

/* The kind of a command that was never executed, by capwatch's exit
 * status for it (127 or 126). */
const char *cw_outcome_unstarted_kind(int status);

/* Every process of the tree into the report, once (the headline needs
 * their ends; the report lists them). */
void cw_outcome_add_processes(struct cw_run *run);

/* The outcome of a run whose loop is over: a runtime denial makes it
 * enforcement_denied only when one was not tolerated, and the headline
 * is then the one that explains it (cw_report_headline; run->hl counts
 * the denials). */
void cw_outcome_compute(struct cw_run *run, struct cw_outcome *o);

/* Bound the memory the report's denials take: a spill file in DIR. */
void cw_outcome_setup_spill(struct cw_run *run, const char *dir);

/* The report's "enforcement" from what the run has set up so far. */
void cw_outcome_set_enforcement(struct cw_run *run);

/* Flush the trace, then write the report with outcome O. Returns false
 * when a report was asked for and none valid could be written (capwatch
 * then exits 125, contract section 1). The caller has claimed the report
 * from the watchdog (cw_watchdog_claim_report). */
bool cw_outcome_write_report(struct cw_run *run, const struct cw_outcome *o);
/* The trace's summary line, and the trace flushed. */
void cw_outcome_finish_trace(struct cw_run *run, const struct cw_outcome *o);

/* The minimal report (STATE, KIND, REASON) written by the --timeout
 * watchdog while the run's threads are stuck: reads only what was set
 * before the loop began. Also removes the scratch directory. 0 or -errno. */
int cw_outcome_emergency_report(struct cw_run *run, const char *state, const char *kind, const char *reason);

#endif
