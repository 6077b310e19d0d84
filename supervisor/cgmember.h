/* Is a process in a cgroup (v2): /proc/PID/cgroup read, with the wait a
 * task just forked needs (cgmember.c). */
#ifndef CW_CGMEMBER_H
#define CW_CGMEMBER_H
#include <stdbool.h>
#include <sys/types.h>

/* Is process PID in the v2 cgroup whose /proc/PID/cgroup line is
 * CG_LINE ("0::/a/b"), or one below it? A task whose fork event was just
 * read may not be attached to its cgroup yet, and then reads as the
 * root's: such a task, one that has never run, is read again until it
 * has run or reads as CG_LINE's: for at most about 200 ms, or 2 s when
 * its parent is a member (a loaded machine stretches the window). False
 * when PID cannot be read (gone). */
bool cw_cgroup_member(const char *cg_line, pid_t pid);
/* The same for a PID known to have run (the opener of a file): read
 * once, no wait. */
bool cw_cgroup_member_running(const char *cg_line, pid_t pid);
/* The parent of PID from /proc/PID/stat; 0 when it cannot be read. */
pid_t cw_proc_parent(pid_t pid);

#endif
