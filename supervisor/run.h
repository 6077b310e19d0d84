#ifndef CAPWATCH_RUN_H
#define CAPWATCH_RUN_H
/* The top of the program (run.c): the whole run after argument parsing,
 * called by main.c only. The run's state is struct cw_run (state.h). */
struct cw_options;

/* Returns capwatch's exit status. */
int cw_run_main(const struct cw_options *opts);

#endif
