#ifndef CAPWATCH_STATE_H
#define CAPWATCH_STATE_H
/* The state of one supervised run, shared by the launcher, the event loop,
 * the tracker and the handlers: struct cw_run and the contexts hung off it.
 * One instance per capwatch process, made and ended by run.c (the top of
 * the program, run.h), which no other module calls. Its threads take
 * turns under the loop's lock (notify.c): every ptrace request comes from
 * the thread that seized. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "policy.h"
#include "report.h"
#include "trace.h"
#include "jbuf.h"
#include "supervisor/cli.h"
#include "supervisor/privs.h"

struct cw_tracker;
struct cw_tracker_ops;
struct cw_changes;
struct cw_kernel;
struct cw_limits;
struct cw_landlock;
struct cw_secret_ids;
struct cw_secret_links;
struct cw_colocate;
struct cw_annot;
struct cw_approval;
struct cw_hosts;
struct cw_watchdog;
struct cw_loop;
struct cw_fs_state;
struct cw_run;
/* An event source of the loop registered by a back end (notify.h). */
struct cw_loop_source {
	int fd;
	uint32_t events;
	void (*fn)(struct cw_run *run, int fd, uint32_t events);
};

struct cw_run {
	/* --- configuration, fixed before the command starts --- */
	const struct cw_options *opts;
	cw_profile *profile;
	char *profile_name;           /* as reported */
	struct cw_context ctx;
	char **roots;                 /* owned; ctx.roots points here */
	char **protected_files;       /* owned; ctx.protected_files points here */
	size_t nprotected;
	char *scratch;                /* the run's TMPDIR (owned), or NULL */
	bool caches_redirected;       /* per-user caches point into the scratch */
	char *cwd;
	char *command_path;           /* COMMAND resolved in PATH */
	char **envp;                  /* the command's environment */
	bool observe;                 /* --observe: decide, record, deny nothing */
	bool tty_mode;                /* the command shares capwatch's process group */
	int tty_link_w;               /* tty_link.c: a byte ends the link; -1: none */
	bool under_filter;            /* capwatch itself runs under a seccomp filter */
	bool no_listener;             /* degraded: the filter could not be installed */
	struct cw_privs privs;        /* what the command keeps of capwatch's privileges */
	char (*syscall_names)[24];    /* CW_NSYSCALLS names for unlisted numbers (filter.c) */

	/* --- outputs --- */
	cw_report *report;
	bool report_run_set;
	int report_fd;                /* -1: no report */
	int trace_fd;                 /* -1: no trace */
	struct cw_jbuf tj;            /* one trace line, reused */
	char *tbuf;                   /* trace write buffer */
	size_t tlen, tcap;
	double last_flush;
	bool trace_failed;

	/* --- counters --- */
	double t0;                    /* monotonic start */
	uint64_t seq;                 /* last trace sequence number */
	uint64_t events;              /* op + process events */
	uint64_t notifications;       /* seccomp notifications received */
	uint64_t denials;
	bool have_denial;             /* an enforced denial: the first is */
	struct cw_decision first_denial; /* (the outcome of a command whose own exec was denied) */
	/* The denial that explains the outcome (issue 17 item 11,
	 * cw_report_headline), found once every process is in the report. */
	bool procs_reported;
	struct cw_report_headline hl;
	struct cw_decision headline;
	bool start_denied;            /* the command's own exec was denied */

	/* --- the process tree --- */
	pid_t child;                  /* the first child (the command) */
	int child_pidfd;
	bool child_exited;
	int child_status;             /* wait status */
	bool child_execed;            /* the command's exec happened */
	const struct cw_tracker_ops *tracker_ops;
	struct cw_tracker *tracker;
	int listener;                 /* seccomp listener, -1 when closed */
	bool listener_hup;
	bool timed_out;
	bool cancelled;               /* capwatch was told to stop (SIGTERM...) */
	double stop_deadline;         /* cw_now() after which the leftovers of a
					 stopped run are killed (notify.c), 0 = none */
	bool degraded;
	char downgrade_reason[512];
	bool stop_requested;          /* terminal stop (Ctrl-Z) pending */

	struct cw_changes *changes;
	/* --- the exec, process, ioctl and network handlers (cw_handlers_init) --- */
	struct cw_call_scratch *call_scratch; /* handlers/scratch.h: the call being handled */
	struct cw_net_state *net_state;       /* net_addr.c: what the tree bound through capwatch */
	struct cw_ingress *ingress;           /* ingress.c: the kernel back end's guard, NULL without one */
	struct cw_resolve_links *links;       /* resolve.c: the merged-/usr links */
	struct cw_fs_state *fs_state; /* the file family's (handlers/fs.c) */
	/* --- the back end --- */
	const char *backend;          /* "portable" or "kernel" */
	char backend_reason[256];     /* why auto chose it */
	struct cw_kernel *kernel;     /* kernel.c's state, NULL for portable */
	/* The kernel back end deciding reads in the kernel (kernel.h,
	 * CAPWATCH_KERNEL_READS=1): the tree in a PID namespace of its own,
	 * whose init is ns_init; ns_proc_fd is that namespace's /proc.
	 * tree_root_fd is the tree's "/" (its own mounts, which fanotify
	 * watches): the files capwatch opens for the tree are opened from it
	 * (fs_open.c), so that a descriptor it installs leads nowhere
	 * unwatched (a reopen through /proc/self/fd: red team e163). -1
	 * otherwise. */
	bool kernel_reads;
	pid_t ns_init;
	int ns_init_w, own_pidns_fd, ns_proc_fd, tree_root_fd;
	/* --- the state of the infrastructure modules, each made by the
	 * module's init and freed at its teardown (NULL: not made, or off) --- */
	struct cw_limits *limits;         /* limits.c */
	struct cw_landlock *landlock;     /* landlock.c */
	struct cw_secret_ids *secret_ids; /* secret_ids.c */
	struct cw_secret_links *secret_links; /* secret_ids.c (cw_secret_ids_linked) */
	struct cw_colocate *colocate;     /* colocate.c */
	struct cw_annot *annot;           /* annot*.c */
	struct cw_approval *approval;     /* approval.c */
	struct cw_hosts *hosts;           /* hosts.c */
	struct cw_watchdog *watchdog;     /* watchdog.c */
	struct cw_loop_source sources[4];
	size_t nsources;
	struct cw_loop *loop;         /* the event loop's state (notify.c) */
};

#endif
