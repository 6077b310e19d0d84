#ifndef CAPWATCH_TTY_LINK_H
#define CAPWATCH_TTY_LINK_H
/* In tty mode the command shares capwatch's process group, the
 * terminal's job. When nothing links that group to its session (no
 * member has a parent in another group of the same session: capwatch run
 * by `script -c`, `ssh -t`, tmux directly), the tree can make it an
 * orphaned group with a stopped member, and the kernel then sends SIGHUP
 * and SIGCONT to every process of the group, outside the tree too
 * (kill_orphaned_pgrp; e189). The link keeps the group from ever being
 * orphaned while the run lasts: a helper of capwatch's in a group of its
 * own in the session, whose child sits in the job's group with every
 * signal blocked. Neither is in the tree, so the tree cannot signal them
 * (process_control). */

struct cw_run;

/* Start the link (tty mode only; a no-op otherwise). Before the command
 * starts, so that it is there for the whole run. A link that cannot be
 * made is a warning note, not a failure: it guards processes outside the
 * tree from a signal they would get bare too. */
void cw_tty_link_start(struct cw_run *run);

/* End it once the tree is gone (a no-op without one). */
void cw_tty_link_stop(struct cw_run *run);

#endif
