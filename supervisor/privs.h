#ifndef CAPWATCH_PRIVS_H
#define CAPWATCH_PRIVS_H
/* Least privilege at launch (issue 14 item 1): what the command may keep of
 * capwatch's own privileges.
 *
 *  - Capabilities. Unless the profile grants `unrestricted` by default (or
 *    the run is --observe, which denies nothing), the
 *    command keeps at most Docker's default set for root (CHOWN,
 *    DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP,
 *    NET_BIND_SERVICE, SYS_CHROOT, MKNOD, AUDIT_WRITE, SETFCAP; not NET_RAW:
 *    the tree shares the host's network namespace, see privs.c)
 *    and nothing for an ordinary account: bounding, permitted, effective
 *    and inheritable sets reduced, the ambient set cleared and locked
 *    against raising, and the securebits that govern root's capabilities
 *    locked (all but KEEP_CAPS, which privilege-dropping tools set), so that neither the command nor a setuid-root helper gets
 *    more (no_new_privs clamps exec to the permitted set anyway).
 *    SECBIT_NOROOT is locked OFF, not set: root's commands keep the set
 *    above across exec, as in a container, which is what a user who runs a
 *    build as root expects.
 *  - Namespaces. A new IPC namespace (System V IPC and POSIX message
 *    queues of other processes out of reach) and UTS namespace, where the
 *    kernel allows one (CAP_SYS_ADMIN: root). An ordinary account gets
 *    neither (the kernel needs a user namespace for that, which would show
 *    every file of another user as nobody's); the run notes it.
 *
 * The plan is made in the parent; the child applies it between fork and
 * exec with async-signal-safe calls only. */
#include <stdbool.h>
#include <stdint.h>

struct cw_run;

enum {
	CW_PRIV_CAPS = 1 << 0,    /* capability sets reduced as planned */
	CW_PRIV_BOUNDING = 1 << 1,/* ...including the bounding set */
	CW_PRIV_SECBITS = 1 << 2, /* securebits locked */
	CW_PRIV_IPCNS = 1 << 3,   /* new IPC namespace */
	CW_PRIV_UTSNS = 1 << 4,   /* new UTS namespace */
};

struct cw_privs {
	bool keep_all;            /* the profile grants unrestricted, or --observe:
				     nothing dropped */
	bool observe;             /* ... because of --observe */
	bool root;                /* euid 0 */
	bool can_setpcap;         /* CAP_SETPCAP effective: bounding set and securebits */
	bool can_sysadmin;        /* CAP_SYS_ADMIN effective: namespaces */
	int last_cap;             /* /proc/sys/kernel/cap_last_cap */
	uint64_t keep;            /* capabilities the command may keep */
	/* Filled by the child's report: */
	uint32_t applied;         /* CW_PRIV_* */
	int err_caps, err_ns;     /* errno of the first failure, 0 if none */
	char layer[40];           /* "capabilities:docker-default", "capabilities:none" or "" */
	char layer_ns[40];        /* "namespaces:ipc+uts" or "" */
	char note[256];           /* why something is absent ("" when all applied) */
};

/* The calling thread's capability sets (capget/capset, version 3):
 * 0 or -errno. Async-signal-safe. */
struct cw_caps {
	uint64_t eff, perm, inh;
};
int cw_caps_get(struct cw_caps *c);
int cw_caps_set(const struct cw_caps *c);

/* In the parent, before fork. */
void cw_privs_prepare(struct cw_run *run, struct cw_privs *p);

/* In the child, after setsid and before no_new_privs. Returns the
 * CW_PRIV_* bits applied; *err_caps and *err_ns get an errno on failure. */
uint32_t cw_privs_child(const struct cw_privs *p, int *err_caps, int *err_ns);

/* In the parent, with the child's result: fills p->layer and p->note, and
 * marks the run degraded when something that should have worked failed. */
void cw_privs_result(struct cw_run *run, struct cw_privs *p, uint32_t applied, int err_caps, int err_ns);

#endif
