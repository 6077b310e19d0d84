/* cw_policy_decide: the one decision function (contract section 2).
 *
 * The supervisor, `capwatch replay` and the unit tests all come here. The
 * order of work is always: classify the operation into a capability kind
 * and a scope, ask the profile (cw_profile_match), then apply approvals,
 * which can only turn an "ask" into an "allow". */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "policy.h"
#include "profile_impl.h"

/* Format into a fixed buffer, truncating: reasons and rules are for
 * people and never parsed back. */
static void say(char *buf, size_t sz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t sz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sz, fmt, ap);
	va_end(ap);
}

/* Text from the target (a host name) or the command line in a reason:
 * printable ASCII only, so that nobody can forge a log line with it. */
static void printable(char *dst, size_t sz, const char *src, size_t max)
{
	size_t o = 0;
	for (size_t i = 0; src[i] && i < max && o + 1 < sz; i++) {
		unsigned char c = (unsigned char)src[i];
		dst[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	dst[o] = '\0';
}

static bool is_file_op(cw_op_kind k)
{
	return k == CW_OP_OPEN_READ || k == CW_OP_OPEN_WRITE || k == CW_OP_FS_WRITE ||
	       k == CW_OP_RENAME || k == CW_OP_SYMLINK || k == CW_OP_EXEC;
}

/* The errno a denial returns: what the kernel itself uses for a refused
 * path (EACCES) or a refused operation (EPERM). */
static int denial_errno(cw_op_kind k)
{
	return is_file_op(k) ? EACCES : EPERM;
}

static void set_scope(struct cw_decision *out, const char *scope)
{
	snprintf(out->scope, sizeof out->scope, "%s", scope ? scope : "");
}

/* An operation that cannot be classified is denied as unrestricted: no
 * profile rule and no approval can let it through. */
static int unclassified(const struct cw_op *op, struct cw_decision *out, const char *why)
{
	const char *kind = op ? cw_op_name(op->kind) : NULL;
	out->verdict = out->profile_verdict = CW_DENY;
	out->cap = CW_CAP_UNRESTRICTED;
	set_scope(out, kind ? kind : "invalid");
	say(out->rule, sizeof out->rule, "builtin:unclassified");
	say(out->reason, sizeof out->reason, "capwatch cannot classify this %s operation (%s), so it is denied",
		 kind ? kind : "unknown", why);
	out->next_action = CW_NEXT_CHANGE_COMMAND;
	out->source = CW_SOURCE_PLATFORM_SANDBOX;
	out->err = op && kind ? denial_errno(op->kind) : EPERM;
	return -EINVAL;
}

/* No capability needed (pseudo-devices, the scratch directory, the own tree). */
static int no_cap(struct cw_decision *out, const char *scope, const char *rule, const char *reason)
{
	out->verdict = out->profile_verdict = CW_ALLOW;
	out->cap = CW_CAP_NONE;
	set_scope(out, scope);
	say(out->rule, sizeof out->rule, "%s", rule);
	say(out->reason, sizeof out->reason, "%s", reason);
	out->next_action = CW_NEXT_NONE;
	out->source = CW_SOURCE_CONFIGURED_POLICY;
	return 0;
}

static const struct cw_grant *matching_grant(const struct cw_context *ctx, cw_cap_kind cap, int slot,
					     bool secret, const char *scope,
					     const void *addr, size_t addrlen)
{
	if (!ctx)
		return NULL;
	for (size_t i = 0; i < ctx->ngrants; i++) {
		const struct cw_grant *g = &ctx->grants[i];
		if (g->cap != cap)
			continue;
		/* "--approve filesystem_read" does not reach secrets: those need
		 * a grant that names them */
		if (!g->scope && !secret)
			return g;
		if (g->scope && cw_scope_match(slot, ctx, g->scope, scope, addr, addrlen))
			return g;
	}
	return NULL;
}

/* Ask the profile, then apply approvals. */
static int by_profile(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
		      struct cw_decision *out, cw_cap_kind cap, bool secret, const char *scope,
		      const void *addr, size_t addrlen)
{
	int slot = secret ? CW_SLOT_SECRET_READ : (int)cap;
	const char *pname = cw_profile_name(p);
	const char *what = cw_cap_name(cap);
	const char *detail = secret ? " of a secret-looking path" : "";
	char host[160] = "";

	out->cap = cap;
	out->secret = secret;
	set_scope(out, scope);
	cw_verdict v = cw_profile_match(p, ctx, slot, out->scope, addr, addrlen,
					out->rule, sizeof out->rule);
	out->profile_verdict = out->verdict = v;
	out->source = CW_SOURCE_CONFIGURED_POLICY;
	/* the host name is the target's own claim: recorded, never matched */
	if (op->host && (cap == CW_CAP_EXTERNAL_NETWORK || cap == CW_CAP_ISOLATED_LOOPBACK ||
			 cap == CW_CAP_HOST_VISIBLE_BINDING)) {
		char h[129];
		printable(h, sizeof h, op->host, 128);
		say(host, sizeof host, " (host %s)", h);
	}

	const char *verb = v == CW_ALLOW ? "allows" : v == CW_DENY ? "denies" : "asks before";
	say(out->reason, sizeof out->reason, "%s %s %s%s%s", pname, verb, what, detail, host);

	if (v == CW_ASK && ctx) {
		const struct cw_grant *g = NULL;
		if (ctx->approve_risk) {
			char why[101];
			printable(why, sizeof why, ctx->approve_reason ? ctx->approve_reason : "", 100);
			out->verdict = CW_ALLOW;
			say(out->rule, sizeof out->rule, "approval:approve-risk");
			say(out->reason, sizeof out->reason,
				 "%s asks before %s%s%s; approved by --approve-risk: %s",
				 pname, what, detail, host, why);
		} else if ((g = matching_grant(ctx, cap, slot, secret, out->scope, addr, addrlen))) {
			out->verdict = CW_ALLOW;
			say(out->rule, sizeof out->rule, "approval:--approve %s%s%.150s",
				 what, g->scope ? ":" : "", g->scope ? g->scope : "");
			say(out->reason, sizeof out->reason, "%s asks before %s%s%s; approved by --approve",
				 pname, what, detail, host);
		}
		if (out->verdict == CW_ALLOW)
			out->source = CW_SOURCE_APPROVAL;
	}

	if (out->verdict == CW_ASK)
		out->next_action = CW_NEXT_REQUEST_APPROVAL;
	else if (out->verdict == CW_DENY)
		out->next_action = CW_NEXT_CHANGE_COMMAND;
	else
		out->next_action = CW_NEXT_NONE;
	out->err = out->verdict == CW_ALLOW ? 0 : denial_errno(op->kind);
	out->flagged = out->verdict == CW_ALLOW && cw_profile_flags_sensitive(p) &&
		       (secret || cap == CW_CAP_PROTECTED_METADATA);
	if (out->flagged) {
		size_t l = strlen(out->reason);
		snprintf(out->reason + l, sizeof out->reason - l, " (flagged)");
	}
	return 0;
}

/* The operation takes PATH's name away from what it names: a rename (or
 * link: both ends), an unlink, an rmdir. */
static bool moves_name(const struct cw_op *op)
{
	if (op->kind == CW_OP_RENAME)
		return true;
	return op->kind == CW_OP_FS_WRITE && op->syscall &&
	       (strcmp(op->syscall, "unlink") == 0 || strcmp(op->syscall, "unlinkat") == 0 ||
		strcmp(op->syscall, "rmdir") == 0);
}

/* Creating, changing or removing PATH (normalized). */
static int decide_write(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
			const char *path, struct cw_decision *out)
{
	cw_path_class class = cw_path_classify(ctx, path);
	/* A directory above the report, the trace or a profile file (or a
	 * symlink in the name they were given by): renamed away or removed,
	 * a directory the command prepared could take its name, and the
	 * user would read the command's report, or the next run its
	 * profile (red team 22). Changing its mode or times is not that. */
	if (moves_name(op) && class != CW_PATH_PROTECTED && cw_path_holds_protected(ctx, path)) {
		int rc = by_profile(p, ctx, op, out, CW_CAP_PROTECTED_METADATA, false, path, NULL, 0);
		size_t l = strlen(out->reason);
		snprintf(out->reason + l, sizeof out->reason - l,
			 " (it holds the run's report, trace or profile: another file could take their names)");
		return rc;
	}
	/* The object behind this name is also reachable by another name (a hard
	 * link or a mount made before the run), which may lie anywhere: the
	 * name proves nothing, so it is a write outside the workspace. */
	if (op->alias && class != CW_PATH_PSEUDO_DEVICE) {
		int rc = by_profile(p, ctx, op, out, CW_CAP_UNRESTRICTED, false, path, NULL, 0);
		size_t l = strlen(out->reason);
		snprintf(out->reason + l, sizeof out->reason - l,
			 " (the file is also reachable through a %s made before the run)", op->alias);
		return rc;
	}
	switch (class) {
	case CW_PATH_PSEUDO_DEVICE:
		return no_cap(out, path, "builtin:pseudo-device", "pseudo-devices need no capability");
	case CW_PATH_SCRATCH:
		return no_cap(out, path, "builtin:scratch", "the run's scratch directory needs no capability");
	case CW_PATH_PROTECTED:
		return by_profile(p, ctx, op, out, CW_CAP_PROTECTED_METADATA, false, path, NULL, 0);
	case CW_PATH_WORKSPACE:
		return by_profile(p, ctx, op, out, CW_CAP_WORKSPACE_WRITE, false, path, NULL, 0);
	case CW_PATH_OUTSIDE:
		break;
	}
	return by_profile(p, ctx, op, out, CW_CAP_UNRESTRICTED, false, path, NULL, 0);
}

static int decide_read(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
		       const char *path, struct cw_decision *out)
{
	if (cw_path_classify(ctx, path) == CW_PATH_PSEUDO_DEVICE)
		return no_cap(out, path, "builtin:pseudo-device", "pseudo-devices need no capability");
	if (ctx && ctx->scratch && cw_path_is_under(path, ctx->scratch))
		return no_cap(out, path, "builtin:scratch", "the run's scratch directory needs no capability");
	/* op->alias: the file opened is the same inode as a secret capwatch
	 * knows under another name (a hard link): read as that secret. */
	bool secret = (cw_path_is_secret(ctx, path) &&
		       !(op->key_free && cw_path_secret_by_key_name(ctx, path))) || op->alias;
	int rc = by_profile(p, ctx, op, out, CW_CAP_FILESYSTEM_READ, secret, path, NULL, 0);
	if (op->alias && !cw_path_is_secret(ctx, path)) {
		size_t l = strlen(out->reason);
		snprintf(out->reason + l, sizeof out->reason - l, " (%s)", op->alias);
	}
	return rc;
}

static int rank(cw_verdict v)
{
	return v == CW_DENY ? 2 : v == CW_ASK ? 1 : 0;
}

/* rename and link: both ends are written; the stricter decision stands. */
static int decide_rename(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
			 const char *from, const char *to, struct cw_decision *out)
{
	struct cw_decision second;
	memset(&second, 0, sizeof second);
	decide_write(p, ctx, op, from, out);
	decide_write(p, ctx, op, to, &second);
	/* equal verdicts: report the end that is flagged, or that needs a
	 * capability at all, so that the record shows the sensitive write */
	bool stricter = rank(second.verdict) > rank(out->verdict);
	bool tie = second.verdict == out->verdict;
	if (tie && rank(second.profile_verdict) != rank(out->profile_verdict))
		stricter = rank(second.profile_verdict) > rank(out->profile_verdict);
	else if (tie && second.flagged != out->flagged)
		stricter = second.flagged;
	else if (tie)
		stricter = out->cap == CW_CAP_NONE && second.cap != CW_CAP_NONE;
	if (stricter)
		*out = second;

	/* Renaming or linking a secret (or a directory whose secrets are
	 * secrets only where they lie) makes it readable under another name:
	 * it is also a secret read of the source (contract section 2). With
	 * RENAME_EXCHANGE each end moves to the other's name. The stricter
	 * decision stands; on a tie the secret read is what the record shows,
	 * unless it is the write that is flagged. */
	const char *src = cw_path_secret_moved(ctx, op->secret_src ? op->secret_src : from, to) ? from :
			  op->exchange && cw_path_secret_moved(ctx, op->secret_dst ? op->secret_dst : to, from) ? to
														 : NULL;
	if (src) {
		struct cw_decision sec;
		memset(&sec, 0, sizeof sec);
		by_profile(p, ctx, op, &sec, CW_CAP_FILESYSTEM_READ, true, src, NULL, 0);
		size_t l = strlen(sec.reason);
		snprintf(sec.reason + l, sizeof sec.reason - l,
			 " (%s it makes it readable under another name)",
			 op->syscall && strstr(op->syscall, "link") ? "linking" : "renaming");
		bool take = rank(sec.verdict) > rank(out->verdict);
		if (rank(sec.verdict) == rank(out->verdict))
			take = rank(sec.profile_verdict) >= rank(out->profile_verdict) &&
			       (sec.flagged || !out->flagged);
		if (take)
			*out = sec;
	}
	return 0;
}

static int decide_net(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
		      struct cw_decision *out)
{
	const struct sockaddr *sa = op->addr;
	size_t len = op->addrlen;
	cw_addr_class c = cw_addr_classify(sa, len);
	bool binding = op->kind == CW_OP_BIND || op->kind == CW_OP_LISTEN;

	/* AF_UNSPEC is not always harmless: udp_sendmsg() reads sin_addr and
	 * sends to it, and inet_bind() binds INADDR_ANY. Decide those as the
	 * IPv4 address the kernel will use. connect(AF_UNSPEC) only
	 * dissolves an association. */
	struct sockaddr_in as_inet;
	if (c == CW_ADDR_UNSPEC && (op->kind == CW_OP_SEND || binding) &&
	    len >= sizeof as_inet) {
		memcpy(&as_inet, sa, sizeof as_inet);
		as_inet.sin_family = AF_INET;
		sa = (const struct sockaddr *)&as_inet;
		len = sizeof as_inet;
		c = cw_addr_classify(sa, len);
	}

	char text[CW_SCOPE_MAX];
	if (cw_addr_format(sa, len, text, sizeof text) < 0)
		return unclassified(op, out, "address too long to format");
	/* Route queries (ip addr, getifaddrs, if_nameindex) by a command the
	 * kernel lets only read: its rtnetlink refuses every change without
	 * CAP_NET_ADMIN of the socket's opener. */
	if (op->netlink_route_unprivileged && sa && len >= sizeof(sa_family_t) && sa->sa_family == AF_NETLINK &&
	    op->kind != CW_OP_LISTEN)
		return no_cap(out, text, "builtin:netlink-route-read",
			      "a NETLINK_ROUTE socket of a command without CAP_NET_ADMIN only reads");

	switch (c) {
	case CW_ADDR_LOOPBACK:
		return by_profile(p, ctx, op, out, CW_CAP_ISOLATED_LOOPBACK, false, text, sa, len);
	case CW_ADDR_ANY:
		return by_profile(p, ctx, op, out,
				  binding ? CW_CAP_HOST_VISIBLE_BINDING : CW_CAP_ISOLATED_LOOPBACK,
				  false, text, sa, len);
	case CW_ADDR_EXTERNAL:
		return by_profile(p, ctx, op, out,
				  binding ? CW_CAP_HOST_VISIBLE_BINDING : CW_CAP_EXTERNAL_NETWORK,
				  false, text, sa, len);
	case CW_ADDR_UNIX_PATH: {
		/* Relative socket paths cannot be placed: they count as outside. */
		char path[4096];
		const char *raw = text + 5; /* after "unix:" */
		bool placed = raw[0] == '/' && cw_path_normalize(NULL, raw, path, sizeof path) == 0;
		if (binding) {
			/* bind creates the socket file */
			if (!placed)
				return by_profile(p, ctx, op, out, CW_CAP_UNRESTRICTED, false, raw, NULL, 0);
			return decide_write(p, ctx, op, path, out);
		}
		char scope[CW_SCOPE_MAX];
		snprintf(scope, sizeof scope, "unix:%s", placed ? path : raw);
		/* The socket file was not made by the supervised tree in this
		 * run (the supervisor saw no bind create it): its server is a
		 * process outside supervision, wherever the name is, and what
		 * it passes back (SCM_RIGHTS descriptors) is never decided. */
		if (op->alias) {
			int rc = by_profile(p, ctx, op, out, CW_CAP_PROCESS_CONTROL, false, scope, NULL, 0);
			size_t l = strlen(out->reason);
			snprintf(out->reason + l, sizeof out->reason - l,
				 " (%s: its server was not started under capwatch)", op->alias);
			return rc;
		}
		if (placed && ctx && ctx->scratch && cw_path_is_under(path, ctx->scratch))
			return no_cap(out, scope, "builtin:scratch",
				      "a socket in the run's scratch directory needs no capability");
		if (placed && cw_path_classify(ctx, path) == CW_PATH_WORKSPACE)
			return by_profile(p, ctx, op, out, CW_CAP_ISOLATED_LOOPBACK, false, scope, NULL, 0);
		return by_profile(p, ctx, op, out, CW_CAP_PROCESS_CONTROL, false, scope, NULL, 0);
	}
	case CW_ADDR_UNIX_ABSTRACT:
		/* abstract names live in the network namespace: any process
		 * there can reach them */
		return by_profile(p, ctx, op, out,
				  binding ? CW_CAP_HOST_VISIBLE_BINDING : CW_CAP_PROCESS_CONTROL,
				  false, text, sa, len);
	case CW_ADDR_UNIX_UNNAMED:
		/* A bind with no name is the kernel's autobind (unix_bind ->
		 * unix_autobind): the socket gets an abstract name "\0xxxxx"
		 * that any process of the network namespace can reach, as an
		 * explicit abstract name (red team 20, F4). The kernel picks
		 * the name, so the scope says so. A connect or send with no
		 * name fails (EINVAL), and listen() on an unbound socket too. */
		if (op->kind == CW_OP_BIND)
			return by_profile(p, ctx, op, out, CW_CAP_HOST_VISIBLE_BINDING, false,
					  "unix:@(autobind)", NULL, 0);
		return no_cap(out, text, "builtin:unnamed-socket",
			      "an unnamed unix socket address needs no capability");
	case CW_ADDR_UNSPEC:
		return no_cap(out, text, "builtin:unspec",
			      "AF_UNSPEC only dissolves an association; no capability needed");
	case CW_ADDR_OTHER:
		break;
	}
	return by_profile(p, ctx, op, out, CW_CAP_UNRESTRICTED, false, text, NULL, 0);
}

static int decide_op(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
		     struct cw_decision *out, const char *path, const char *path2);

int cw_policy_decide(const cw_profile *p, const struct cw_context *ctx,
		     const struct cw_op *op, struct cw_decision *out)
{
	if (!out)
		return -EINVAL;
	/* Not the whole scope: it is CW_SCOPE_MAX (64 KiB) long. */
	memset(out, 0, offsetof(struct cw_decision, scope) + 1);
	if (!op)
		return unclassified(NULL, out, "no operation");
	if (!p)
		return unclassified(op, out, "no profile");
	if ((unsigned)op->kind >= CW_OP__COUNT)
		return unclassified(NULL, out, "unknown operation kind");

	/* Paths up to CW_PATH_LONG_MAX (a cwd deeper than PATH_MAX): on the
	 * heap when longer than the usual. Normalizing an absolute path never
	 * makes it longer. */
	char spath[4096], spath2[4096];
	char *path = spath, *path2 = spath2;
	if (is_file_op(op->kind)) {
		/* Normalize again: a stray ".." must not carry a path out of a
		 * root it was checked against. Relative paths are the caller's
		 * bug: they cannot be placed. */
		if (!op->path || op->path[0] != '/')
			return unclassified(op, out, op->path ? "relative path" : "no path");
		size_t need = strlen(op->path) + 1;
		if (need > CW_PATH_LONG_MAX)
			return unclassified(op, out, "path too long");
		if (need > sizeof spath && !(path = malloc(need)))
			return unclassified(op, out, "out of memory");
		int rc = cw_path_normalize(NULL, op->path, path, need);
		if (rc < 0) {
			if (path != spath)
				free(path);
			return unclassified(op, out, "path too long");
		}
	}
	if (op->kind == CW_OP_RENAME && op->path2 && op->path2[0] == '/') {
		size_t need = strlen(op->path2) + 1;
		if (need > sizeof spath2)
			path2 = need > CW_PATH_LONG_MAX ? NULL : malloc(need);
		if (!path2 || cw_path_normalize(NULL, op->path2, path2, need) < 0) {
			if (path != spath)
				free(path);
			if (path2 && path2 != spath2)
				free(path2);
			return unclassified(op, out, "path too long");
		}
	}
	int rc = decide_op(p, ctx, op, out, path, path2);
	if (path != spath)
		free(path);
	if (path2 != spath2)
		free(path2);
	return rc;
}

static int decide_op(const cw_profile *p, const struct cw_context *ctx, const struct cw_op *op,
		     struct cw_decision *out, const char *path, const char *path2)
{
	switch (op->kind) {
	case CW_OP_OPEN_READ:
		return decide_read(p, ctx, op, path, out);
	case CW_OP_OPEN_WRITE:
	case CW_OP_FS_WRITE:
	case CW_OP_SYMLINK: /* path is the new link; the target text is not written */
		return decide_write(p, ctx, op, path, out);
	case CW_OP_RENAME:
		if (!op->path2 || op->path2[0] != '/')
			return unclassified(op, out, op->path2 ? "relative second path" : "no second path");
		return decide_rename(p, ctx, op, path, path2, out);
	case CW_OP_EXEC:
		return by_profile(p, ctx, op, out, CW_CAP_PROCESS_SPAWN, false, path, NULL, 0);
	case CW_OP_CONNECT:
	case CW_OP_SEND:
	case CW_OP_BIND:
	case CW_OP_LISTEN:
		if (!op->addr)
			return unclassified(op, out, "no address");
		return decide_net(p, ctx, op, out);
	case CW_OP_SIGNAL:
	case CW_OP_PROC_ACCESS: {
		char pid[24];
		snprintf(pid, sizeof pid, "%d", op->target_pid);
		if (op->target_in_tree)
			return no_cap(out, pid, "builtin:own-tree",
				      "processes of the supervised tree may act on each other");
		return by_profile(p, ctx, op, out, CW_CAP_PROCESS_CONTROL, false, pid, NULL, 0);
	}
	case CW_OP_ENV:
		if (!op->env_names)
			return unclassified(op, out, "no variable names");
		if (strlen(op->env_names) >= CW_SCOPE_MAX)
			return unclassified(op, out, "variable list too long");
		return by_profile(p, ctx, op, out, CW_CAP_ENVIRONMENT, false, op->env_names, NULL, 0);
	case CW_OP_ESCAPE_SYSCALL:
		if (!op->syscall || !*op->syscall)
			return unclassified(op, out, "no system call name");
		return by_profile(p, ctx, op, out, CW_CAP_UNRESTRICTED, false, op->syscall, NULL, 0);
	case CW_OP__COUNT:
		break;
	}
	return unclassified(NULL, out, "unknown operation kind");
}
