#ifndef CAPWATCH_HANDLERS_SCRATCH_H
#define CAPWATCH_HANDLERS_SCRATCH_H
/* The scratch of the call being handled by the exec, process, ioctl and
 * network handlers: the copies they take from the target and decide on,
 * too large for the stack (a resolved path is 64 KiB) and used again by
 * the enforcement of the same notification. One per run
 * (run->call_scratch, made by cw_handlers_init), reached from the
 * notification (n->call): notifications are handled one at a time, under
 * the loop lock, so one is enough, and nothing is allocated per
 * notification. A unit test makes its own. */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include "supervisor/resolve.h"
#include "supervisor/handlers/net_impl.h"

struct cw_run;

/* argv as far as the trace records it at the notification (exec.c). */
#define CW_EXEC_ARGV_MAX 64
#define CW_EXEC_ARGV_BYTES 16384
/* The page size for reads of the target's memory (4 KiB pages are the
 * smallest x86_64 has: a read that stops at a 4 KiB boundary never runs
 * into a page of another mapping). */
#define CW_EXEC_PAGE 4096u

/* The last stretch of target memory read, up to the end of its page
 * (exec.c read_arg). */
struct cw_exec_window {
	uint64_t addr;
	size_t len;
	char buf[CW_EXEC_PAGE];
};

struct cw_exec_scratch {
	char raw[PATH_MAX];           /* the path as the target gave it */
	struct cw_resolved res;       /* ... and resolved */
	char argv_buf[CW_EXEC_ARGV_BYTES];
	const char *argv_ptrs[CW_EXEC_ARGV_MAX + 1]; /* into argv_buf, NULL-terminated */
	bool argv_complete;           /* read up to its NULL */
	uint64_t argv_addr;           /* the target's argv pointer */
	struct cw_exec_window win;
};

struct cw_call_scratch {
	struct cw_exec_scratch exec;  /* exec.c */
	struct f_owner_ex setown_ex;  /* proc.c: F_SETOWN_EX's owner, read once */
	int owner_val;                /* ioctl.c: FIOSETOWN/SIOCSPGRP's owner, sigio.c:
					 FIOASYNC's flag, read once */
	struct winsize winsz;         /* sigio.c: TIOCSWINSZ's size, read once */
	unsigned char tty_attr[44];   /* sigio.c: TCSETS and twins' struct (the kernel's
					 termios, termios2 or termio), read once */
	int sig_dup;                  /* sigio.c: the duplicate decided on, -1 once closed */
	struct cw_net_call net;       /* net*.c (net_impl.h) */
};

/* The run's state of these handlers and of resolve.c: the scratch above,
 * the network family's (cw_net_state_new) and the merged-/usr links
 * (cw_resolve_links_new). 0 or -ENOMEM; cw_handlers_free undoes it (and
 * is a no-op on what was never made). scratch.c. */
int cw_handlers_init(struct cw_run *run);
void cw_handlers_free(struct cw_run *run);

#endif
