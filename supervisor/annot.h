#ifndef CAPWATCH_ANNOT_H
#define CAPWATCH_ANNOT_H
/* The receiving side of the preload channel (preload/proto.h): setup,
 * validation, rate limiting, attribution by the kernel's SCM_CREDENTIALS
 * pid, a bounded store of annotations, and the lookups the trace and report
 * writers use to add "host", "site" and "backtrace" to events the
 * supervisor observed itself.
 *
 * Annotations are untrusted: nothing in this module is ever an input to
 * cw_policy_decide(). cw_annot_attach() runs after the decision was taken
 * and answered, and only adds text to the record. */
#include <stdbool.h>
#include <sys/types.h>

struct cw_run;
struct cw_event;

/* Annotation fields of one recorded event. Pointers are valid until the
 * next cw_annot_* call. */
struct cw_annot_view {
	const char *host;              /* NULL: none known */
	const char *site;              /* the first frame outside the preload */
	const char *const *backtrace;  /* NULL-terminated, innermost first; NULL: none */
	const char *source;            /* "preload" when any field above is set */
};

/* Before the launch: create the channel, find the library and add
 * LD_PRELOAD and the channel variable to run->envp; the module's state is
 * run->annot (struct cw_annot, annot_impl.h). Never fatal: when the
 * library is missing or disabled (CAPWATCH_PRELOAD=none) the run goes on
 * without annotations (run->annot stays NULL) and every process is
 * recorded "preload": "absent". Returns 0 or -ENOMEM. */
int cw_annot_setup(struct cw_run *run);

/* In the launched child after close_range and before exec: put the
 * channel at CW_ANNOT_FD, inheritable. Async-signal-safe; failures leave
 * the command without a channel (the preload then stays silent). */
void cw_annot_child(const struct cw_run *run);

/* The supervisor's end of the channel for the event loop, -1 when off.
 * The first call after the launch also closes capwatch's copy of the
 * child's end. */
int cw_annot_fd(struct cw_run *run);

/* Read what is queued (bounded per call), validate, attribute, store. */
void cw_annot_drain(struct cw_run *run);

/* Right after EV was decided, while TID is still blocked in the call: for
 * an operation that is not going ahead (denied and enforced), look its
 * annotations up and resolve the call site's symbols now (after the
 * answer the process may be gone, and its maps with it). The result is
 * kept for the cw_annot_attach() of the same EV. Nothing is done for an
 * allowed operation, whose answer must not wait. Never changes EV. */
void cw_annot_prepare(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid, const struct cw_event *ev);

/* Look up the annotations for EV, made by TID of TGID (PPID: its parent,
 * for spawns whose exec happens in a child). Called after EV was decided
 * and answered. Sets EV->op.host when a host is known and the op has
 * none. */
void cw_annot_attach(struct cw_run *run, pid_t tgid, pid_t tid, pid_t ppid,
		     struct cw_event *ev, struct cw_annot_view *out);

/* At the exec stop of PID: "absent" for a static binary, for an
 * environment without our LD_PRELOAD, or when the channel is off;
 * "unknown" otherwise, until the new image says hello ("present"). */
const char *cw_annot_exec(struct cw_run *run, pid_t pid);

/* Put the channel's counters into the report (stats.annotations). */
void cw_annot_report(struct cw_run *run);

/* Counters of the channel (report stats.annotations). */
struct cw_annot_stats {
	unsigned long long received, accepted, malformed, flooded, unattributed, attached;
};
void cw_annot_get_stats(const struct cw_run *run, struct cw_annot_stats *st);
/* Whether the channel was set up (the preload was offered to the command). */
bool cw_annot_enabled(const struct cw_run *run);

/* Close the channel and free run->annot. */
void cw_annot_free(struct cw_run *run);

#endif
