#ifndef CAPWATCH_PATH_H
#define CAPWATCH_PATH_H
/* Lexical path handling and classification. No syscalls: the supervisor
 * resolves symlinks in the target's context first, then asks here. */
#include <stdbool.h>
#include <stddef.h>

struct cw_context;

/* Join PATH to BASE (an absolute directory; ignored when PATH is absolute)
 * and collapse ".", ".." and repeated or trailing slashes lexically, as the
 * kernel would for a symlink-free tree ("/.." is "/"). Any bytes other than
 * '/' and NUL are kept as they are (non-UTF-8, newlines).
 * Returns 0, -EINVAL (relative PATH with no absolute BASE, or empty PATH) or
 * -ENAMETOOLONG (result does not fit OUTSZ). */
int cw_path_normalize(const char *base, const char *path, char *out, size_t outsz);

/* The same join, dropping only "." components and repeated or trailing
 * slashes: ".." stays, so the result names every directory the kernel
 * walks for PATH, a symlink followed by ".." included ("/ws/sub/../r"
 * keeps "/ws/sub"). For names that are protected through the directories
 * above them (cw_path_holds_protected), never for deciding a path. */
int cw_path_join(const char *base, const char *path, char *out, size_t outsz);

/* True when normalized absolute PATH equals ROOT or lies below it.
 * "/a/bc" is not under "/a/b". ROOT "/" contains everything. */
bool cw_path_is_under(const char *path, const char *root);

typedef enum cw_path_class {
	CW_PATH_PSEUDO_DEVICE, /* /dev/null, /dev/zero, /dev/tty, /dev/stdout, /dev/fd/N, /dev/pts/N...: no capability */
	CW_PATH_SCRATCH,       /* under the run's scratch TMPDIR: no capability */
	CW_PATH_PROTECTED,     /* .git internals, .capwatch/, report/trace/profile files */
	CW_PATH_WORKSPACE,     /* inside a workspace root */
	CW_PATH_OUTSIDE,       /* anywhere else */
} cw_path_class;

/* Classify a normalized absolute path as a write target. Order of precedence:
 * pseudo-device, protected, scratch, workspace, outside. */
cw_path_class cw_path_classify(const struct cw_context *ctx, const char *path);

/* PATH (normalized, absolute) is a directory above one of the run's own
 * protected files (ctx->protected_files: the report, the trace, the
 * profile files): moving or removing that name would let another file
 * take the protected file's name (red team 22). */
bool cw_path_holds_protected(const struct cw_context *ctx, const char *path);

/* A home directory's secret places, relative to it and with a leading
 * '/' (contract section 2), each list ending with NULL: the directories,
 * whose whole tree is secret (/.ssh, /.aws, /.gnupg), and the credential
 * files (/.netrc, /.docker/config.json, ...). The one list the policy and
 * the supervisor's secret scan use. */
extern const char *const cw_home_secret_dirs[];
extern const char *const cw_home_secret_files[];

/* True when a normalized absolute path looks like a secret (contract section 2:
 * ~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, .env, .env.*, *.pem, id_* keys,
 * ~/.docker/config.json, ~/.kube/config, ~/.git-credentials). "~" is
 * ctx->home; the .ssh/.aws/... directories also count under any /home/X or /root. */
bool cw_path_is_secret(const struct cw_context *ctx, const char *path);

/* True when PATH is a secret only because its name may hold a private key
 * (*.pem, *.key outside the trust stores and the home's secret places):
 * the contract makes a certificate-only one not a secret, so the supervisor,
 * which reads the file, may clear it (cw_op.key_free). */
bool cw_path_secret_by_key_name(const struct cw_context *ctx, const char *path);

/* Would renaming or hard-linking FROM to TO (normalized absolute paths)
 * make a secret readable under a name that is not one? True when FROM is
 * a secret, or a directory whose secrets are secrets only by where they
 * lie (a home's ~/.ssh, ~/.aws, ~/.gnupg or credential files, the home
 * itself or a directory above them, any directory named .ssh), and TO
 * does not keep them secret. A directory that merely holds .env or *.pem
 * files moves them under the same names, which stay secrets: false. The
 * caller decides such a move as a secret read of FROM (contract section
 * 2: "including through another name"). */
bool cw_path_secret_moved(const struct cw_context *ctx, const char *from, const char *to);

/* fnmatch-like glob for profile scopes, implemented here (no libc locale):
 * "*" matches within one component, "**" across components, "?" one byte,
 * a leading "~/" is ctx->home. */
bool cw_path_glob_match(const struct cw_context *ctx, const char *glob, const char *path);

/* Longest glob (in tokens) cw_path_glob_match handles; longer ones match
 * nothing, and the profile parser rejects them. */
#define CW_GLOB_MAX 4096

#endif
