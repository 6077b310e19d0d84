#ifndef CAPWATCH_REPORT_H
#define CAPWATCH_REPORT_H
/* The run report, schema "capwatch.report/v1" (contract section 4,
 * schemas/report.schema.json). The supervisor (and `replay --report`) fill a
 * cw_report as the run goes and render it once at the end. Built on cJSON;
 * strings from the target go through the same escaping rule as the trace
 * (invalid UTF-8 -> U+FFFD plus a "<key>_hex" sibling). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "policy.h"

#define CW_REPORT_SCHEMA "capwatch.report/v1"
#define CW_POLICY_VERSION 1

typedef struct cw_report cw_report;

cw_report *cw_report_new(void); /* NULL on allocation failure */
void cw_report_free(cw_report *r);
/* The key of the report's table of capability uses (their scopes are the
 * command's to choose; hmap.h): the supervisor gives a random one before
 * the first cw_report_count_capability (-EBUSY after). Without it, a key
 * derived from the report's address. */
struct cw_hash_key;
int cw_report_set_hash_key(cw_report *r, const struct cw_hash_key *key);

/* Strings are copied. ARGS is argv[1..], NULL-terminated. */
int cw_report_set_run(cw_report *r, const char *profile, const char *command,
		      const char *const *args, const char *cwd,
		      const char *const *roots, size_t nroots);

struct cw_enforcement {
	const char *backend;         /* "seccomp-unotify+ptrace" */
	const char *level;           /* "enforce" | "observe" */
	bool degraded;
	const char *downgrade_reason; /* "" when not degraded */
	const char *const *layers;   /* active layers, NULL-terminated, e.g.
					{"seccomp-bpf","seccomp-unotify","ptrace","landlock-abi7"} */
	const char *backend_reason;  /* why this back end (--backend auto), or NULL */
};
int cw_report_set_enforcement(cw_report *r, const struct cw_enforcement *e);

/* One process of the tree. Times are seconds since the run started. */
struct cw_proc_record {
	int pid, ppid;
	const char *exe;            /* /proc/PID/exe at the exec stop (NULL before any exec) */
	const char *const *argv;    /* NULL-terminated, may be NULL */
	double start, end;          /* end < 0: still running when the report was written */
	bool exited; int code;      /* exited normally with CODE */
	int signal;                 /* killed by SIGNAL (0 = not) */
	const char *preload;        /* "present" | "absent" | "unknown" */
	/* The caller's number for this process, the same for every program
	 * one pid runs until it ends and never reused in a run (0: none):
	 * how its denials find their exit status (cw_report_headline). Of
	 * the records of one number, the last added says how it ended. */
	uint64_t proc;
	/* ARGV is less than the process passed (the supervisor's bounds on
	 * what it keeps): "argv_truncated": true, as in the trace. */
	bool argv_truncated;
};
int cw_report_add_process(cw_report *r, const struct cw_proc_record *p);

/* A runtime denial (also recorded under --observe, as "enforced": false). */
struct cw_denial_record {
	int pid;
	const char *program;        /* exe of the process */
	const char *syscall;
	const struct cw_decision *d;
	double time;
	bool enforced;
	const char *host;           /* advisory, may be NULL */
	/* Advisory call site from the preload, may be NULL: "site", the
	 * calling frame; "backtrace", NULL-terminated, innermost first;
	 * "annotation_source": "preload" when host/site/backtrace came from it. */
	const char *site;
	const char *const *backtrace;
	const char *annotation_source;
	uint64_t proc;              /* the process's number (cw_proc_record); 0: none */
};
int cw_report_add_denial(cw_report *r, const struct cw_denial_record *dr);

/* Which denial explains the run (issue 17 item 11; capwatch(1), "The
 * report"), once every process has been added. A runtime denial is
 * tolerated when the process it was given to ended with exit status 0:
 * it went on and succeeded (a denial with no process number never is);
 * every element of "denials" says so in "tolerated". Of the enforced
 * denials that were not tolerated, the headline is one whose next action
 * is request_approval if there is one (approving it may be all the run
 * needs), and of those the last in time (the one closest to the failure
 * it explains). Fills H; when there is such a denial, copies its
 * decision to *D, H->found is set, and rendering names its pid, program
 * and syscall in outcome.denial when cw_report_set_outcome is given it.
 * Pointers in H stay valid until the report is freed. */
struct cw_report_headline {
	uint64_t enforced;          /* enforced runtime denials */
	uint64_t tolerated;         /* of which tolerated */
	bool found;
	int pid;
	const char *program, *syscall;
};
int cw_report_headline(cw_report *r, struct cw_decision *d, struct cw_report_headline *h);
/* The headline's order, for whoever chooses one (this module, explain):
 * true when an untolerated denial at time TA, asking for approval or not
 * (A_ASKS: next action request_approval), explains the outcome at least
 * as well as one at TB (B_ASKS): an ask first, then the later. */
bool cw_headline_over(bool a_asks, double ta, bool b_asks, double tb);
/* The byte store behind spilling and cw_report_write. policy/ makes no
 * system calls (pure policy, effectful supervisor): the caller supplies
 * them, on descriptors it opened.
 *   write: all N bytes of P appended at FD's offset; 0 or -errno, and
 *          *DONE the bytes written either way (EINTR retried inside);
 *   pread: up to N bytes at OFF; the count, 0 at the end, or -errno;
 *   close: FD is given up. */
struct cw_report_io {
	int (*write)(int fd, const char *p, size_t n, size_t *done);
	ssize_t (*pread)(int fd, char *p, size_t n, uint64_t off);
	void (*close)(int fd);
};

/* Bounded memory for denials (the report lists every one): keep the first
 * KEEP in memory and append the rest to FD, an empty file open for reading
 * and writing that nothing else can reach (O_TMPFILE, or unlinked before
 * the command started), as ready-made JSON, through IO; rendering splices
 * them into "denials" in order. The report owns FD from then on (closed
 * through IO). FD CW_REPORT_SPILL_DISCARD (IO may be NULL): the report
 * will never be rendered; count the denials past KEEP and drop them.
 * Without a call every denial stays in memory. Call before the first
 * denial; -EBUSY after. */
#define CW_REPORT_SPILL_DISCARD (-2)
#define CW_REPORT_KEEP_DENIALS 256
int cw_report_set_spill(cw_report *r, int fd, size_t keep, const struct cw_report_io *io);

/* Runtime denials recorded so far, in memory and spilled. */
uint64_t cw_report_denial_count(const cw_report *r);

/* An operation let through by an approval rather than the profile: by
 * --approve-risk, --approve, a person at the terminal or a program on the
 * approval socket. Rendered in "approvals", one entry per (capability,
 * scope, rule, how, once), with a count. */
struct cw_approval_record {
	cw_cap_kind cap;
	const char *scope;
	const char *rule;           /* the decision's rule, e.g. "approval:approve-risk" */
	const char *reason;         /* the decision's reason (carries --approve-risk's REASON) */
	const char *how;            /* "approve-risk" | "approve" | "tty" | "socket" */
	bool once;                  /* an "allow once" answer; false: for the whole run */
	int pid;                    /* first process it was granted to */
	double time;                /* first use, seconds since the run started */
};
int cw_report_add_approval(cw_report *r, const struct cw_approval_record *a);

/* "inheritedFds": a descriptor above 2 capwatch was started with, what it
 * was (KIND "file", "directory", "pipe", "socket", "device", "other"; PATH
 * as /proc names it; MODE "r", "w", "rw") and whether the command got it
 * (--keep-fd, allowed) or it was closed. */
int cw_report_add_inherited_fd(cw_report *r, int fd, const char *kind, const char *path,
				const char *mode, bool passed);

/* An operation a host-name scope decided ("pkgs.example.com:443" matched
 * 203.0.113.7:443 through capwatch's own lookup): rendered in
 * "hostMatches", one entry per (capability, scope, host, rule), counted. */
int cw_report_add_host_match(cw_report *r, cw_cap_kind cap, const char *scope, const char *host,
			     const char *rule, cw_verdict v);

/* Count one use of a capability (allowed or not) under SCOPE.
 * capabilitiesUsed lists (kind, scope, count, decision) sorted by kind then scope. */
int cw_report_count_capability(cw_report *r, cw_cap_kind cap, const char *scope, cw_verdict v);

/* kind: "created" | "modified" | "deleted" | "renamed" (PATH2 = new name for renamed). */
int cw_report_add_change(cw_report *r, const char *kind, const char *path, const char *path2);
/* N writes (or renames) the supervisor did not track for outcome.changes
 * (its bound on the list): "changes_truncated": true and
 * "changesOmitted": N in outcome, so the list is known to be partial. */
void cw_report_set_changes_omitted(cw_report *r, uint64_t n);

/* state: completed|denied|failed|cancelled; kind: contract section 4 kinds.
 * HAS_EXIT false: the command never started (no "exit" in the report).
 * DENIAL: the denial that explains it (copied), or NULL: the headline
 * (cw_report_headline) or, for policy_denied, the command's own exec. */
int cw_report_set_outcome(cw_report *r, const char *state, const char *kind,
			  bool has_exit, int code, int signal,
			  const struct cw_decision *denial);

void cw_report_set_stats(cw_report *r, uint64_t events, uint64_t notifications, double elapsed);

/* Counters of the preload channel (stats.annotations; omitted when never
 * set): messages received, accepted, rejected as malformed, dropped by the
 * rate limit, not attributable to a process of the tree, and attached to
 * an event. */
struct cw_report_annotations {
	uint64_t received, accepted, malformed, flooded, unattributed, attached;
};
void cw_report_set_annotations(cw_report *r, const struct cw_report_annotations *a);
/* Co-location of the supervisor with the command (supervisor/colocate.h):
 * descriptors installed co-located, answers sent as ADDFD then SEND to
 * bring a command back to capwatch's CPU, watchdog rescues, and slow
 * installs that turned co-location off for a while. Set only when it
 * was on. */
struct cw_report_colocation {
	uint64_t addfds, rejoins, rescues, backoffs;
};
void cw_report_set_colocation(cw_report *r, const struct cw_report_colocation *c);
/* The kernel back end's ingress guard (supervisor/ingress.h): datagrams
 * it dropped, sockets capwatch let receive from the network. Set only
 * when the guard was on. */
struct cw_report_ingress {
	uint64_t dropped, marked;
};
void cw_report_set_ingress(cw_report *r, const struct cw_report_ingress *g);

/* Render the report (pretty-printed JSON, trailing newline). Caller frees.
 * NULL on allocation failure. */
char *cw_report_render(const cw_report *r);

/* The same document written to FD as it is rendered: the long arrays
 * (denials, processes, capabilitiesUsed) one element at a time, so the
 * peak memory does not grow with them. 0 or -errno. */
int cw_report_write(const cw_report *r, int fd, const struct cw_report_io *io);

/* The smallest valid document, for when the full one cannot be written
 * (issue 14: the report always exists): the run as cw_report_set_run set
 * it, the outcome, the enforcement with REASON after its downgradeReason,
 * the required arrays empty (changes too), STATS given here. STATE NULL:
 * the outcome set by cw_report_set_outcome (exit and denial included);
 * otherwise STATE and KIND alone, and nothing of R is read but what was
 * set before the command started (set_run, set_enforcement), so another
 * thread may render it while the run is stuck. */
struct cw_report_minimal {
	const char *state, *kind;
	const char *reason;
	uint64_t events, notifications;
	double elapsed;
};
int cw_report_write_minimal(const cw_report *r, int fd, const struct cw_report_io *io,
			    const struct cw_report_minimal *min);
/* The same in memory (caller frees), NULL on allocation failure. */
char *cw_report_render_minimal(const cw_report *r, const struct cw_report_minimal *min);

#endif
