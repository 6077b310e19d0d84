#ifndef CAPWATCH_CHANGES_H
#define CAPWATCH_CHANGES_H
/* Changes to the workspace (the report's outcome.changes). A handler
 * calls cw_changes_add() before an allowed write continues, with the state
 * of PATH before it; the final list is computed at the end of the run from
 * what is on disk then, so a write that failed leaves no change behind. */

struct cw_run;
struct cw_changes;

enum cw_change_kind { CW_CHANGE_WRITE, CW_CHANGE_DELETE, CW_CHANGE_CREATE, CW_CHANGE_RENAME };

/* An empty list (NULL when out of memory); cw_changes_free(NULL) is a no-op. */
struct cw_changes *cw_changes_new(void);
void cw_changes_free(struct cw_changes *c);

/* PATH (and PATH2, a rename's target) is about to change: its state now
 * is kept, the first time it is seen (run->changes). */
void cw_changes_add(struct cw_run *run, enum cw_change_kind kind, const char *path, const char *path2);

/* Add the net effect on disk of the recorded changes to run->report. */
void cw_changes_report(struct cw_run *run);

#endif
