#ifndef CAPWATCH_PTRACE_H
#define CAPWATCH_PTRACE_H
/* The process tracker: who is in the supervised tree, their argv/exe,
 * start/end and exit. Two back ends behind one ops struct: ptrace (the
 * normal case: fork/clone/exec events, every descendant known) and wait-only
 * (degraded: ptrace could not be attached, only the first child is known). */
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct cw_run;

struct cw_proc {
	pid_t pid;          /* tid for threads */
	uint64_t serial;    /* this process's number, never reused in a run (the
			       report's cw_proc_record.proc); kept by its images */
	pid_t tgid;
	pid_t ppid;
	bool is_thread;
	bool alive;
	double start, end;
	char *exe;          /* at the exec stop; owned */
	char **argv;        /* at the exec stop; owned, NULL-terminated */
	bool argv_truncated; /* argv is less than the process passed (the
				bounds below): said in the trace and report */
	bool exited;
	int code;
	int signal;
	bool group_stopped;
	bool unannounced;   /* seen (stop or exit) before its parent's fork event */
	bool execed;        /* exe/argv come from its own exec, not from fork */
	char *pending_exec; /* scope of an allowed execve notification, counted
			       as process_spawn used only at the exec stop */
	char **pending_argv; /* its argv as the notification read it (owned):
				the record when /proc has none any more (the
				kernel back end sees execs after the fact) */
	bool pending_argv_truncated;
	struct cw_proc *prev_image; /* earlier programs this pid exec'd (owned),
				       newest first: one report record each */
	const char *preload; /* static string: "present" | "absent" | "unknown";
				NULL = "unknown" (supervisor/annot.c) */
	/* What the execs allowed at their notifications since the last exec
	 * stop named then (device, inode): the exec stop identifies the image
	 * the kernel loaded by these when its name cannot be read back. */
	struct { dev_t dev; ino_t ino; } approved[4];
	unsigned napproved;
	/* The kernel back end: what fanotify allowed this process to open
	 * for exec since its last exec event (the image must be one of them:
	 * an exec fanotify never saw came through a mount it does not
	 * watch), and whether the process was killed for such an exec. */
	struct { dev_t dev; ino_t ino; } fan_ok[4];
	pid_t nspid; /* its number in the tree's PID namespace (kernel_reads), 0 unknown */
	unsigned nfan_ok;
	bool condemned;
	/* The kernel back end: the process is gone when its leader has
	 * exited and no other thread of its current image is left. A leader
	 * may leave first (pthread_exit), another thread's exec ends it
	 * before the new image starts (de_thread), and the connector may
	 * report an ended thread's exit after the exec (e173, e174, e177).
	 * THREADS counts the image's other threads, GEN numbers its images
	 * (kernel.c's thread map knows each thread's image), LEADER_EXITED
	 * is its leader's exit. EXEC_TID: a thread other than the leader
	 * whose exec notification was continued since the last exec (its
	 * old leader's exit may come after the exec event: checked then). */
	unsigned threads, gen;
	bool leader_exited, check_leader_exit;
	pid_t exec_tid;
	/* The portable back end: the last notification of this thread that
	 * capwatch answered with CONTINUE (its number, arguments and return
	 * address), so that a signal-delivery-stop can tell a call whose own
	 * body was interrupted from one the kernel interrupted while it
	 * waited for capwatch (ptrace.c restart_unreceived). */
	struct { bool set; int nr; uint64_t args[6]; uint64_t ip; } continued;
};

struct cw_tracker_ops {
	const char *name;
	/* Attach to the first child before it installs its filter. -errno
	 * when this back end cannot be used. */
	int (*attach)(struct cw_run *run, pid_t child);
	/* Reap and handle every pending wait status (SIGCHLD arrived). */
	void (*reap)(struct cw_run *run);
	/* Number of supervised tasks still alive. */
	size_t (*alive)(const struct cw_run *run);
	/* Send SIG to every known process (by pid, setsid'd ones included). */
	void (*kill_all)(struct cw_run *run, int sig);
};

extern const struct cw_tracker_ops cw_tracker_ptrace;
extern const struct cw_tracker_ops cw_tracker_waitonly;
extern const struct cw_tracker_ops cw_tracker_kernel; /* supervisor/kernel.c */

int cw_tracker_new(struct cw_run *run);
/* Kill every supervised process (SIGKILL by pid, through the tracker's
 * ops, or the first child when there is no tracker yet) and what escaped
 * the tracker (the limits' cgroup). */
void cw_tracker_kill_all(struct cw_run *run);
void cw_tracker_free(struct cw_run *run);
struct cw_proc *cw_tracker_find(const struct cw_run *run, pid_t pid);
/* Is PID (a process or thread id) a live member of the supervised tree? */
bool cw_tracker_in_tree(const struct cw_run *run, pid_t pid);
/* An allowed exec was notified for TGID: count it when it happens. Returns
 * false when there is no exec stop to wait for (degraded mode). */
bool cw_tracker_defer_exec(struct cw_run *run, pid_t tgid, const char *scope);
/* An exec by TGID was allowed at its notification, of the file that is
 * (DEV, INO) now (the newest four are kept until the exec stop). */
void cw_tracker_approve_image(struct cw_run *run, pid_t tgid, dev_t dev, ino_t ino);
/* The notification REQ of thread TID is answered with CONTINUE: its
 * body runs in the target now (see struct cw_proc.continued). */
struct seccomp_notif;
void cw_tracker_note_continue(struct cw_run *run, pid_t tid, const struct seccomp_notif *req);
/* Add every process (not threads) to the report. */
void cw_tracker_report(struct cw_run *run);
/* The thread group and parent of TID (from the table, else /proc). False
 * when neither knows them (TID gone): TGID is then TID, which may be a
 * thread's number, never to be taken for a process's (red team 26). */
bool cw_tracker_ids(const struct cw_run *run, pid_t tid, pid_t *tgid, pid_t *ppid);


/* --- the process table, for the trackers (ptrace.c, kernel.c) --- */
/* A new live entry for PID (a process until told otherwise), or NULL. */
struct cw_proc *cw_tracker_add(struct cw_run *run, pid_t pid);
/* P is gone (its end time is now). */
void cw_tracker_dead(struct cw_run *run, struct cw_proc *p);
/* P ended with wait STATUS: recorded and traced (once). */
void cw_tracker_exited(struct cw_run *run, struct cw_proc *p, int status);
/* P's exec happened: record and trace it (cw_tracker_record_exec). */
void cw_tracker_record_exec(struct cw_run *run, struct cw_proc *p);
void cw_tracker_trace_spawn(struct cw_run *run, struct cw_proc *p, const char *via);
/* Did an exec notification of P allow the file ST is? */
bool cw_tracker_approved(const struct cw_proc *p, const struct stat *st);
/* Is PATH (ST) the system's dynamic loader: ld-*.so* or ld64* in a
 * system library directory, root's, writable by nobody else? The ELF
 * interpreter that passes with an allowed program; any other PT_INTERP
 * is a program of its own. */
bool cw_tracker_system_loader(const char *path, const struct stat *st);
/* Does PID hold a seccomp listener descriptor (K14)? */
bool cw_tracker_holds_listener(pid_t pid);
/* What the tracker keeps of an argv, kept until the report (issue 15:
 * supervisor memory bounded whatever the command passes; red team 24
 * F1, F4). Per process image: at most CW_ARGV_KEEP_ARGS arguments and
 * CW_ARGV_KEEP_BYTES of them, read from /proc/PID/cmdline in one go: a
 * long linker or xargs line is recorded whole, as before the bound
 * (tests/integration/scale.sh: 20,000 arguments). The exec notification's
 * own read of argv (handlers/exec.c, one read per argument, on the event
 * loop: the record of a process gone before /proc could be read) stops
 * at CW_ARGV_READ_ARGS and CW_ARGV_READ_BYTES, about what the trace
 * writes (128 KiB; it marks its own cut). Per run: CW_ARGV_RUN_BUDGET in
 * all, counting each argument's pointer and allocation; past it a new
 * image keeps argv[0] (at most CW_ARGV0_KEEP bytes) only. Whatever is
 * left out is marked "argv_truncated": true in its exec trace line and
 * its report record. */
#define CW_ARGV_KEEP_ARGS 65536u
#define CW_ARGV_KEEP_BYTES (1u << 20)
#define CW_ARGV_READ_ARGS 4096u
#define CW_ARGV_READ_BYTES (128u * 1024u + 4096u)
#define CW_ARGV_RUN_BUDGET (16u << 20)
#define CW_ARGV0_KEEP 4096u
/* /proc/PID/cmdline split at NUL bytes: no more than MAX_BYTES of it read
 * and MAX_ARGS arguments kept; *CUT says whether anything was left out. */
char **cw_tracker_read_cmdline(pid_t pid, size_t max_bytes, size_t max_args, bool *cut);
char *cw_tracker_read_exe(pid_t pid);
void cw_tracker_free_argv(char **argv);
/* ARGV (owned, NULL-terminated) is what TGID's allowed exec passes. */
void cw_tracker_pending_argv(struct cw_run *run, pid_t tgid, char **argv, bool truncated);
/* Entries alive now. */
size_t cw_tracker_nalive(const struct cw_run *run);
/* Every entry, in order of appearance (threads included). */
size_t cw_tracker_count(const struct cw_run *run);
struct cw_proc *cw_tracker_at(const struct cw_run *run, size_t i);
#endif
