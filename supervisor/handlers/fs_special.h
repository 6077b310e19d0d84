#ifndef CAPWATCH_FS_SPECIAL_H
#define CAPWATCH_FS_SPECIAL_H
/* How fs_special.c classifies the objects it opens for a target (see the
 * comment at its top); exported for its unit test. handlers.h has the
 * entry point, cw_open_special(). */
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* For an object on procfs at PATH: may capwatch open it for thread group
 * TGID? Files of /proc/PID the kernel checks against the opener (mem,
 * environ, maps, ns...) only for TGID's own threads; everything else yes. */
bool cw_proc_open_allowed(const char *path, pid_t tgid);
/* Is PATH "/proc/PID/ns/NAME" or "/proc/PID/task/TID/ns/NAME"? */
bool cw_proc_ns_link(const char *path);
/* A character device whose open neither blocks nor depends on the opener
 * (memory devices, /dev/console, /dev/ptmx, pty slaves). */
bool cw_quick_device(dev_t rdev);
/* A terminal: pty slaves, major 4, /dev/console (not /dev/tty, /dev/ptmx). */
bool cw_terminal_device(dev_t rdev);
/* Is ST (a terminal's) the slave of a live pty the tree made through
 * /dev/ptmx? */
struct cw_run;
bool cw_fs_tree_pty(const struct cw_run *run, const struct stat *st);
/* The pid whose /proc directory PATH is (held by OPATH, ST), else 0. */
pid_t cw_proc_pid_dir(const char *path, int opath, const struct stat *st);

#endif
