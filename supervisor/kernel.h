#ifndef CAPWATCH_KERNEL_H
#define CAPWATCH_KERNEL_H
/* The kernel back end (--backend kernel): the tree without ptrace.
 *
 *  - membership: a cgroup v2 group of the run's own (cgroup.kill ends it,
 *    cgroup.events says when it is empty); capwatch is the subreaper of
 *    the orphans;
 *  - forks, execs and exits of every member, grandchildren included: the
 *    proc connector (netlink, root, the initial network namespace);
 *  - execs decided on the file the kernel really opened: fanotify
 *    FAN_OPEN_EXEC_PERM on the mounts of a mount namespace of the tree's
 *    own (no event for the rest of the machine), every exec decided;
 *    then, at the connector's exec event, the image must be one fanotify
 *    allowed (an exec through an unwatched mount is killed);
 *  - a sentinel process kills the cgroup when capwatch dies (ptrace's
 *    exit-kill for this back end: the command never outlives its
 *    supervisor).
 * Everything else (writes, network, process control...) is the seccomp
 * listener's and its handlers', exactly as with the portable back end. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct stat;
struct cw_run;

/* Can this machine and this capwatch run the kernel back end? 0, or
 * -errno with WHY (one phrase) filled. No lasting effect. */
int cw_kernel_probe(struct cw_run *run, char *why, size_t n);
/* In the child, before it drops its capabilities: a mount namespace of
 * its own whose mounts fanotify watches. 0 or -errno (async-signal-safe). */
int cw_kernel_child(bool reads);
/* CAPWATCH_KERNEL_READS=1, before the filter is built: the PID namespace
 * the command is forked into next, and its init. 0 (run->kernel_reads
 * set) or -errno (nothing changed). */
int cw_kernel_reads_prepare(struct cw_run *run);
/* Right after the command's fork: capwatch's next forks are in its own
 * namespace again. 0 or -errno. */
int cw_kernel_reads_forked(struct cw_run *run);
/* PID as a member names it, in its namespace (kernel_reads): a member? */
bool cw_kernel_ns_pid_in_tree(const struct cw_run *run, pid_t pid);
/* The thread of process TGID (capwatch's number) that the tree's PID
 * namespace numbers NSTID: its number for capwatch, or -1. */
pid_t cw_kernel_host_tid(pid_t tgid, pid_t nstid);
/* The number capwatch knows a member by that the tree's namespace
 * numbers NSPID (a process), or -1: for the process behind a descriptor
 * of the tree's /proc (proc.c, cw_pidfd_target). */
pid_t cw_kernel_ns_pid_to_host(struct cw_run *run, pid_t nspid);
/* The tree made or changed a name (rename, link): reads are decided
 * anew (the ignore marks go). */
void cw_kernel_names_changed(struct cw_run *run);
/* In capwatch once the child is set up (it waits for its last "go"):
 * mark its mounts and start deciding execs. 0 or -errno. */
int cw_kernel_ready(struct cw_run *run);
/* Is PID a member of the run's cgroup? */
bool cw_kernel_in_tree(const struct cw_run *run, pid_t pid);
/* The tree's thread TID of TGID is having its exec continued
 * (handlers/exec.c): the exec's first fanotify event needs no cgroup
 * test. ST not NULL: the profile allowed the name that named the file ST
 * (held by PIN, an O_PATH descriptor taken over here; else -1), which
 * that event then needs no decision for. */
void cw_kernel_exec_allowed(struct cw_run *run, pid_t tid, pid_t tgid, int pin, const struct stat *st);
/* Read what the proc connector has queued (forks, execs, exits): called
 * with the run's lock held by whoever meets a process it does not know. */
void cw_kernel_sync(struct cw_run *run);
/* After the proc connector dropped events (an exec among them is never
 * checked at its event): the calling thread TID of process TGID runs an
 * image the run allowed, else it is killed (or stopped) and recorded,
 * and false is returned (answer EPERM). True while nothing was lost. */
bool cw_kernel_caller_checked(struct cw_run *run, pid_t tid, pid_t tgid);
/* A notification's caller, thread TID of process TGID (a member: it
 * carries the tree's filter), that the table has no live entry for, its
 * fork event dropped or the process taken for gone: a new entry, so that
 * what it does is recorded as its process's (a denial's toleration needs
 * that process). Its entry (the live one it had, or the new one; NULL
 * when none could be made). */
struct cw_proc *cw_kernel_adopt_caller(struct cw_run *run, pid_t tid, pid_t tgid);
/* A notification's caller TGID whose entry is condemned (it runs an
 * image the run did not allow): killed again, for one whose first kill
 * failed (kernel.c condemn). */
void cw_kernel_kill_condemned(struct cw_run *run, pid_t tgid);
/* SIGKILL the whole cgroup (async-signal-safe: the watchdog thread and
 * the limits module call it, without run_lock: it reads only what is set
 * before the watchdog starts; a no-op without the kernel back end). */
void cw_kernel_kill_cgroup(const struct cw_run *run);
/* The end of the run: stop the sentinel, remove the cgroup. */
void cw_kernel_teardown(struct cw_run *run);
/* Counters for the report's layer list. */
const char *cw_kernel_layers(const struct cw_run *run);
#endif
