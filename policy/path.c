/* Lexical path handling: normalization, containment, classification of
 * write targets, secret-looking paths and profile globs.
 *
 * Everything here is lexical. The supervisor resolves symlinks and /proc
 * magic links in the target's context first (kernel-notes K16); a path that
 * reaches these functions is taken at its word. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "path.h"
#include "policy.h"

/* ---- normalization ----------------------------------------------------- */

struct norm {
	char *out;
	size_t outsz;
	size_t len;     /* bytes of OUT in use, without the NUL */
	size_t over;    /* components that did not fit and sit "above" OUT */
	bool keep_dotdot; /* cw_path_join: ".." is a component like any other */
};

static void norm_component(struct norm *n, const char *c, size_t clen)
{
	if (clen == 1 && c[0] == '.')
		return;
	if (clen == 2 && c[0] == '.' && c[1] == '.' && !n->keep_dotdot) {
		if (n->over) {
			n->over--;
			return;
		}
		/* "/.." is "/": popping at the root does nothing */
		while (n->len > 0 && n->out[n->len - 1] != '/')
			n->len--;
		if (n->len > 0)
			n->len--; /* the slash itself */
		return;
	}
	/* Once one component did not fit, later ones sit on top of it: they
	 * can only disappear again through "..", never be stored. */
	if (n->over || n->len + 1 + clen + 1 > n->outsz) {
		n->over++;
		return;
	}
	n->out[n->len++] = '/';
	memcpy(n->out + n->len, c, clen);
	n->len += clen;
}

static void norm_feed(struct norm *n, const char *p)
{
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != '/')
			e++;
		norm_component(n, p, (size_t)(e - p));
		p = e;
	}
}

static int norm_run(const char *base, const char *path, char *out, size_t outsz, bool keep_dotdot)
{
	if (!path || !*path || !out || outsz == 0)
		return -EINVAL;
	if (path[0] != '/' && (!base || base[0] != '/'))
		return -EINVAL;
	struct norm n = { .out = out, .outsz = outsz, .keep_dotdot = keep_dotdot };
	if (path[0] != '/')
		norm_feed(&n, base);
	norm_feed(&n, path);
	if (n.over)
		return -ENAMETOOLONG;
	if (n.len == 0) {
		if (outsz < 2)
			return -ENAMETOOLONG;
		out[n.len++] = '/';
	}
	out[n.len] = '\0';
	return 0;
}

int cw_path_normalize(const char *base, const char *path, char *out, size_t outsz)
{
	return norm_run(base, path, out, outsz, false);
}

int cw_path_join(const char *base, const char *path, char *out, size_t outsz)
{
	return norm_run(base, path, out, outsz, true);
}

/* ---- containment --------------------------------------------------------- */

/* ROOT's length without trailing slashes ("/" counts as 0). */
static size_t root_len(const char *root)
{
	size_t rl = strlen(root);
	while (rl > 0 && root[rl - 1] == '/')
		rl--;
	return rl;
}

bool cw_path_is_under(const char *path, const char *root)
{
	if (!path || !root || path[0] != '/' || root[0] != '/')
		return false;
	size_t rl = root_len(root);
	if (strncmp(path, root, rl) != 0)
		return false;
	return path[rl] == '\0' || path[rl] == '/';
}

/* ---- classification ------------------------------------------------------ */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Paths whose writes need no capability. The fd directories count only
 * with a single numeric component after them: "/proc/self/fd/3/x" goes
 * *through* a directory descriptor to a real file and is classified as such. */
static bool is_pseudo_device(const char *path)
{
	static const char *const exact[] = {
		"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
		"/dev/tty", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/ptmx",
		"/dev/pts/ptmx",
	};
	static const char *const numbered[] = {
		"/dev/fd/", "/dev/pts/", "/proc/self/fd/", "/proc/thread-self/fd/",
	};
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(path, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
		size_t l = strlen(numbered[i]);
		if (strncmp(path, numbered[i], l) == 0 && all_digits(path + l))
			return true;
	}
	return false;
}

/* Does any component of PATH equal NAME? */
static bool has_component(const char *path, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = path; *p; ) {
		while (*p == '/')
			p++;
		const char *e = p;
		while (*e && *e != '/')
			e++;
		if ((size_t)(e - p) == nl && memcmp(p, name, nl) == 0)
			return true;
		p = e;
	}
	return false;
}

/* Below a ".git" component, what makes git run code (contract section 2):
 * the ".git" entry itself (deleting or renaming it), config,
 * config.worktree, hooks/, info/attributes, and the same in the git
 * directories of submodules and worktrees (modules/NAME/..., worktrees/
 * NAME/...), plus the directories that hold them (info, hooks, modules,
 * worktrees, a module's or worktree's own directory), so that none can be
 * planted by renaming a prepared directory into place, and a worktree's
 * commondir/gitdir, which name the git directory git then reads. Objects,
 * refs, the index, logs are ordinary repository writes. REST is what
 * follows ".git", without its slash; "" for the entry itself. */
static bool git_runs_code(const char *rest)
{
	for (;;) {
		if (!*rest)
			return true;
		size_t skip = strncmp(rest, "modules/", 8) == 0 ? 8 : strncmp(rest, "worktrees/", 10) == 0 ? 10 : 0;
		if (!skip)
			break;
		const char *slash = strchr(rest + skip, '/');
		if (!slash)
			return true; /* a module's or worktree's git directory itself */
		rest = slash + 1;
	}
	static const char *const exact[] = {
		"config", "config.worktree", "info", "info/attributes", "hooks", "modules", "worktrees",
		"commondir", "gitdir",
	};
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(rest, exact[i]) == 0)
			return true;
	return strncmp(rest, "hooks/", 6) == 0;
}

/* A ".git" component whose internals make git run code (git_runs_code);
 * ".gitignore", ".github/" and ".gitmodules" are ordinary files. */
static bool git_protected(const char *path)
{
	for (const char *p = path; *p; ) {
		while (*p == '/')
			p++;
		const char *e = p;
		while (*e && *e != '/')
			e++;
		if (e - p == 4 && memcmp(p, ".git", 4) == 0) {
			const char *rest = *e ? e + 1 : e;
			while (*rest == '/')
				rest++;
			if (git_runs_code(rest))
				return true;
		}
		p = e;
	}
	return false;
}

/* What makes git run code (git_protected), and any ".capwatch" directory,
 * wherever it is. */
static bool is_protected(const struct cw_context *ctx, const char *path)
{
	if (git_protected(path) || has_component(path, ".capwatch"))
		return true;
	if (ctx)
		for (size_t i = 0; i < ctx->nprotected; i++)
			if (ctx->protected_files[i] && strcmp(path, ctx->protected_files[i]) == 0)
				return true;
	return false;
}

cw_path_class cw_path_classify(const struct cw_context *ctx, const char *path)
{
	if (!path || path[0] != '/')
		return CW_PATH_OUTSIDE;
	if (is_pseudo_device(path))
		return CW_PATH_PSEUDO_DEVICE;
	if (is_protected(ctx, path))
		return CW_PATH_PROTECTED;
	if (ctx && ctx->scratch && cw_path_is_under(path, ctx->scratch))
		return CW_PATH_SCRATCH;
	if (ctx)
		for (size_t i = 0; i < ctx->nroots; i++)
			if (ctx->roots[i] && cw_path_is_under(path, ctx->roots[i]))
				return CW_PATH_WORKSPACE;
	return CW_PATH_OUTSIDE;
}

bool cw_path_holds_protected(const struct cw_context *ctx, const char *path)
{
	if (!ctx || !path || path[0] != '/')
		return false;
	for (size_t i = 0; i < ctx->nprotected; i++) {
		const char *f = ctx->protected_files[i];
		if (f && strcmp(f, path) != 0 && cw_path_is_under(f, path))
			return true;
	}
	return false;
}

/* ---- secrets ------------------------------------------------------------- */

const char *const cw_home_secret_dirs[] = { "/.ssh", "/.aws", "/.gnupg", NULL };
const char *const cw_home_secret_files[] = {
	"/.netrc", "/.docker/config.json", "/.kube/config", "/.git-credentials", NULL,
};

/* Below a home directory: REL starts with '/'. */
static bool home_relative_secret(const char *rel)
{
	for (size_t i = 0; cw_home_secret_dirs[i]; i++)
		if (cw_path_is_under(rel, cw_home_secret_dirs[i]))
			return true;
	for (size_t i = 0; cw_home_secret_files[i]; i++)
		if (strcmp(rel, cw_home_secret_files[i]) == 0)
			return true;
	return false;
}

static bool under_home_secret(const char *path, const char *home)
{
	size_t hl = root_len(home);
	if (hl == 0 || strncmp(path, home, hl) != 0 || path[hl] != '/')
		return false;
	return home_relative_secret(path + hl);
}

static bool ends_with(const char *s, size_t sl, const char *suffix)
{
	size_t l = strlen(suffix);
	return sl >= l && memcmp(s + sl - l, suffix, l) == 0;
}

static bool in_public_trust_store(const char *path)
{
	static const char *const stores[] = {
		"/etc/ssl/certs", "/usr/share/ca-certificates",
		"/usr/local/share/ca-certificates", "/etc/ca-certificates",
		"/etc/pki/ca-trust", "/etc/pki/tls/certs", "/usr/lib/ssl/certs",
	};
	for (size_t i = 0; i < sizeof stores / sizeof stores[0]; i++)
		if (cw_path_is_under(path, stores[i]))
			return true;
	return false;
}

/* Secret by where it lies: below ~/.ssh, ~/.aws, ~/.gnupg, or one of the
 * credential files of a home directory (ctx->home, /root, any /home/X). */
static bool secret_by_home(const struct cw_context *ctx, const char *path)
{
	if (ctx && ctx->home && ctx->home[0] == '/' && under_home_secret(path, ctx->home))
		return true;
	if (under_home_secret(path, "/root"))
		return true;
	if (strncmp(path, "/home/", 6) == 0) {
		/* /home/X/... for any single component X */
		const char *user = path + 6;
		const char *slash = strchr(user, '/');
		if (slash && slash > user && home_relative_secret(slash))
			return true;
	}
	return false;
}

/* A name that may hold a private key block: *.pem, *.key. */
static bool is_key_name(const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	size_t bl = strlen(base);
	return (bl > 4 && (ends_with(base, bl, ".pem") || ends_with(base, bl, ".key")));
}

/* Secret by its own name, wherever it lies (.env, *.pem, *.key, id_* keys). */
static bool secret_by_name(const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	size_t bl = strlen(base);
	/* .env and .env.* anywhere; ".envrc" and "env" are not (see man
	 * page), nor the committed templates (.env.example, .env.sample,
	 * .env.template, .env.dist, .env.defaults) */
	if (strcmp(base, ".env") == 0)
		return true;
	if (strncmp(base, ".env.", 5) == 0) {
		static const char *const templates[] = { "example", "sample", "template", "dist", "defaults" };
		for (size_t i = 0; i < sizeof templates / sizeof templates[0]; i++)
			if (strcmp(base + 5, templates[i]) == 0)
				return false;
		return true;
	}
	/* *.pem and *.key anywhere, except in the system's public trust
	 * stores: CA certificates are public, and TLS clients (python, curl)
	 * read them on every connection. Private keys live elsewhere
	 * (/etc/ssl/private). The supervisor may clear such a name by its
	 * content (cw_path_secret_by_key_name, op.key_free). */
	if (is_key_name(path) && !in_public_trust_store(path))
		return true;
	static const char *const keys[] = {
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(base, keys[i]) == 0)
			return true;
	/* any id_* private key in a directory named .ssh; public halves are not */
	if (strncmp(base, "id_", 3) == 0 && !ends_with(base, bl, ".pub")) {
		const char *parent_end = base - 1; /* the slash before BASE */
		const char *p = parent_end;
		while (p > path && p[-1] != '/')
			p--;
		if (parent_end - p == 4 && memcmp(p, ".ssh", 4) == 0)
			return true;
	}
	return false;
}

bool cw_path_is_secret(const struct cw_context *ctx, const char *path)
{
	if (!path || path[0] != '/')
		return false;
	return secret_by_home(ctx, path) || secret_by_name(path);
}

bool cw_path_secret_by_key_name(const struct cw_context *ctx, const char *path)
{
	if (!path || path[0] != '/' || secret_by_home(ctx, path))
		return false;
	if (!is_key_name(path) || in_public_trust_store(path))
		return false;
	/* id_rsa.pem in a .ssh directory is a secret by its place too. */
	const char *base = strrchr(path, '/') + 1;
	return strncmp(base, "id_", 3) != 0;
}

/* ---- secrets under another name (rename, link) ---------------------------- */

/* Is PATH HOME itself, an ancestor of it, or an ancestor-or-self of one of
 * its secret locations? */
static bool holds_home_secrets(const char *path, const char *home)
{
	if (!home || home[0] != '/')
		return false;
	if (cw_path_is_under(home, path))
		return true; /* HOME or above it */
	size_t hl = root_len(home);
	if (strncmp(path, home, hl) != 0 || path[hl] != '/')
		return false;
	const char *rel = path + hl;
	for (size_t i = 0; cw_home_secret_dirs[i]; i++)
		if (cw_path_is_under(cw_home_secret_dirs[i], rel))
			return true;
	for (size_t i = 0; cw_home_secret_files[i]; i++)
		if (cw_path_is_under(cw_home_secret_files[i], rel))
			return true;
	return false;
}

static bool holds_any_home_secrets(const struct cw_context *ctx, const char *path)
{
	if (ctx && holds_home_secrets(path, ctx->home))
		return true;
	if (holds_home_secrets(path, "/root"))
		return true;
	if (strcmp(path, "/home") == 0)
		return true;
	if (strncmp(path, "/home/", 6) == 0) {
		const char *user = path + 6;
		const char *slash = strchr(user, '/');
		if (!slash)
			return *user != '\0'; /* /home/X itself */
		char home[4096];
		size_t l = (size_t)(slash - path);
		if (slash == user || l >= sizeof home)
			return false;
		memcpy(home, path, l);
		home[l] = '\0';
		return holds_home_secrets(path, home);
	}
	return false;
}

/* Is everything below PATH a secret, whatever its name (below ~/.ssh,
 * ~/.aws or ~/.gnupg of a home)? */
static bool whole_tree_secret(const struct cw_context *ctx, const char *path)
{
	const char *homes[2] = { ctx ? ctx->home : NULL, "/root" };
	char slash_home[4096];
	if (strncmp(path, "/home/", 6) == 0) {
		const char *slash = strchr(path + 6, '/');
		if (slash && slash > path + 6 && (size_t)(slash - path) < sizeof slash_home) {
			memcpy(slash_home, path, (size_t)(slash - path));
			slash_home[slash - path] = '\0';
		} else {
			slash_home[0] = '\0';
		}
	} else {
		slash_home[0] = '\0';
	}
	for (int h = 0; h < 3; h++) {
		const char *home = h < 2 ? homes[h] : slash_home;
		if (!home || home[0] != '/')
			continue;
		size_t hl = root_len(home);
		if (strncmp(path, home, hl) != 0 || path[hl] != '/')
			continue;
		for (size_t i = 0; cw_home_secret_dirs[i]; i++)
			if (cw_path_is_under(path + hl, cw_home_secret_dirs[i]))
				return true;
	}
	return false;
}

static bool base_is(const char *path, const char *name)
{
	const char *b = strrchr(path, '/');
	return b && strcmp(b + 1, name) == 0;
}

bool cw_path_secret_moved(const struct cw_context *ctx, const char *from, const char *to)
{
	if (!from || from[0] != '/' || !to || to[0] != '/')
		return false;
	/* A home's secret tree, one of its credential files, or a directory
	 * holding them: they stay secrets only inside a secret tree (a
	 * directory may be what moves, so a secret-looking name is not
	 * enough). */
	if (secret_by_home(ctx, from) || holds_any_home_secrets(ctx, from))
		return !whole_tree_secret(ctx, to);
	/* A directory named .ssh: the id_* keys in it are secrets by that
	 * name only. */
	if (base_is(from, ".ssh"))
		return !base_is(to, ".ssh") && !whole_tree_secret(ctx, to);
	/* A secret by its own name (.env, *.pem, id_*): what is inside a
	 * directory of such a name is not a secret by it, so only the file
	 * counts, and it stays one under another secret name. */
	if (secret_by_name(from))
		return !cw_path_is_secret(ctx, to);
	/* Anything else: the secrets below it keep their names (.env, id_rsa,
	 * *.pem are secrets wherever they lie). */
	return false;
}

/* ---- globs --------------------------------------------------------------- */

/* The glob is compiled to tokens and run as an NFA over the subject: time
 * O(|glob| x |path|), no recursion, no backtracking. (A backtracking
 * matcher is exponential in the number of stars, and the path is chosen
 * by the supervised program.) */
enum { T_LIT, T_ANY1, T_STAR, T_DSTAR };

static void glob_closure(const unsigned char *kind, const char *lit, size_t nt,
			 unsigned char *st, bool at_component_start)
{
	/* epsilon moves only go forward, so one ascending pass suffices */
	for (size_t i = 0; i < nt; i++) {
		if (!st[i])
			continue;
		if (kind[i] == T_STAR || kind[i] == T_DSTAR)
			st[i + 1] = 1;
		/* "**" followed by "/" at a component start may stand for no directory */
		if (kind[i] == T_DSTAR && at_component_start && i + 1 < nt &&
		    kind[i + 1] == T_LIT && lit[i + 1] == '/')
			st[i + 2] = 1;
	}
}

static bool gmatch(const char *g, const char *s)
{
	unsigned char kind[CW_GLOB_MAX];
	char lit[CW_GLOB_MAX];
	unsigned char a[CW_GLOB_MAX + 1], b[CW_GLOB_MAX + 1];
	size_t nt = 0;

	kind[0] = T_LIT; /* only to quiet -Wmaybe-uninitialized for the empty glob */
	lit[0] = '\0';
	for (const char *p = g; *p; ) {
		if (nt >= CW_GLOB_MAX)
			return false; /* rejected by the profile parser long before */
		if (*p == '*') {
			if (p[1] == '*') {
				while (*p == '*')
					p++;
				kind[nt++] = T_DSTAR;
			} else {
				p++;
				kind[nt++] = T_STAR;
			}
			continue;
		}
		if (*p == '?') {
			p++;
			kind[nt++] = T_ANY1;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		kind[nt] = T_LIT;
		lit[nt++] = *p++;
	}

	unsigned char *cur = a, *nxt = b;
	memset(cur, 0, nt + 1);
	cur[0] = 1;
	glob_closure(kind, lit, nt, cur, true);
	for (const char *t = s; *t; t++) {
		char c = *t;
		bool any = false;
		memset(nxt, 0, nt + 1);
		for (size_t i = 0; i < nt; i++) {
			if (!cur[i])
				continue;
			switch (kind[i]) {
			case T_LIT:
				if (c == lit[i])
					nxt[i + 1] = 1, any = true;
				break;
			case T_ANY1:
				if (c != '/')
					nxt[i + 1] = 1, any = true;
				break;
			case T_STAR:
				if (c != '/')
					nxt[i] = 1, any = true;
				break;
			case T_DSTAR:
				nxt[i] = 1, any = true;
				break;
			}
		}
		if (!any)
			return false;
		glob_closure(kind, lit, nt, nxt, c == '/');
		unsigned char *tmp = cur;
		cur = nxt;
		nxt = tmp;
	}
	if (cur[nt])
		return true;
	/* a trailing slash-double-star also names the directory itself */
	return nt >= 2 && cur[nt - 2] && kind[nt - 2] == T_LIT && lit[nt - 2] == '/' &&
	       kind[nt - 1] == T_DSTAR;
}

bool cw_path_glob_match(const struct cw_context *ctx, const char *glob, const char *path)
{
	if (!glob || !path)
		return false;
	if (glob[0] == '~' && (glob[1] == '/' || glob[1] == '\0')) {
		if (!ctx || !ctx->home || ctx->home[0] != '/')
			return false;
		size_t hl = root_len(ctx->home);
		if (strncmp(path, ctx->home, hl) != 0)
			return false;
		if (glob[1] == '\0')
			return path[hl] == '\0';
		if (path[hl] != '/' && !(path[hl] == '\0' && strcmp(glob + 1, "/**") == 0))
			return false;
		return gmatch(glob + 1, path + hl);
	}
	return gmatch(glob, path);
}
