#ifndef CAPWATCH_FDS_H
#define CAPWATCH_FDS_H
/* Inherited descriptors (issue 14 item 9): a descriptor capwatch was
 * started with is a capability too. Every one above 2 is closed before the
 * command runs, unless --keep-fd names it and the profile allows it like
 * an open of what it refers to; each is recorded in the report
 * (inheritedFds) with what it was. */
#include <stdbool.h>
#include <stddef.h>

struct cw_run;

struct cw_inherited_fd {
	int fd;
	const char *kind;   /* "file", "directory", "pipe", "socket", "device", "other" */
	char *path;         /* readlink of /proc/self/fd/N ("pipe:[123]" ...) */
	const char *mode;   /* "r", "w", "rw" */
	bool keep;          /* named by --keep-fd */
	bool passed;        /* the command gets it */
};

/* In main(), before capwatch opens anything: the descriptors above 2,
 * except the ones given to capwatch itself (EXCLUDE). Returns 0 or
 * -ENOMEM; *OUT is malloc'd (cw_fds_free). */
int cw_fds_snapshot(const int *exclude, size_t nexclude, struct cw_inherited_fd **out, size_t *n);
void cw_fds_free(struct cw_inherited_fd *v, size_t n);

/* In the run, once the profile is loaded: decide the --keep-fd ones (a
 * denial is recorded and the descriptor closed), record every one in the
 * report and the trace. Returns -1 when a --keep-fd names a descriptor
 * that is not open (a usage error, reported), 0 otherwise. */
int cw_fds_decide(struct cw_run *run);

/* In the child, after close_range(CLOSE_RANGE_CLOEXEC): let the passed
 * ones through exec (async-signal-safe). */
void cw_fds_child(const struct cw_run *run);

#endif
