#ifndef CAPWATCH_LAUNCH_H
#define CAPWATCH_LAUNCH_H
/* Starting the command (kernel-notes K30): fork, attach the tracker,
 * install the filter in the child, fetch its listener with pidfd_getfd,
 * then let it exec. */
#include <linux/filter.h>
#include <signal.h>

struct cw_run;

/* The child's state before capwatch changed its own signal handling: what
 * the command must see (a drop-in keeps an inherited SIG_IGN, the mask). */
struct cw_launch_signals {
	sigset_t mask;
	struct sigaction pipe;
};

/* Child exit codes when setup fails after fork (it never runs the command
 * unfiltered). The parent also gets the step and errno through the status
 * pipe and prints them. */
enum cw_child_step {
	CW_STEP_OK = 0,
	CW_STEP_PDEATHSIG = 1,
	CW_STEP_SESSION,
	CW_STEP_SYNC,
	CW_STEP_FDS,
	CW_STEP_NNP,
	CW_STEP_SECCOMP,
	CW_STEP_EXEC,
	CW_STEP_LANDLOCK,
	CW_STEP_MOUNTNS,
};
#define CW_CHILD_EXIT_BASE 70 /* _exit(70 + step) */

/* Start the command. On success run->child, run->child_pidfd, run->listener
 * and run->tracker_ops are set (ptrace, or wait-only with run->degraded).
 * Returns 0 or -errno (message logged; no process left running). */
int cw_launch(struct cw_run *run, const struct sock_fprog *prog, const struct cw_launch_signals *sigs);

#endif
