/* Landlock backstop on the command (see landlock.h). */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <cjson/cJSON.h>
#include "supervisor/landlock.h"
#include "supervisor/state.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif

/* The ruleset attribute as of ABI 6 (handled_access_net, scoped). */
struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define FS_WRITE_V1 (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
		     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
		     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
		     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
		     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)
/* Rights a rule on a single file (not a directory) may carry. */
#define FS_FILE_RIGHTS (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)

/* The run's ruleset and what the report says of it (run->landlock), from
 * cw_landlock_prepare to cw_landlock_free. */
struct cw_landlock {
	int fd;              /* the ruleset, O_CLOEXEC; the child uses it before exec */
	char layer[48];      /* "" when not applied */
	char note[512];
	bool fs_open;        /* fs part left out: writes may be allowed anywhere */
	uint64_t dir_rights; /* the write rights granted beneath /dev */
	bool reads;          /* READ_FILE handled: granted beneath every entry of
				"/" but /dev, and (in the child) on the tree's
				harmless devices: no terminal but the tree's opens
				for reading (CAPWATCH_KERNEL_READS, kernel.h) */
};

bool cw_landlock_reads(const struct cw_run *run)
{
	return run->landlock && run->landlock->reads;
}

bool cw_landlock_fs_unbounded(const struct cw_run *run)
{
	return run->landlock && run->landlock->fs_open;
}

const char *cw_landlock_layer(const struct cw_run *run)
{
	const struct cw_landlock *L = run->landlock;
	return L && L->layer[0] ? L->layer : NULL;
}

const char *cw_landlock_note(const struct cw_run *run)
{
	return run->landlock ? run->landlock->note : "";
}

int cw_landlock_child(const struct cw_run *run)
{
	const struct cw_landlock *L = run->landlock;
	if (!L || L->fd < 0)
		return 0;
	if (L->reads) {
		/* The tree's /dev (made by cw_kernel_child): its devices, and
		 * not /dev/pts, where another session's terminal is (its
		 * reads have no fanotify event; e131). Async-signal-safe. */
		/* And the tree's /proc, mounted over the host's: Landlock does
		 * not look at the rules of a mount point it walks up through,
		 * so the host's /proc rule does not reach it. */
		static const char *const dev[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
						   "/dev/urandom", "/dev/tty", "/dev/shm", "/dev/mqueue",
						   "/proc" };
		for (size_t i = 0; i < CW_ARRAY_SIZE(dev); i++) {
			int fd = open(dev[i], O_PATH | O_CLOEXEC);
			if (fd < 0)
				continue;
			struct stat st;
			struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
								 .parent_fd = fd };
			if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && strcmp(dev[i], "/proc") != 0)
				pb.allowed_access |= L->dir_rights;
			long r = syscall(SYS_landlock_add_rule, L->fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
			close(fd);
			if (r < 0)
				return -errno;
		}
	}
	if (syscall(SYS_landlock_restrict_self, L->fd, 0) < 0)
		return -errno;
	close(L->fd);
	return 0;
}

/* The slot of the expanded profile: true when it is "deny" with no allow
 * or ask scope (nothing could ever be allowed in it). */
static bool slot_only_denies(const cJSON *caps, const char *slot)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(caps, slot);
	if (cJSON_IsString(s))
		return strcmp(s->valuestring, "deny") == 0;
	if (!cJSON_IsObject(s))
		return false;
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, "default");
	if (!cJSON_IsString(d) || strcmp(d->valuestring, "deny") != 0)
		return false;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "allow");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(s, "ask");
	return cJSON_GetArraySize(a) == 0 && cJSON_GetArraySize(k) == 0;
}

/* ---- writes the profile may allow outside the workspace ---- */

#define MAX_OUTSIDE 64

struct outside {
	char *path[MAX_OUTSIDE]; /* owned; beneath each, writes are let through */
	size_t n;
	char why[160];           /* when the fs part cannot be built: why */
};

static void outside_free(struct outside *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->path[i]);
	o->n = 0;
}

/* The file or directory beneath which every path SCOPE (a profile path
 * glob: "/...", "~/..." or "*...", see capwatch-profile(5)) can match:
 * the literal part before the first wildcard, cut back to a whole
 * component, then back to the nearest ancestor that exists (a rule needs
 * an inode; creating the missing part is capwatch's to decide). Writes
 * under it are allowed to the kernel: wider than the glob, which is fine
 * for a backstop, as the supervisor still decides every write it sees.
 * Returns 0, -ENOENT when SCOPE is not a path (a system call name,
 * "family:N"), or -ERANGE when it can match anywhere. */
static int scope_base(const char *scope, const char *home, char *out, size_t n)
{
	size_t o = 0;
	const char *p = scope;
	bool glob = false;

	if (p[0] == '*')
		return -ERANGE; /* "**" or "*": in any directory */
	if (p[0] == '~' && p[1] == '/') {
		if (!home || home[0] != '/')
			return -ERANGE;
		o = (size_t)snprintf(out, n, "%s", home);
		if (o >= n)
			return -ERANGE;
		p++;
	} else if (p[0] != '/') {
		return -ENOENT;
	}
	for (; *p; p++) {
		if (*p == '*' || *p == '?') {
			glob = true;
			break;
		}
		if (*p == '\\' && p[1])
			p++;
		if (o + 1 >= n)
			return -ERANGE;
		out[o++] = *p;
	}
	out[o] = '\0';
	if (glob) {
		char *sl = strrchr(out, '/');
		if (!sl)
			return -ERANGE;
		sl[sl == out] = '\0'; /* "/a/b*" -> "/a"; "/x*" -> "/" */
	}
	struct stat st;
	while (lstat(out, &st) < 0 && strcmp(out, "/") != 0) {
		char *sl = strrchr(out, '/');
		sl[sl == out] = '\0';
	}
	/* "/" (or nothing left under it that exists) is everywhere */
	return strcmp(out, "/") == 0 ? -ERANGE : 0;
}

/* SLOT ("unrestricted") of the expanded profile: where its allow and ask
 * scopes (an ask may be approved during the run) may let a write through.
 * -ERANGE with O->why when that can be anywhere. */
static int outside_writes(const cJSON *caps, const char *home, struct outside *o)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(caps, "unrestricted");
	static const char *const lists[] = { "allow", "ask" };
	char base[4096];

	if (cJSON_IsString(s)) {
		if (strcmp(s->valuestring, "deny") == 0)
			return 0;
		snprintf(o->why, sizeof(o->why), "unrestricted is %s", s->valuestring);
		return -ERANGE;
	}
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(s, "default");
	if (!cJSON_IsObject(s) || !cJSON_IsString(d) || strcmp(d->valuestring, "deny") != 0) {
		snprintf(o->why, sizeof(o->why), "unrestricted is %s by default",
			 cJSON_IsString(d) ? d->valuestring : "not denied");
		return -ERANGE;
	}
	for (size_t l = 0; l < CW_ARRAY_SIZE(lists); l++) {
		const cJSON *it;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, lists[l])) {
			if (!cJSON_IsString(it))
				continue;
			int e = scope_base(it->valuestring, home, base, sizeof(base));
			if (e == -ENOENT)
				continue; /* a system call, not a path */
			if (e < 0) {
				snprintf(o->why, sizeof(o->why), "unrestricted %s scope \"%.100s\" can match anywhere",
					 lists[l], it->valuestring);
				return -ERANGE;
			}
			if (o->n == MAX_OUTSIDE) {
				snprintf(o->why, sizeof(o->why), "more than %d unrestricted path scopes",
					 MAX_OUTSIDE);
				return -ERANGE;
			}
			if (!(o->path[o->n] = strdup(base)))
				return -ENOMEM;
			o->n++;
		}
	}
	return 0;
}

static int add_path(int rs, const char *path, uint64_t access, bool file_ok)
{
	_cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (!file_ok)
			return -ENOTDIR;
		access &= FS_FILE_RIGHTS;
	}
	struct landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };
	if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		return -errno;
	return 0;
}

/* READ_FILE beneath every entry of "/" but /dev (CAPWATCH_KERNEL_READS;
 * the tree's /dev gets its rules in the child). 0 or -errno. */
static int grant_reads(int rs)
{
	DIR *d = opendir("/");
	if (!d)
		return -errno;
	int e = 0;
	struct dirent *de;
	while (e == 0 && (de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || strcmp(de->d_name, "dev") == 0)
			continue;
		char p[300];
		snprintf(p, sizeof(p), "/%s", de->d_name);
		_cleanup_close_ int fd = open(p, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue; /* a dangling symlink ("/lib64" -> nowhere): nothing to read */
		struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
							 .parent_fd = fd };
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			e = -errno;
	}
	closedir(d);
	return e;
}

void cw_landlock_free(struct cw_run *run)
{
	struct cw_landlock *L = run->landlock;
	if (!L)
		return;
	if (L->fd >= 0)
		close(L->fd);
	free(L);
	run->landlock = NULL;
}

void cw_landlock_prepare(struct cw_run *run)
{
	cw_landlock_free(run);
	struct cw_landlock *L = calloc(1, sizeof(*L));
	if (!L) {
		cw_warn("landlock not applied: out of memory");
		return;
	}
	L->fd = -1;
	run->landlock = L;
	if (run->opts->no_landlock) {
		snprintf(L->note, sizeof(L->note), "landlock disabled by --no-landlock");
		return;
	}
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		snprintf(L->note, sizeof(L->note), "landlock unavailable (%s)",
			 abi < 0 ? strerror(errno) : "no ABI");
		cw_debug("%s", L->note);
		return;
	}

	/* Which parts the profile lets us apply. In observe mode nothing is
	 * denied, so the kernel must not deny either. */
	bool fs = !run->observe, scope = !run->observe && abi >= 6, ws = true;
	struct outside out = { .n = 0 };
	_cleanup_free_ char *pj = cw_profile_to_json(run->profile);
	cJSON *root = pj ? cJSON_Parse(pj) : NULL;
	const cJSON *caps = root ? cJSON_GetObjectItemCaseSensitive(root, "capabilities") : NULL;
	if (!caps) {
		fs = scope = false;
	} else {
		/* Writes outside the workspace the profile may allow (or an
		 * approval may): beneath each such path too. Only when that
		 * could be anywhere is the fs part left out. */
		if (fs && outside_writes(caps, run->ctx.home, &out) < 0) {
			fs = false;
			L->fs_open = true;
		}
		/* Signals and connections outside the tree may be allowed. */
		if (!slot_only_denies(caps, "process_control"))
			scope = false;
		ws = !slot_only_denies(caps, "workspace_write");
	}
	cJSON_Delete(root);
	if (!fs && !scope) {
		snprintf(L->note, sizeof(L->note), "landlock ABI %ld not applied: %s%s", abi,
			 run->observe ? "observe mode" : "the profile may allow writes anywhere outside the workspace: ",
			 run->observe ? "" : out.why);
		cw_debug("%s", L->note);
		outside_free(&out);
		return;
	}

	struct ll_attr attr = { 0 };
	size_t attr_size = abi >= 6 ? sizeof(attr) : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
	uint64_t rights = 0;
	if (fs) {
		rights = FS_WRITE_V1;
		if (abi >= 2)
			rights |= LANDLOCK_ACCESS_FS_REFER;
		if (abi >= 3)
			rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
		if (run->kernel_reads)
			attr.handled_access_fs = rights | LANDLOCK_ACCESS_FS_READ_FILE;
		else
			attr.handled_access_fs = rights;
		/* Device nodes are handled but allowed nowhere: mknod is
		 * left to the kernel (CAP_MKNOD), and a block device made in
		 * the workspace would be a door to any disk. */
		rights &= ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	}
	/* Net (ABI 4) is left out on purpose: its rules are TCP ports only,
	 * while the profile's network rules are addresses and hosts, which
	 * the supervisor enforces itself on every connect and bind. */
	if (scope)
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
	if (rs < 0) {
		snprintf(L->note, sizeof(L->note), "landlock ABI %ld: create_ruleset: %s", abi, strerror(errno));
		cw_warn("%s", L->note);
		return;
	}
	if (fs) {
		int e = 0;
		if (ws)
			for (size_t i = 0; i < run->ctx.nroots && e == 0; i++)
				e = add_path(rs, run->ctx.roots[i], rights, false);
		if (e == 0 && run->scratch)
			e = add_path(rs, run->scratch, rights, false);
		if (e == 0)
			e = add_path(rs, "/dev", rights, false);
		if (e == 0 && run->kernel_reads) {
			L->dir_rights = rights;
			e = grant_reads(rs);
			L->reads = e == 0;
		}
		for (size_t i = 0; i < out.n && e == 0; i++)
			e = add_path(rs, out.path[i], rights, true);
		if (e < 0) {
			snprintf(L->note, sizeof(L->note), "landlock ABI %ld: adding a rule: %s", abi, strerror(-e));
			cw_warn("%s", L->note);
			close(rs);
			outside_free(&out);
			return;
		}
		/* "> /dev/stderr" reopens the file fd 2 is: keep that working
		 * for the files capwatch itself was given. */
		for (int fd = 0; fd <= 2; fd++) {
			char link[32];
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			struct stat st;
			if (stat(link, &st) == 0 && S_ISREG(st.st_mode))
				add_path(rs, link, rights, true);
		}
	}
	outside_free(&out);
	L->fd = rs;
	snprintf(L->layer, sizeof(L->layer), "landlock-abi%ld:%s%s%s", abi, fs ? "fs" : "",
		 fs && scope ? "+" : "", scope ? "scope" : "");
	if (!fs)
		snprintf(L->note, sizeof(L->note), "landlock fs rules not applied: the profile may allow "
			 "writes anywhere outside the workspace: %s", out.why);
	else if (!scope)
		snprintf(L->note, sizeof(L->note), abi < 6 ? "landlock scoping needs ABI 6" :
			 "landlock scoping not applied: the profile allows process_control");
	cw_debug("landlock: %s %s", L->layer, L->note);
}
