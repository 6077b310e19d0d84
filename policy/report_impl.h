#ifndef CAPWATCH_REPORT_IMPL_H
#define CAPWATCH_REPORT_IMPL_H
/* Inside the report module (report.c: the model and its setters,
 * report_render.c: JSON rendering and output, report_spill.c: denials past
 * the first KEEP written to a file): the layout of a report. Not for the
 * supervisor. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"
#include "hmap.h"

struct strvec {
	char **v;
	size_t n;
};

struct proc_rec {
	int pid, ppid;
	char *exe, *preload;
	struct strvec argv;
	bool has_argv, argv_truncated;
	double start, end;
	bool exited;
	int code, signal;
};

struct denial_rec {
	int pid;
	char *program, *syscall, *scope, *rule, *reason, *host;
	char *site, *annotation_source; /* advisory, from the preload */
	struct strvec backtrace;
	cw_cap_kind cap;
	cw_verdict verdict;
	cw_source source;
	cw_next_action next_action;
	double time;
	bool enforced;
	uint64_t proc;    /* the process's number (report.h), 0: none */
};

/* The headline candidate of one process number (cw_report_headline):
 * its enforced denials counted, and the one that would head the report
 * if the process does not end well (copied: the decision itself is
 * 64 KiB). */
struct head_cand {
	uint64_t count;
	int pid, rank;
	double time;
	char *program, *syscall, *scope, *rule, *reason;
	cw_cap_kind cap;
	cw_verdict verdict, profile_verdict;
	cw_source source;
	cw_next_action next_action;
	int err;
};

struct approval_rec {
	char *scope, *rule, *reason, *how;
	cw_cap_kind cap;
	bool once;
	int pid;
	double time;
	uint64_t count;
};

struct host_rec {
	char *scope, *host, *rule;
	cw_cap_kind cap;
	cw_verdict verdict;
	uint64_t count;
};

struct fd_rec {
	int fd;
	char *kind, *path, *mode;
	bool passed;
};

struct change_rec {
	char *kind, *path, *path2;
};

/* capabilitiesUsed: a seeded map (hmap.h) from the key
 * [cap][verdict][scope bytes]['\0'] to the count; cap_ent is the view of
 * one entry the renderer sorts. */
#define CAP_KEY_PREFIX 2
struct cap_ent {
	const char *scope; /* into the map's copy of the key, NUL-terminated */
	size_t scopelen;
	uint64_t count;
	cw_cap_kind cap;
	cw_verdict verdict;
};

#define PROC_ENDED_OK 1    /* exited with status 0 */
#define PROC_ENDED_BAD 2   /* anything else: an error status, a signal, still running */

/* A spilled denial's fragment starts with its process number as this many
 * hex digits (how rendering tells whether it was tolerated). */
#define SPILL_HDR 16

struct cw_report {
	char *profile, *command, *cwd;
	struct strvec args, roots;

	bool has_enf;
	char *backend, *backend_reason, *level, *downgrade;
	bool degraded;
	struct strvec layers;

	struct proc_rec *procs;
	size_t nprocs, aprocs;
	struct denial_rec *dens;
	size_t ndens, adens;
	/* Denials past the first KEEP go to an unlinked file as ready-made
	 * JSON fragments, each ended by a NUL (which JSON text never holds),
	 * written through SBUF. They are rendered after dens[0..spill_at)
	 * and before dens[spill_at..] (records kept in memory again after a
	 * spill write failed). */
	int spill_fd;            /* -1: none; CW_REPORT_SPILL_DISCARD: drop */
	const struct cw_report_io *spill_io;
	size_t spill_keep;
	bool spilling, spill_failed;
	size_t spill_at;
	uint64_t nspilled;       /* fragments in the file and SBUF */
	off_t spill_len;         /* bytes written to the file */
	char *sbuf;
	size_t slen;
	/* Which denial heads the report (cw_report_headline): per process
	 * number, its candidate (value: struct head_cand *, owned), and how
	 * each number ended (value: uint8_t, PROC_ENDED_*), from the
	 * process records; HEAD the candidate chosen, or NULL. */
	struct cw_hmap heads, ends;
	const struct head_cand *head;
	struct change_rec *chgs;
	size_t nchgs, achgs;
	uint64_t chgs_omitted;
	struct approval_rec *apps;
	size_t napps, aapps;
	struct host_rec *hosts;
	size_t nhosts, ahosts;
	struct fd_rec *fds;
	size_t nfds, afds;

	struct cw_hmap caps;          /* key: see cap_ent; value: uint64_t count */
	char *keybuf;                 /* the key being looked up, reused */
	size_t keycap;

	bool has_outcome;
	char *state, *kind;
	bool has_exit;
	int code, signal;
	bool has_denial;
	struct cw_decision denial;

	uint64_t events, notifications;
	double elapsed;
	bool has_annotations;
	struct cw_report_annotations annotations;
	bool has_colocation;
	struct cw_report_colocation colocation;
	bool has_ingress;
	struct cw_report_ingress ingress;
};

/* The spill file's write buffer, and the one cw_report_write renders
 * through. */
#define CW_REPORT_SPILL_BUF (64 * 1024)

/* Replace *DST with a copy of S (NULL stays NULL): 0 or -ENOMEM. */
int cw_report_dup_str(char **dst, const char *s);

/* A denial past the first KEEP (report_spill.c): rendered now and appended
 * to the spill file. */
int cw_report_spill_denial(cw_report *r, const struct cw_denial_record *dr);

/* One denial as a JSON fragment, printed and escaped as the document's
 * (report_render.c): what the spill file holds. NULL on allocation failure. */
char *cw_report_denial_fragment(const struct denial_rec *d);
/* Whether the process of number PROC ended with status 0 (report.c). */
bool cw_report_tolerated(const cw_report *r, uint64_t proc);

#endif
