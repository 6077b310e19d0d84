#ifndef CAPWATCH_TOOLS_RUN_MODEL_H
#define CAPWATCH_TOOLS_RUN_MODEL_H
/* The trace tools' aggregate model of one run (process tree, capabilities,
 * denials), loaded from a trace or a report. Not the supervisor's struct
 * cw_run: this one is built after the fact from what the run wrote. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "policy/cap.h"
#include "tools/sset.h"
#include "tools/trace_reader.h"

typedef struct cJSON cJSON;

struct cw_tproc {
	int pid, ppid;
	char *exe;              /* last program executed, or NULL */
	char **argv;            /* NULL-terminated, or NULL */
	double start, end;
	bool has_start, has_end, exited;
	int code;
	char *signal;           /* "SIGKILL", or NULL */
	unsigned long nexec, nops, ndenied;
	unsigned long uses[CW_CAP__COUNT];
	struct cw_sset *scopes; /* CW_CAP__COUNT sets of distinct scopes, lazily */
	size_t parent;          /* index into procs, or SIZE_MAX */
	size_t *kids; size_t nkids, kidscap;
};

struct cw_tdenial {
	uint64_t seq;
	double time;
	int pid;
	char *syscall, *cap, *scope, *rule, *host, *site, *decision, *reason;
	char *scope_bytes;      /* the exact bytes of the scope ("scope_hex"), or NULL */
	char *program;          /* report: the denying program (exact bytes), or NULL */
	char *next_action;      /* "change_command", ...; NULL when not recorded */
	char *source;           /* "configured_policy", "approval", ...; or NULL */
	bool enforced;
	int tolerated;          /* report: its "tolerated"; -1: not recorded (a trace) */
	size_t proc;            /* index into procs of its process, or SIZE_MAX */
};

struct cw_tool_run {
	const char *file;
	bool from_report;
	cJSON *header;          /* trace header (owned), or NULL */
	cJSON *report;          /* the report document when from_report (owned) */
	struct cw_tproc *procs; size_t nprocs, proccap;
	struct cw_sset pidmap;  /* "pid" -> aux = index */
	struct cw_sset programs;/* exe of every exec event -> count */
	struct cw_sset scopes[CW_CAP__COUNT]; /* distinct scopes per kind, data = host */
	unsigned long uses[CW_CAP__COUNT], kind_denials[CW_CAP__COUNT];
	struct cw_tdenial *denials; size_t ndenials, dencap;
	/* allowed but flagged (observe: secret reads, protected writes) */
	struct cw_tdenial *flagged; size_t nflagged, flagcap;
	unsigned long nops, nexec, nnotes, nevents;
	double tmin, tmax; bool has_time;
	cJSON *summary;         /* the summary line (owned), or NULL */
	struct cw_tr_status st;
	struct cw_sset notes;   /* distinct note messages */
};

void cw_tool_run_init(struct cw_tool_run *r, const char *file);
void cw_tool_run_free(struct cw_tool_run *r);
/* Feed one event (header events are ignored here: set r->header yourself). */
int cw_tool_run_add(struct cw_tool_run *r, const cJSON *ev);
/* Load a whole trace, or with ALLOW_REPORT also a capwatch.report/v1 file.
 * Returns 0 or -errno (message printed). */
int cw_tool_run_load(struct cw_tool_run *r, bool allow_report);
/* The process record for PID (the latest one when the pid was reused);
 * created when absent. NULL on ENOMEM. */
struct cw_tproc *cw_tool_run_proc(struct cw_tool_run *r, int pid);
/* The latest record of PID, or NULL (never creates one). */
struct cw_tproc *cw_tool_run_find(struct cw_tool_run *r, int pid);
/* Link children to parents (call once after loading). */
void cw_tool_run_link(struct cw_tool_run *r);
/* Short program name of a process: basename of exe, else argv[0], else "?" */
const char *cw_tproc_name(const struct cw_tproc *p);
/* The denial that explains the run's outcome, as the supervisor chooses
 * it (policy/report.h, cw_report_headline): of the enforced denials not
 * tolerated (a denial is, when its process exited 0), one whose next
 * action is request_approval if any, else the latest. Its index into
 * denials, or -1 when there is none; *TOLERATED (may be NULL): how many
 * enforced denials were tolerated. Call after cw_tool_run_link. */
long cw_tool_run_headline(const struct cw_tool_run *r, size_t *tolerated);
/* Whether D was tolerated: as its report says, or (a trace) its process
 * exited 0. */
bool cw_tool_denial_tolerated(const struct cw_tool_run *r, const struct cw_tdenial *d);
/* Seconds since the start of the run. */
double cw_tool_run_rel(const struct cw_tool_run *r, double t);

#endif
