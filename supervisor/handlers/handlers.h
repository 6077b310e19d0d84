#ifndef CAPWATCH_HANDLERS_H
#define CAPWATCH_HANDLERS_H
/* The dispatch table: one row per syscall capwatch looks at, keyed by the
 * x86_64 syscall number. The same rows build the BPF filter (filter.c) and
 * route notifications to the family handlers (one family per file). */
#include <stdint.h>
#include "supervisor/notify.h"

/* Terminal ioctls the row of ioctl names (table.c) and ioctl.c decide;
 * older headers lack some. */
#ifndef TIOCCONS
#define TIOCCONS 0x541D
#endif
#ifndef TIOCSETD
#define TIOCSETD 0x5423
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Default deny (issue 14 item 2): every number below CW_NSYSCALLS is
 * either passed in the kernel (CW_RULE_ALLOW: known harmless on what the
 * tree already holds), decided by a handler (the NOTIFY and ESCAPE rows),
 * or refused and recorded. A number with no row (CW_RULE_NONE), including
 * any syscall a later kernel adds, is notified and refused with ENOSYS
 * (what an older kernel says, so programs fall back to a call capwatch
 * decides) and recorded as `unrestricted` with the syscall's name. */
enum cw_filter_rule {
	CW_RULE_NONE = 0,         /* no row: notified, refused (ENOSYS) and recorded */
	CW_RULE_ALLOW,            /* passed in the kernel without a notification */
	CW_RULE_NOTIFY,           /* always notified and decided */
	CW_RULE_NOTIFY_ARG_SET,   /* notified when args[arg] != 0 (sendto with an address) */
	CW_RULE_ESCAPE,           /* escapes supervision ("unrestricted"): notified, the
				     handler records and denies (or allows when the profile does) */
	CW_RULE_ESCAPE_FLAGS,     /* the same, only when (u32)args[arg] has a bit of MASK */
	CW_RULE_ESCAPE_EQ,        /* the same, only when (u32)args[arg] == MASK */
	CW_RULE_NOTIFY_EQ,        /* notified when (u32)args[arg] == MASK or == VAL2 */
	CW_RULE_NOTIFY_UNLISTED,  /* notified when (u32)args[arg] < 64 is not in ALLOW_SET
				     (a bitmap); larger values fail in the kernel */
	CW_RULE_ESCAPE_SILENT,    /* the same, decided in the filter: ERRNO(EPERM) when the
				     profile denies it (hot or useless to record), ALLOW otherwise */
	CW_RULE_ENOSYS,           /* always ERRNO(ENOSYS) in the filter */
	CW_RULE_NOTIFY_IN,        /* notified when (u32)args[arg] is one of VALS[0..NVALS)
				     (one masked 32-bit compare per value); other values
				     are allowed in the kernel */
	CW_RULE_NOTIFY_IN_BIT,    /* notified when (u32)args[arg] is one of VALS[0..NVALS),
				     or when it is MASK and (u32)args[arg + 1] has the
				     bit VAL2 (fcntl: F_SETFL turning O_ASYNC on) */
	CW_RULE_NOTIFY_PAIRS,     /* notified when ((u32)args[arg], (u32)args[arg + 1]) is
				     one of the pairs (VALS[2i], VALS[2i + 1]), i < NVALS
				     (one rule per pair, a masked 32-bit compare of each
				     argument: libseccomp ANDs compares of different
				     arguments); other pairs are allowed in the kernel */
};

struct cw_syscall {
	const char *name;
	cw_handler_fn handle;
	enum cw_filter_rule rule;
	uint8_t arg;
	uint32_t mask;
	uint32_t val2;            /* CW_RULE_NOTIFY_EQ: a second value, 0 = none;
				     CW_RULE_NOTIFY_IN_BIT: the bit */
	uint64_t allow_set;       /* CW_RULE_NOTIFY_UNLISTED */
	const uint32_t *vals;     /* CW_RULE_NOTIFY_IN; CW_RULE_NOTIFY_PAIRS: pairs */
	uint8_t nvals;            /* values (NOTIFY_IN) or pairs (NOTIFY_PAIRS) */
	/* CW_RULE_NOTIFY_IN of ioctl: the command "types" (bits 8-15 of the
	 * low word) passed in the kernel; every other type is notified too.
	 * All zero: only VALS are notified. */
	const uint64_t *type_allow; /* 4 words: a bit per type */
};

/* Every number the filter decides one by one; a number at or above it
 * and below the x32 range is notified and refused like an unlisted one. */
#define CW_NSYSCALLS 1024
extern const struct cw_syscall cw_syscalls[CW_NSYSCALLS];

/* Family handlers. */
void cw_handle_open(struct cw_notif *n);    /* fs_open.c: open, openat, openat2, creat */
void cw_handle_fs(struct cw_notif *n);      /* fs_path.c: path-mutating calls (fs_meta.c:
					       the metadata ones) */
void cw_handle_fs_note(struct cw_notif *n); /* fs_path.c: recorded only (name_to_handle_at) */
void cw_open_special(struct cw_notif *n, struct cw_event *ev, unsigned long long flags, unsigned long long mode, bool emulable); /* fs_special.c: /proc, /sys, devices, FIFOs, O_PATH */
/* The file family's state for RUN (run->fs_state, fs.c): made before the
 * first notification (0 or -ENOMEM), freed with the run. cw_fs_scratch_of
 * is the scratch RUN's notifications are handled with (cw_notif.fs). */
struct cw_fs_scratch;
int cw_fs_init(struct cw_run *run);
void cw_fs_free(struct cw_run *run);
struct cw_fs_scratch *cw_fs_scratch_of(struct cw_run *run);
/* The name longer than PATH_MAX under which capwatch opened for the tree
 * the regular file open at FD, if it still names that file (fs.c, the
 * last 32 such names); NULL otherwise. Under the loop's lock. */
const char *cw_fs_long_name(struct cw_run *run, int fd);
void cw_handle_exec(struct cw_notif *n);    /* exec.c */
void cw_handle_net(struct cw_notif *n);     /* net.c: connect, send*, bind, listen, socket,
					       setsockopt of the options that reroute */
void cw_handle_signal(struct cw_notif *n);  /* proc.c: kill and friends, fcntl(F_SETOWN) */
void cw_handle_proc(struct cw_notif *n);    /* proc.c: ptrace, process_vm_*, pidfd_open, pidfd_getfd */
void cw_handle_setpgid(struct cw_notif *n); /* proc.c: joining a process group, in tty mode */
void cw_handle_tty_flow(struct cw_notif *n); /* sigio.c: tcflow's TCOOFF */
void cw_handle_escape(struct cw_notif *n);  /* proc.c: unrestricted syscalls */
void cw_handle_errqueue(struct cw_notif *n); /* proc.c: recv* with MSG_ERRQUEUE */
void cw_handle_pid_call(struct cw_notif *n); /* proc.c: prlimit64, setpriority, sched_set*,
					       ioprio_set, kcmp, process_madvise, process_mrelease,
					       migrate_pages, move_pages, get_robust_list */
void cw_handle_ioctl(struct cw_notif *n);   /* ioctl.c: ioctl decided by its command */
/* sigio.c: signals the kernel sends for a descriptor or a terminal.
 * fcntl F_SETFL with O_ASYNC, F_SETSIG, F_SETLEASE, F_NOTIFY; ioctl
 * FIOASYNC: decided on the descriptor's owner. */
void cw_handle_fasync(struct cw_notif *n);
/* ioctl TIOCSPGRP, TIOCSWINSZ: decided on the terminal's foreground group. */
void cw_handle_tty_job(struct cw_notif *n);
/* ioctl TCSETS, TCSETSW, TCSETSF, their termios2 and termio twins: turning
 * TOSTOP on, decided on the terminal's session; performed by capwatch. */
void cw_handle_tty_attr(struct cw_notif *n);
/* Decide an unrestricted syscall on its number (or SCOPE, when not NULL)
 * and FLAGS (recorded), and answer: CONTINUE when allowed, else DENY_ERR
 * (0: the decision's errno). Registers only: CONTINUE is exact. */
void cw_escape_finish(struct cw_notif *n, const char *scope, long long flags, int deny_err);
void cw_handle_unlisted(struct cw_notif *n);/* proc.c: syscalls with no row (ENOSYS) */

/* The handler a notification for NR goes to: the row's, cw_handle_unlisted
 * for a number with no row, NULL when the filter passes NR in the kernel
 * (a notification for it means the filter and the table disagree). */
cw_handler_fn cw_syscall_handler(int nr);

/* The name of syscall NR for records: the row's, else "syscall_NR" from
 * RUN's table of them (filled by the filter builder, alive for the run). */
struct cw_run;
const char *cw_syscall_name(const struct cw_run *run, int nr);

#endif
