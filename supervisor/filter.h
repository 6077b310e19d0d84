#ifndef CAPWATCH_FILTER_H
#define CAPWATCH_FILTER_H
/* The seccomp-BPF program, generated with libseccomp from the dispatch
 * table (handlers/table.c) and exported as raw BPF, because libseccomp
 * 2.5.4 cannot pass SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV: the child loads
 * it with the seccomp(2) syscall itself. */
#include <linux/filter.h>

struct cw_run;

/* Build the program for RUN's profile. OUT->filter is malloc'd (free it).
 * Returns 0 or -errno (with a message logged). */
int cw_filter_build(struct cw_run *run, struct sock_fprog *out);

#endif
