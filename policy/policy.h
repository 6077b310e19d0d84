#ifndef CAPWATCH_POLICY_H
#define CAPWATCH_POLICY_H
/* The one decision function: (profile, context, operation) -> decision.
 * Called by the supervisor for every notified syscall, by `replay` for every
 * recorded event, and by the unit tests. Pure: no syscalls, no globals. */
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include "cap.h"
#include "profile.h"
#include "path.h"
#include "addr.h"

/* The longest resolved path capwatch decides on, NUL included. The kernel
 * takes no path argument of PATH_MAX bytes or more, but a name resolved
 * against a cwd or a directory descriptor deeper than PATH_MAX is longer:
 * such names are decided (and performed relative to descriptors, in steps
 * shorter than PATH_MAX) up to this bound, beyond it refused ENAMETOOLONG. */
#define CW_PATH_LONG_MAX 65536
#define CW_SCOPE_MAX (CW_PATH_LONG_MAX + 104) /* a path plus a prefix ("unix:") */
#define CW_RULE_MAX 192
#define CW_REASON_MAX 256

/* One grant from --approve CAP[:SCOPE]. SCOPE NULL = every scope. */
struct cw_grant {
	cw_cap_kind cap;
	const char *scope; /* path glob or address scope, as in profiles */
};

/* A host name the supervisor resolved itself (never a name the target
 * claims): ADDR is one address of NAME (its port is ignored). Host-name
 * scopes in a profile ("pkgs.example.com:443", "*.mirror.example.org:80")
 * match an operation's address only through these. */
struct cw_resolved_host {
	struct sockaddr_storage addr;
	size_t addrlen;
	const char *name;
};

/* What the run knows that a profile does not. All paths normalized absolute. */
struct cw_context {
	const char *const *roots; /* workspace roots */
	size_t nroots;
	const char *scratch;      /* the run's scratch TMPDIR, or NULL */
	const char *home;         /* $HOME of the user, or NULL */
	const char *const *protected_files; /* report, trace, profile files */
	size_t nprotected;
	bool approve_risk;        /* --approve-risk: every ask becomes allow */
	const char *approve_reason;
	const struct cw_grant *grants; /* --approve CAP[:SCOPE]: matching asks become allow */
	size_t ngrants;
	const struct cw_resolved_host *hosts; /* names resolved by the supervisor, or NULL */
	size_t nhosts;
};

typedef enum cw_op_kind {
#define CW_OP(id, name) CW_OP_##id,
#include "ops.def"
#undef CW_OP
	CW_OP__COUNT
} cw_op_kind;
const char *cw_op_name(cw_op_kind k);
int cw_op_from_name(const char *name); /* -EINVAL when unknown */

/* An observed operation, already resolved by the caller. */
struct cw_op {
	cw_op_kind kind;
	const char *syscall;         /* name, e.g. "openat"; ESCAPE_SYSCALL decides on it */
	const char *path;            /* normalized absolute path (file ops, EXEC,
					RENAME/LINK source); NULL otherwise */
	const char *path2;           /* second path (rename/link target), or NULL */
	const struct sockaddr *addr; /* network ops */
	size_t addrlen;
	const char *host;            /* host name when known (advisory, recorded only) */
	int target_pid;              /* SIGNAL, PROC_ACCESS */
	bool target_in_tree;         /* target is inside the supervised tree */
	const char *env_names;       /* ENV: comma-separated variable names */
	const char *alias;           /* OPEN_WRITE/FS_WRITE: the object written has a name
					capwatch did not see made ("hard link", "mount"):
					decided as a write outside every workspace root.
					CONNECT/SEND to a unix path: the socket file was not
					made by the tree in this run: process_control.
					OPEN_READ: the file opened is the same inode as
					a secret known under another name (the text says
					which): decided as a secret read */
	bool exchange;               /* RENAME: RENAME_EXCHANGE, both ends move */
	const char *secret_src;      /* RENAME (rename, link): the name of a home's secret place
					that the source (path) is, or holds, reached through a
					symbolic link (the supervisor's cw_secret_ids_linked):
					moving or linking it is a secret read of the source */
	const char *secret_dst;      /* the same for path2 (RENAME_EXCHANGE) */
	bool netlink_route_unprivileged; /* BIND/CONNECT/SEND of AF_NETLINK: on a
					NETLINK_ROUTE socket of a command without
					CAP_NET_ADMIN, which the kernel lets only read
					(GET requests): needs no capability */
	bool key_free;               /* OPEN_READ: the supervisor read the whole file and it
					holds no private key block: a .pem or .key that is a
					secret only by that name is not one (a certificate) */
};

typedef enum cw_next_action {
	CW_NEXT_NONE, CW_NEXT_REQUEST_APPROVAL, CW_NEXT_CHANGE_COMMAND, CW_NEXT_ENABLE_SANDBOX
} cw_next_action;
const char *cw_next_action_name(cw_next_action a); /* "none", "request_approval", ... */

typedef enum cw_source {
	CW_SOURCE_CONFIGURED_POLICY, CW_SOURCE_PLATFORM_SANDBOX, CW_SOURCE_APPROVAL
} cw_source;
const char *cw_source_name(cw_source s); /* "configured_policy", ... */

struct cw_decision {
	cw_verdict verdict;         /* final: after approvals */
	cw_verdict profile_verdict; /* what the profile alone said */
	cw_cap_kind cap;            /* CW_CAP_NONE: no capability needed */
	bool secret;                /* filesystem_read of a secret-looking path */
	bool flagged;               /* allowed but worth a flag (observe: secret, protected) */
	char rule[CW_RULE_MAX];     /* the rule that decided: "readonly:workspace_write:default",
				       "builtin:pseudo-device", "builtin:scratch",
				       "approval:approve-risk", "approval:--approve external_network" */
	char reason[CW_REASON_MAX]; /* one sentence for a person */
	cw_next_action next_action; /* for deny/ask */
	cw_source source;
	int err;                    /* errno a denial returns: EACCES for file
				       operations, EPERM for everything else */
	/* Last: cw_policy_decide() clears the struct up to it and only its
	 * first byte (it is CW_SCOPE_MAX long). */
	char scope[CW_SCOPE_MAX];   /* resolved path, "addr:port", "unix:PATH", pid, syscall */
};

/* Decide OP. Always fills OUT (a decision is always produced; an operation
 * that cannot be classified is denied as unrestricted). Returns 0, or
 * -EINVAL on a malformed OP (OUT then holds a deny). */
int cw_policy_decide(const cw_profile *p, const struct cw_context *ctx,
		     const struct cw_op *op, struct cw_decision *out);

#endif
