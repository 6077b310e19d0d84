#ifndef CAPWATCH_TRACE_H
#define CAPWATCH_TRACE_H
/* The JSONL trace, schema "capwatch.trace/v1" (contract section 5,
 * schemas/trace.schema.json). Serializers write one line (no trailing
 * newline) into a cw_jbuf; the reader parses lines back with cJSON.
 *
 * Line shapes, distinguished by "type":
 *   header  {"type":"header","schema":"capwatch.trace/v1","version":1,
 *            "profile":..,"roots":[..],"command":{"name":..,"args":[..]},
 *            "kernel":"6.18.44","start":"2026-11-30T00:31:35Z","scratch":..,
 *            "home":..,"protected":[..],"enforcement":{..},"cwd":..}
 *   op      {"type":"op","seq":N,"time":S,"pid":..,"tid":..,"ppid":..,
 *            "source":"seccomp","syscall":"openat","op":"open_write",
 *            "args":{"path":..,"path2":..,"dirfd":..,"flags":..,"addr":..,"argv":[..]},
 *            "resolved":"/abs/path"|"203.0.113.7:80","resolved2":..,
 *            "host":..,"target_pid":..,"target_in_tree":..,"env_names":..,
 *            "capability":"workspace_write"|null,"secret":false,"flagged":false,
 *            "scope":..,"decision":"allow|deny|ask","profile_decision":..,"rule":..,
 *            "reason":..,"source_of_decision":"configured_policy",
 *            "next_action":"none|request_approval|...",
 *            "enforced":true,"errno":"EACCES"|N|null,"verified":false,
 *            "site":..,"backtrace":[..],"annotation_source":"preload"}
 *           args members appear only when given; "resolved" is the address
 *           for connect/send/bind/listen and the normalized path otherwise;
 *           target_pid/target_in_tree only for signal and proc_access; an
 *           errno without a name is written as its number.
 *   spawn   {"type":"spawn","seq","time","pid","ppid","tid","via":"fork|vfork|clone"}
 *   exec    {"type":"exec","seq","time","pid","ppid","exe":..,"argv":[..],"preload":"present|absent|unknown"}
 *   exit    {"type":"exit","seq","time","pid","code":N|null,"signal":"SIGKILL"|null}
 *   note    {"type":"note","seq","time","pid","level":"warning","message":..}  (degradations, dropped preload data)
 *   summary {"type":"summary","seq","time","events":N,"denials":N,"outcome":{state,kind},"elapsed":S}
 * Strings from the target go through cw_jbuf_kv_bytes (see jbuf.h).
 * argv/args arrays hold at most 128 KiB of bytes so that every line stays
 * far below the reader's 1 MiB limit; when cut, "argv_truncated": true
 * (or "args_truncated") follows the array.
 * "seq" starts at 1 and increases by 1 over every non-header line. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "jbuf.h"
#include "policy.h"

#define CW_TRACE_SCHEMA "capwatch.trace/v1"

struct cw_trace_header {
	const char *profile;
	const char *const *roots; size_t nroots;
	const char *command;            /* argv[0] as given */
	const char *const *args;        /* argv[1..], NULL-terminated */
	const char *kernel;             /* uname release */
	const char *start;              /* RFC 3339 UTC */
	const char *scratch, *home;
	const char *const *protected_files; size_t nprotected;
	const char *backend, *level;    /* "seccomp-unotify+ptrace", "enforce|observe" */
	const char *cwd;                /* the command's working directory; NULL: not written */
};
void cw_trace_header_write(struct cw_jbuf *j, const struct cw_trace_header *h);

struct cw_trace_op {
	uint64_t seq; double time;
	int pid, tid, ppid;
	const char *source;             /* "seccomp", "ptrace", "preload" */
	const char *via;                /* NULL, or "fanotify": decided at the kernel
					   back end's permission event, not a notification */
	const struct cw_op *op;         /* syscall, op kind, resolved paths/address */
	/* raw arguments as the target gave them (NULL/-1 when not applicable) */
	const char *raw_path; size_t raw_path_len;
	const char *raw_path2; size_t raw_path2_len;
	int dirfd; bool has_dirfd;
	long long flags; bool has_flags;
	const char *const *argv;        /* exec */
	const struct cw_decision *d;
	bool enforced;                  /* the decision took effect (false under --observe) */
	int err;                        /* errno returned to the target, 0 = success/unknown */
	bool verified;                  /* false: allowed by CONTINUE on memory the target can rewrite */
	/* Advisory context from the preload (supervisor/annot.c), never an
	 * input to the decision: written as "site" (the calling frame),
	 * "backtrace" (frames, innermost first) and "annotation_source"
	 * ("preload") when set. NULL: not written. */
	const char *site;
	const char *const *backtrace;   /* NULL-terminated */
	const char *annotation_source;
};
void cw_trace_op_write(struct cw_jbuf *j, const struct cw_trace_op *e);

void cw_trace_spawn_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int ppid, int tid, const char *via);
/* ARGV_CUT: ARGV is already less than the process passed (the tracker's
 * bounds, ptrace.h): "argv_truncated": true, as for a cut made here. */
void cw_trace_exec_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int ppid,
			 const char *exe, const char *const *argv, bool argv_cut, const char *preload);
/* SIGNAL 0 = exited with CODE; otherwise killed by SIGNAL (code ignored). */
void cw_trace_exit_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, int code, int signal);
void cw_trace_note_write(struct cw_jbuf *j, uint64_t seq, double t, int pid, const char *level, const char *message);
void cw_trace_summary_write(struct cw_jbuf *j, uint64_t seq, double t, uint64_t events, uint64_t denials,
			    const char *state, const char *kind, double elapsed);

/* errno number -> "EACCES" (NULL for 0). */
const char *cw_errno_name(int err);
/* signal number -> "SIGKILL" (NULL for 0). */
const char *cw_signal_name(int sig);

/* ---- reading ---- */
typedef struct cJSON cJSON;

/* Parse one trace line. LINENO is for messages. Returns the event object
 * (caller frees with cJSON_Delete) or NULL with a one-line message in ERR:
 * "line 12: not valid JSON", "line 1: schema \"capwatch.trace/v2\" is newer
 * than this capwatch understands", "line 5: missing \"type\"". */
cJSON *cw_trace_parse_line(const char *line, size_t len, unsigned long lineno, char *err, size_t errsz);

/* Rebuild the operation of an "op" event for re-deciding it. Pointers in OP
 * point into EV and into STORAGE (which must outlive OP). Returns 0, or
 * -EINVAL with a message when a field is missing or malformed. */
struct cw_op_storage {
	struct sockaddr_storage addr;
	char *path, *path2; /* decoded from *_hex when present; freed by cw_op_storage_free */
};
int cw_trace_event_to_op(const cJSON *ev, struct cw_op *op, struct cw_op_storage *st, char *err, size_t errsz);
void cw_op_storage_free(struct cw_op_storage *st);

/* Rebuild the run context recorded in a header line (roots, scratch, home,
 * protected files). Strings point into HDR. Arrays are malloc'd into CTX and
 * freed by cw_trace_context_free. */
int cw_trace_header_to_context(const cJSON *hdr, struct cw_context *ctx, char *err, size_t errsz);
void cw_trace_context_free(struct cw_context *ctx);

#endif
