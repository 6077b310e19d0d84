/* The outcome, the report and the trace's last line (outcome.h). */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "supervisor/outcome.h"
#include "supervisor/state.h"
#include "supervisor/annot.h"
#include "supervisor/changes.h"
#include "supervisor/colocate.h"
#include "supervisor/ingress.h"
#include "supervisor/kernel.h"
#include "supervisor/landlock.h"
#include "supervisor/limits.h"
#include "supervisor/log.h"
#include "supervisor/ptrace.h"
#include "supervisor/record.h"
#include "supervisor/scratch.h"
#include "supervisor/util.h"

/* The file the report spills denials to (report.h): opened before the
 * command exists, and nameless (O_TMPFILE), so nothing of the tree can
 * open it; where O_TMPFILE is not supported, a private name unlinked at
 * once, still before the command starts. Only capwatch's descriptor
 * reaches it (O_CLOEXEC; /proc/PID/fd is closed to the tree because
 * capwatch is not dumpable). */
static int open_spill(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/.capwatch-spill-XXXXXX", dir);
	fd = mkostemp(p, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(p);
	return fd;
}

/* The report's I/O (policy/ makes no system calls): plain descriptors. */
static int io_write(int fd, const char *p, size_t n, size_t *done)
{
	return cw_record_write_all(fd, p, n, done);
}

static ssize_t io_pread(int fd, char *p, size_t n, uint64_t off)
{
	for (;;) {
		ssize_t k = pread(fd, p, n, (off_t)off);
		if (k >= 0 || errno != EINTR)
			return k < 0 ? -errno : k;
	}
}

static void io_close(int fd)
{
	close(fd);
}

static const struct cw_report_io report_io = { io_write, io_pread, io_close };

/* Bound the memory the report's denials take: every denial past the first
 * CW_REPORT_KEEP_DENIALS goes to the spill file (or, when no report will
 * be written, is only counted). Without a spill file they stay in memory,
 * as before: slower to grow out of bounds than to lose a denial. */
void cw_outcome_setup_spill(struct cw_run *run, const char *dir)
{
	if (run->report_fd < 0) {
		cw_report_set_spill(run->report, CW_REPORT_SPILL_DISCARD, CW_REPORT_KEEP_DENIALS, NULL);
		return;
	}
	int fd = open_spill(dir);
	if (fd < 0) {
		cw_warn("no spill file for the report in %s (%s): denials are kept in memory",
			dir, strerror(-fd));
		return;
	}
	if (cw_report_set_spill(run->report, fd, CW_REPORT_KEEP_DENIALS, &report_io) < 0) {
		close(fd);
		cw_warn("the report's spill file could not be set up: denials are kept in memory");
	}
}

/* Put back the report file to offset START after a failed write that
 * left its end at the current offset, for the minimal report: truncated
 * when the file allows it, else (an append-only inode refuses ftruncate
 * but not a write at an offset of a descriptor opened before it became
 * append-only) the minimal report is written over the start and the rest
 * of the partial one blanked with spaces, JSON whitespace. Returns the
 * bytes to blank after the minimal report's, or -errno when there is no
 * going back (a pipe, an O_APPEND descriptor on an append-only file). */
static off_t rewind_report(int fd, off_t start)
{
	off_t end = lseek(fd, 0, SEEK_CUR);
	if (start < 0 || end < start)
		return -ESPIPE;
	if (ftruncate(fd, start) == 0)
		return lseek(fd, start, SEEK_SET) == start ? 0 : -errno;
	int e = -errno;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_APPEND) || lseek(fd, start, SEEK_SET) != start)
		return e;
	return end - start;
}

/* The report always exists (issue 14): when the full document cannot be
 * written (EFBIG under a hard RLIMIT_FSIZE, ENOSPC, ...), what was
 * written of it is taken back and a minimal valid report put in its
 * place, naming the reason. Returns true when the descriptor holds a
 * valid report; false after a one-line error saying it does not. */
static bool put_report(struct cw_run *run)
{
	int fd = run->report_fd;
	off_t start = lseek(fd, 0, SEEK_CUR);
	int e = cw_report_write(run->report, fd, &report_io);
	if (e == 0)
		return true;
	char reason[200];
	snprintf(reason, sizeof(reason), "the full report could not be written (%s): this is the "
		 "minimal report, the trace has the run", strerror(-e));
	struct cw_report_minimal m = { .reason = reason, .events = run->events,
				       .notifications = run->notifications,
				       .elapsed = cw_record_time(run) };
	_cleanup_free_ char *text = cw_report_render_minimal(run->report, &m);
	off_t blank = rewind_report(fd, start);
	int e2 = !text ? -ENOMEM : blank < 0 ? (int)blank : 0;
	size_t len = text ? strlen(text) : 0, done;
	if (e2 == 0)
		e2 = cw_record_write_all(fd, text, len, &done);
	if (e2 == 0 && blank > (off_t)len) {
		/* spaces up to the old end, then one newline */
		char sp[4096];
		memset(sp, ' ', sizeof(sp));
		for (off_t left = blank - (off_t)len; left > 0 && e2 == 0;) {
			size_t k = left > (off_t)sizeof(sp) ? sizeof(sp) : (size_t)left;
			if (left == (off_t)k)
				sp[k - 1] = '\n';
			e2 = cw_record_write_all(fd, sp, k, &done);
			left -= (off_t)k;
		}
	}
	if (e2 == 0) {
		cw_err("writing the report failed (%s): a minimal report was written instead", strerror(-e));
		return true;
	}
	cw_err("writing the report failed (%s) and no minimal report could replace it (%s): "
	       "the report is incomplete and not valid JSON", strerror(-e), strerror(-e2));
	return false;
}

/* The back end as the report and the trace name it. */
const char *cw_outcome_backend_name(const struct cw_run *run)
{
	return run->backend && strcmp(run->backend, "kernel") == 0 ? "seccomp-unotify+cgroup+fanotify"
								     : "seccomp-unotify+ptrace";
}

void cw_outcome_set_enforcement(struct cw_run *run)
{
	if (!run->report)
		return;
	const char *layers[12];
	size_t nl = 0;
	if (!run->no_listener) {
		layers[nl++] = "seccomp-bpf";
		layers[nl++] = "seccomp-unotify";
	}
	if (run->tracker_ops == &cw_tracker_ptrace)
		layers[nl++] = "ptrace";
	if (run->tracker_ops == &cw_tracker_kernel)
		layers[nl++] = cw_kernel_layers(run);
	if (run->child > 0 && run->privs.layer[0])
		layers[nl++] = run->privs.layer;
	if (run->child > 0 && run->privs.layer_ns[0])
		layers[nl++] = run->privs.layer_ns;
	if (run->child > 0 && cw_landlock_layer(run))
		layers[nl++] = cw_landlock_layer(run);
	/* Without a pids cgroup the tracker's count keeps the process limit:
	 * ptrace's (at the fork stop) or the connector's (at the fork event,
	 * processes only, after the child may have run briefly). */
	const char *lim = cw_limits_layer(run);
	if (run->child > 0 && lim && strcmp(lim, CW_LIMITS_TRACKER_LAYER) != 0)
		layers[nl++] = lim;
	else if (run->child > 0 && lim && run->tracker_ops == &cw_tracker_ptrace)
		layers[nl++] = lim;
	else if (run->child > 0 && lim && run->tracker_ops == &cw_tracker_kernel)
		layers[nl++] = "connector-task-count";
	layers[nl] = NULL;
	struct cw_enforcement enf = {
		.backend = cw_outcome_backend_name(run),
		.backend_reason = run->backend_reason[0] ? run->backend_reason : NULL,
		.level = run->observe ? "observe" : "enforce",
		.degraded = run->degraded,
		.downgrade_reason = run->degraded ? run->downgrade_reason : "",
		.layers = layers,
	};
	cw_report_set_enforcement(run->report, &enf);
}

bool cw_outcome_write_report(struct cw_run *run, const struct cw_outcome *o)
{
	/* Every event so far is in the trace before the report is tried. */
	cw_record_trace_flush(run);
	if (!run->report)
		return run->report_fd < 0;
	cw_outcome_set_enforcement(run);
	cw_report_set_outcome(run->report, o->state, o->kind, o->has_exit, o->code, o->signal, o->denial);
	cw_annot_report(run);
	struct cw_colocate_stats cs;
	if (cw_colocate_get_stats(run, &cs)) {
		struct cw_report_colocation rc = {
			.addfds = cs.addfds, .rejoins = cs.rejoins, .rescues = cs.rescues, .backoffs = cs.backoffs,
		};
		cw_report_set_colocation(run->report, &rc);
	}
	struct cw_ingress_counts ic;
	if (cw_ingress_counts(run->ingress, &ic)) {
		struct cw_report_ingress ri = { .dropped = ic.dropped, .marked = ic.marked };
		cw_report_set_ingress(run->report, &ri);
	}
	cw_outcome_add_processes(run);
	cw_changes_report(run);
	cw_report_set_stats(run->report, run->events, run->notifications, cw_record_time(run));
	/* Written as it is rendered, element by element, with the spilled
	 * denials read back from their file: the peak does not grow with the
	 * run. Nothing is rendered when there is nowhere to write it. */
	return run->report_fd < 0 || put_report(run);
}

void cw_outcome_finish_trace(struct cw_run *run, const struct cw_outcome *o)
{
	if (run->trace_fd < 0)
		return;
	cw_trace_summary_write(&run->tj, ++run->seq, cw_record_time(run), run->events, run->denials,
			       o->state, o->kind, cw_record_time(run));
	cw_record_trace_emit(run);
	cw_record_trace_flush(run);
}

int cw_outcome_emergency_report(struct cw_run *run, const char *state, const char *kind, const char *reason)
{
	int e = 0;
	if (run->report && run->report_fd >= 0) {
		/* The counters are read while their threads are stuck (or
		 * gone on): informative only. */
		struct cw_report_minimal m = { .state = state, .kind = kind, .reason = reason,
					       .events = run->events, .notifications = run->notifications,
					       .elapsed = cw_record_time(run) };
		_cleanup_free_ char *text = cw_report_render_minimal(run->report, &m);
		size_t done;
		e = text ? cw_record_write_all(run->report_fd, text, strlen(text), &done) : -ENOMEM;
	}
	cw_scratch_remove(run);
	return e;
}

/* The kind of a command that was never executed, by capwatch's exit
 * status for it (contract section 1): 127, not found, is
 * executable_not_found; 126, there but not executable (mode without x, a
 * directory, a format the kernel refuses), has no kind of its own in the
 * contract's list and is application_failure without "exit": the fault is
 * in the command as given (change_command), not in the policy
 * (policy_denied) or in capwatch (sandbox_setup_failure), and no "exit"
 * tells it from a command that ran and failed. man capwatch, EXIT STATUS. */
const char *cw_outcome_unstarted_kind(int status)
{
	return status == CW_EXIT_NOT_FOUND ? "executable_not_found" : "application_failure";
}

void cw_outcome_add_processes(struct cw_run *run)
{
	if (run->procs_reported || !run->report)
		return;
	run->procs_reported = true;
	/* what the preload said of each process (its "preload" field)
	 * comes with the channel's last messages */
	cw_annot_report(run);
	cw_tracker_report(run);
}

void cw_outcome_compute(struct cw_run *run, struct cw_outcome *o)
{
	int st = run->child_status;
	memset(o, 0, sizeof(*o));
	if (run->start_denied && !run->child_execed) {
		o->state = "denied";
		o->kind = "policy_denied";
		o->denial = &run->first_denial;
		o->status = CW_EXIT_CANNOT_EXEC;
		return;
	}
	if (!run->child_execed && WIFEXITED(st) &&
	    (WEXITSTATUS(st) == CW_EXIT_CANNOT_EXEC || WEXITSTATUS(st) == CW_EXIT_NOT_FOUND)) {
		/* execve failed in the child although the command looked
		 * runnable: 127 when something was not there (the file
		 * vanished, a "#!" interpreter missing), 126 when it is there
		 * but cannot run (EACCES from the kernel, e.g. an interpreter
		 * without x; ENOEXEC past the /bin/sh fallback).
		 * cw_outcome_unstarted_kind() says which kind each is. */
		o->state = "failed";
		o->status = WEXITSTATUS(st);
		o->kind = cw_outcome_unstarted_kind(o->status);
		/* The child exits without a word; say here what is said
		 * when capwatch's own PATH search (run.c) sees the problem first. */
		cw_err("%s: %s", run->opts->command[0], o->status == CW_EXIT_NOT_FOUND
		       ? "not found when executed (the file, or its \"#!\" interpreter)"
		       : "cannot execute (the file, or its \"#!\" interpreter)");
		return;
	}
	o->has_exit = true;
	/* Which denial explains the outcome, if any does: one whose process
	 * went on and succeeded was tolerated (issue 17 item 11). Needs
	 * every process's end, so the processes go into the report now. */
	cw_outcome_add_processes(run);
	if (run->report)
		cw_report_headline(run->report, &run->headline, &run->hl);
	if (WIFSIGNALED(st)) {
		o->signal = WTERMSIG(st);
		o->status = 128 + o->signal;
	} else {
		o->code = WEXITSTATUS(st);
		o->status = o->code;
	}
	if (run->timed_out) {
		o->state = "cancelled";
		o->kind = "timed_out";
		o->status = CW_EXIT_TIMEOUT;
	} else if (run->hl.found) {
		o->state = "denied";
		o->kind = "enforcement_denied";
		o->denial = &run->headline;
	} else if (run->cancelled) {
		o->state = "cancelled";
		o->kind = "cancelled";
	} else if (run->degraded) {
		o->state = "completed";
		o->kind = "enforcement_degraded";
	} else if (o->status == 0) {
		o->state = "completed";
		o->kind = "success";
	} else {
		o->state = "failed";
		o->kind = "application_failure";
	}
}

