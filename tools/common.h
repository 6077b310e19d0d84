#ifndef CAPWATCH_TOOLS_COMMON_H
#define CAPWATCH_TOOLS_COMMON_H
/* Shared plumbing of the trace tools (replay, explain, learn, diff, export,
 * profiles): one streaming trace reader with one policy for bad input, an
 * aggregate model of a run (process tree, capabilities, denials), profile
 * loading, small containers, and safe terminal output.
 *
 * Exit statuses shared by every tool (documented in each --help):
 *   0   success (replay: nothing would change; diff: nothing new)
 *   1   replay: some decision would change; diff: something new appeared
 *   2   bad input: missing/unreadable file, not a trace, newer schema
 *   125 usage error or unreadable/invalid profile
 *
 * Bad input policy of the reader (cw_tr_read):
 *   - missing or unreadable file, empty file, a first line that is not a
 *     trace header, or a schema newer than capwatch.trace/v1: one-line error,
 *     the tool stops with exit 2;
 *   - a corrupt line in the middle: "capwatch: TRACE:LINE: ..." on stderr,
 *     the line is skipped and reading goes on (results are marked partial);
 *   - a last line cut short (no newline, not valid JSON: a killed run):
 *     a warning naming the line, results are partial;
 *   - no summary line: a warning that the run did not finish cleanly. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "policy/cap.h"
#include "policy/profile.h"

typedef struct cJSON cJSON;

#define CW_TOOL_EXIT_OK 0
#define CW_TOOL_EXIT_CHANGED 1
#define CW_TOOL_EXIT_BADINPUT 2
#define CW_TOOL_EXIT_USAGE 125

/* ---- messages: one write per message, prefixed "capwatch: " ---- */
void cw_tool_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write S to F with control characters (C0, DEL, C1) shown as \xNN, so a
 * path from a hostile trace cannot drive the terminal. NULL prints "-". */
void cw_tool_put(FILE *f, const char *s);
/* Same, at most MAX bytes of S (then "..."). */
void cw_tool_put_max(FILE *f, const char *s, size_t max);

/* Terminal styles: empty strings unless stdout is a tty and NO_COLOR is unset. */
struct cw_style {
	const char *bold, *dim, *red, *yellow, *green, *cyan, *reset;
};
void cw_style_init(struct cw_style *st, FILE *f);

/* ---- a string-keyed set/map with counts, insertion ordered ---- */
struct cw_sset_ent {
	char *key;
	unsigned long count;
	void *data;     /* owned by the caller; freed by cw_sset_free's FREEDATA */
	unsigned long aux;
};
struct cw_sset {
	struct cw_sset_ent *ents;
	size_t n, cap;
	size_t *idx;    /* open addressing, entry index + 1, 0 = empty */
	size_t idxcap;
};
/* Find KEY; with CREATE, add it (count 0). NULL when absent or on ENOMEM. */
struct cw_sset_ent *cw_sset_get(struct cw_sset *s, const char *key, bool create);
/* Add KEY and count one use. Returns the entry or NULL on ENOMEM. */
struct cw_sset_ent *cw_sset_bump(struct cw_sset *s, const char *key);
void cw_sset_sort(struct cw_sset *s); /* by key; keeps lookups working */
void cw_sset_free(struct cw_sset *s, void (*freedata)(void *));

/* ---- JSON field helpers (NULL/defaults when absent or of another type) ---- */
const char *cw_j_str(const cJSON *o, const char *key);
double cw_j_num(const cJSON *o, const char *key, double def);
bool cw_j_bool(const cJSON *o, const char *key, bool def);
/* A number that fits the type (DEF when absent, not a number or out of
 * range: a hostile trace must not cause an undefined conversion). */
int cw_j_int(const cJSON *o, const char *key, int def);
uint64_t cw_j_u64(const cJSON *o, const char *key, uint64_t def);
int cw_num_int(double v, int def);
/* The exact bytes of a string field: decodes "<key>_hex" when present.
 * Returns a malloc'd NUL-terminated copy (NUL bytes in the original end it
 * early), or NULL when absent. */
char *cw_j_bytes(const cJSON *o, const char *key);

/* ---- the streaming reader ---- */
struct cw_tr_status {
	const char *file;
	unsigned long lines;      /* lines read */
	unsigned long events;     /* non-header events delivered */
	unsigned long bad;        /* corrupt lines skipped */
	bool truncated;           /* last line cut short */
	bool summary;             /* a summary line was seen */
	bool partial;             /* any of the above: results are partial */
};

/* Called for the header (once, first) and for every valid event line.
 * EV is freed after the call returns. A non-zero return stops reading and
 * is returned by cw_tr_read. */
typedef int (*cw_tr_fn)(void *opaque, const cJSON *ev, unsigned long lineno);

/* Read the trace at PATH ("-" = stdin). Prints the bad-input messages
 * described above. Returns 0, a callback's non-zero value, or -errno
 * (-ENOENT, -EINVAL: not a trace, -EPROTONOSUPPORT: newer schema) after
 * printing one line. QUIET_TAIL suppresses the "no summary" warning. */
int cw_tr_read(const char *path, cw_tr_fn on_header, cw_tr_fn on_event, void *opaque,
	       struct cw_tr_status *st);
/* The same over an open stream (used by the fuzz target). */
int cw_tr_read_stream(FILE *f, const char *name, cw_tr_fn on_header, cw_tr_fn on_event,
		      void *opaque, struct cw_tr_status *st, bool quiet);

/* ---- the aggregate model of a run ---- */
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
/* Seconds since the start of the run. */
double cw_tool_run_rel(const struct cw_tool_run *r, double t);

/* ---- profiles ---- */
/* Load a built-in profile by name or a profile file with the supervisor's
 * loader (supervisor/profile_load.h; file-based
 * extends resolved relative to the including file). On error prints one
 * line ("capwatch: FILE:LINE: ...") and returns -errno. */
int cw_tool_profile_load(const char *name_or_file, cw_profile **out);

/* Parse profile TEXT (e.g. a generated one); file-based extends are
 * resolved relative to the current directory. ERR gets one line. */
int cw_tool_profile_parse_text(const char *text, size_t len, const char *origin, cw_profile **out,
			       char *err, size_t errsz);

/* ---- misc ---- */
/* S with every byte of an invalid UTF-8 sequence replaced by REPL
 * (malloc'd). Used where bytes must become JSON text that still matches:
 * a '?' glob matches any one byte. */
char *cw_tool_utf8_fix(const char *s, char repl);
/* Shell-ish quoting of an argv for display (malloc'd; control chars as \xNN). */
char *cw_tool_argv_join(char *const *argv, size_t max);
/* Directory part of PATH (malloc'd): "/a/b/c" -> "/a/b", "/a" -> "/". */
char *cw_tool_dirname(const char *path);
/* Is --help / -h among ARGS? */
bool cw_tool_wants_help(int argc, char **argv);

#endif
