#ifndef CAPWATCH_SCRATCH_H
#define CAPWATCH_SCRATCH_H
/* The run's scratch directory (the command's TMPDIR, run->scratch):
 * created before the command, removed after the report (or by the
 * --timeout watchdog's emergency report). */

struct cw_run;

/* A new private directory under TMPDIR (absolute), its real name in
 * run->scratch. 0, or -errno with the message printed (-ENOMEM silent). */
int cw_scratch_create(struct cw_run *run, const char *tmpdir);
/* Remove it with everything in it, unless --keep-scratch (then say where
 * it is). Never follows a symlink the command left behind. */
void cw_scratch_remove(struct cw_run *run);

#endif
