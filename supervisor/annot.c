/* The preload channel, receiving side (see annot.h and preload/proto.h):
 * putting the library into the command's environment, the channel's two
 * ends, and at each exec whether the new image can have the library.
 * The other parts: annot_channel.c (receiving: the trust model is there),
 * annot_symbols.c, annot_match.c; what they share is annot_impl.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "supervisor/annot.h"
#include "supervisor/annot_impl.h"
#include "supervisor/state.h"
#include "supervisor/ptrace.h"
#include "supervisor/log.h"
#include "supervisor/util.h"
#include "supervisor/hashkey.h"
#include "preload/proto.h"

#ifndef CW_PKGLIBDIR
#define CW_PKGLIBDIR "/usr/local/lib/capwatch"
#endif

/* ---- setup ---- */

static bool usable_lib(const char *p)
{
	struct stat st;
	/* LD_PRELOAD splits on ':' and ' ': such a path cannot be named. */
	return p[0] == '/' && !strpbrk(p, ": \t\n") && strlen(p) < PATH_MAX &&
	       stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* P passed usable_lib(): it fits. */
static void set_lib(char lib_path[PATH_MAX], const char *p)
{
	size_t n = strlen(p);
	memcpy(lib_path, p, n + 1);
}

/* CAPWATCH_PRELOAD=PATH names the library, =none (or empty) turns the
 * layer off; otherwise a build-tree copy next to the capwatch binary, then
 * the installed one. */
static bool find_lib(char lib_path[PATH_MAX])
{
	const char *e = getenv("CAPWATCH_PRELOAD");
	char exe[PATH_MAX], cand[PATH_MAX + 64];

	if (e) {
		if (!*e || strcmp(e, "none") == 0)
			return false;
		if (!usable_lib(e)) {
			cw_warn("CAPWATCH_PRELOAD=%s: not an absolute path to a readable file; preload off", e);
			return false;
		}
		set_lib(lib_path, e);
		return true;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof(cand), "%s/preload/.libs/%s", exe, LIB_NAME);
			if (usable_lib(cand)) {
				set_lib(lib_path, cand);
				return true;
			}
		}
	}
	snprintf(cand, sizeof(cand), "%s/%s", CW_PKGLIBDIR, LIB_NAME);
	if (usable_lib(cand)) {
		set_lib(lib_path, cand);
		return true;
	}
	cw_info("%s not found: no host names or call sites in this run", LIB_NAME);
	return false;
}

/* Put NAME=VALUE into the environment array, in place of an existing entry
 * of NAME (for LD_PRELOAD: ours first, the user's after it). */
static int env_set(char ***envp, const char *name, const char *value, bool prepend_list)
{
	size_t nl = strlen(name), n = 0, at = (size_t)-1;
	char *entry = NULL;
	for (char **e = *envp; e && *e; e++, n++)
		if (strncmp(*e, name, nl) == 0 && (*e)[nl] == '=')
			at = n;
	if (at != (size_t)-1 && prepend_list && (*envp)[at][nl + 1]) {
		if (asprintf(&entry, "%s=%s:%s", name, value, (*envp)[at] + nl + 1) < 0)
			return -ENOMEM;
	} else if (asprintf(&entry, "%s=%s", name, value) < 0) {
		return -ENOMEM;
	}
	if (at != (size_t)-1) {
		free((*envp)[at]);
		(*envp)[at] = entry;
		return 0;
	}
	char **ne = realloc(*envp, (n + 2) * sizeof(*ne));
	if (!ne) {
		free(entry);
		return -ENOMEM;
	}
	ne[n] = entry;
	ne[n + 1] = NULL;
	*envp = ne;
	return 0;
}

struct cw_annot *cw_annot_new(void)
{
	struct cw_annot *an = calloc(1, sizeof(*an));
	if (!an)
		return NULL;
	an->sup_fd = an->child_fd = -1;
	an->ring = calloc(RING, sizeof(*an->ring));
	an->names = calloc(NAMES, sizeof(*an->names));
	an->sym = cw_annot_symbols_new();
	cw_hash_key_random(&an->hkey);
	cw_hmap_init(&an->buckets, &an->hkey, sizeof(pid_t), sizeof(struct bucket), BUCKETS);
	if (!an->ring || !an->names || !an->sym) {
		cw_annot_symbols_free(an->sym);
		free(an->ring);
		free(an->names);
		free(an);
		return NULL;
	}
	return an;
}

int cw_annot_setup(struct cw_run *run)
{
	int sv[2];
	struct stat st;
	char v[64];
	char lib_path[PATH_MAX];

	if (!find_lib(lib_path))
		return 0;
	struct cw_annot *an = cw_annot_new();
	if (!an)
		return -ENOMEM;
	memcpy(an->lib_path, lib_path, sizeof(an->lib_path));
	run->annot = an;
	/* Datagrams keep message boundaries; both ends non-blocking: the
	 * sender never waits for us, we never wait for it. */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0) {
		cw_warn("socketpair for the preload channel: %s; preload off", strerror(errno));
		cw_annot_free(run);
		return 0;
	}
	an->sup_fd = sv[0];
	an->child_fd = sv[1];
	int one = 1, big = 1 << 20;
	if (setsockopt(an->sup_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    fstat(an->child_fd, &st) < 0) {
		cw_warn("preload channel setup: %s; preload off", strerror(errno));
		cw_annot_free(run);
		return 0;
	}
	if (setsockopt(an->child_fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(an->child_fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (setsockopt(an->sup_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(an->sup_fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	an->child_ino = (unsigned long)st.st_ino;
	/* FD:INODE: the preload talks only to this very socket, not to
	 * whatever a program later puts at that number. */
	snprintf(v, sizeof(v), "%d:%lu", CW_ANNOT_FD, an->child_ino);
	/* AddressSanitizer refuses to start when another library comes
	 * before its runtime in LD_PRELOAD's order; ours always does. The
	 * check is only about that order: turned off in front of the
	 * command's own ASAN_OPTIONS (later entries win, so an explicit
	 * setting of the command's stays). */
	if (env_set(&run->envp, "LD_PRELOAD", an->lib_path, true) < 0 ||
	    env_set(&run->envp, CW_ANNOT_ENV_FD, v, false) < 0 ||
	    env_set(&run->envp, "ASAN_OPTIONS", "verify_asan_link_order=0", true) < 0)
		goto oom;
	/* Whether reads are decided in the kernel (run->kernel_reads) is
	 * known only at the launch, after this: the entry is made with the
	 * preload's ":k" (proto.h) and cut at its ':', which the child puts
	 * back when it is so (cw_annot_child: no allocation after fork). */
	for (char **e = run->envp; *e; e++) {
		size_t nl = sizeof(CW_ANNOT_ENV_FD) - 1;
		if (strncmp(*e, CW_ANNOT_ENV_FD "=", nl + 1) == 0) {
			char *ne = realloc(*e, strlen(*e) + 3);
			if (!ne)
				goto oom;
			*e = ne;
			an->env_kflag = ne + strlen(ne);
			memcpy(an->env_kflag, ":k", 3);
			*an->env_kflag = '\0';
			break;
		}
	}
	an->enabled = true;
	cw_debug("preload %s, channel fd %d", an->lib_path, CW_ANNOT_FD);
	return 0;
oom:
	cw_annot_free(run);
	return -ENOMEM;
}

void cw_annot_child(const struct cw_run *run)
{
	const struct cw_annot *an = run->annot;
	if (!an || an->child_fd < 0)
		return;
	if (an->child_fd == CW_ANNOT_FD)
		fcntl(an->child_fd, F_SETFD, 0);
	else
		dup2(an->child_fd, CW_ANNOT_FD); /* the copy is not close-on-exec */
	/* Read-only opens are not notified: the preload sends no
	 * annotation for them (proto.h, ":k"). The child's copy. */
	if (run->kernel_reads && an->env_kflag)
		*an->env_kflag = ':';
}

int cw_annot_fd(struct cw_run *run)
{
	struct cw_annot *an = run->annot;
	if (!an)
		return -1;
	if (an->child_fd >= 0) {
		close(an->child_fd);
		an->child_fd = -1;
	}
	return an->sup_fd;
}

bool cw_annot_enabled(const struct cw_run *run)
{
	return run->annot && run->annot->enabled;
}

void cw_annot_free(struct cw_run *run)
{
	struct cw_annot *an = run->annot;
	if (!an)
		return;
	cw_annot_symbols_free(an->sym);
	if (an->sup_fd >= 0)
		close(an->sup_fd);
	if (an->child_fd >= 0)
		close(an->child_fd);
	free(an->ring);
	free(an->names);
	cw_hmap_free(&an->buckets);
	free(an);
	run->annot = NULL;
}

/* ---- exec ---- */

/* 1 when PID's environment holds our LD_PRELOAD, 0 when not, -1 when it
 * cannot be read (the process is gone). */
static int env_has_preload(struct cw_annot *an, pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* The environment can be large: scan it in chunks for our entry,
	 * keeping a tail so an entry split across reads is still seen. */
	char want[PATH_MAX + 16];
	int wl = snprintf(want, sizeof(want), "LD_PRELOAD=%s", an->lib_path);
	char *buf = an->environ_buf;
	const size_t bufsize = sizeof(an->environ_buf);
	size_t keep = 0;
	bool found = false;
	for (int rounds = 0; rounds < 64 && !found; rounds++) {
		ssize_t r = read(fd, buf + keep, bufsize - keep - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		size_t len = keep + (size_t)r;
		for (size_t i = 0; i + (size_t)wl <= len && !found; i++)
			if ((i == 0 ? keep == 0 : buf[i - 1] == '\0') && memcmp(buf + i, want, (size_t)wl) == 0)
				found = true;
		keep = len < (size_t)wl + 1 ? len : (size_t)wl + 1;
		memmove(buf, buf + len - keep, keep);
	}
	return found;
}

/* Has the new image a program interpreter (the dynamic loader)? AT_BASE
 * is its load address, 0 for a static (or static-pie) executable. */
static int has_interp_auxv(pid_t pid)
{
	char path[64];
	/* The whole vector in one read (about 20 pairs; it was one read per
	 * pair): the kernel copies it from the saved copy in one go. */
	uint64_t av[128];
	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	while ((n = read(fd, av, sizeof(av))) < 0 && errno == EINTR)
		;
	for (ssize_t i = 0; n > 0 && (i + 2) * (ssize_t)sizeof(av[0]) <= n; i += 2) {
		if (av[i] == AT_NULL)
			break;
		if (av[i] == AT_BASE)
			return av[i + 1] != 0;
	}
	return -1;
}

/* Whether a file has an interpreter is a property of the file: the answer
 * is kept per executable, keyed by its identity (device, inode, size,
 * mtime, ctime: a rewritten or replaced file is another key, never by
 * path), so that a shell running the same programs over and over costs
 * one stat of /proc/PID/exe per exec instead of an open, read and close
 * of /proc/PID/auxv. */
/* (struct interp_ent and INTERP_CACHE: annot_impl.h) */

static bool same_file(const struct interp_ent *e, const struct stat *st)
{
	return e->ino && e->ino == st->st_ino && e->dev == st->st_dev && e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       e->ctime.tv_sec == st->st_ctim.tv_sec && e->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static int has_interp(struct cw_annot *an, pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return has_interp_auxv(pid);
	/* Slot by a keyed hash: a command cannot pick files that all evict
	 * each other (a miss costs a read of auxv, no more). */
	uint64_t id[2] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino };
	struct interp_ent *e = &an->interp_cache[cw_siphash13(&an->hkey, id, sizeof(id)) % INTERP_CACHE];
	if (same_file(e, &st))
		return e->result;
	int r = has_interp_auxv(pid);
	if (r >= 0) {
		*e = (struct interp_ent){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
					  .mtime = st.st_mtim, .ctime = st.st_ctim, .result = (int8_t)r };
	}
	return r;
}

const char *cw_annot_exec(struct cw_run *run, pid_t pid)
{
	struct cw_annot *an = run->annot;
	if (!an || !an->enabled)
		return "absent";
	/* What the old image sent before its exec belongs to it. A fork's
	 * image says no hello: one read now is the new image's. */
	struct cw_proc *p = cw_tracker_find(run, pid);
	bool forked = p && !p->preload;
	cw_annot_drain(run);
	cw_annot_maps_cache_drop(an, pid); /* its maps are gone with it */
	/* Its hello may have been read first (annot_channel.c). */
	struct bucket *b = cw_hmap_find(&an->buckets, &pid, sizeof(pid));
	bool hello = (b && b->hello_ahead) || (forked && p->preload && strcmp(p->preload, "present") == 0);
	if (b)
		b->hello_ahead = false;
	if (has_interp(an, pid) == 0)
		return "absent"; /* static: no loader, no LD_PRELOAD */
	/* Gone already (-1: its exec was read late), nothing says absent. */
	if (env_has_preload(an, pid) == 0)
		return "absent"; /* LD_PRELOAD cleared by a raw execve */
	return hello ? "present" : "unknown"; /* "present" once it says hello */
}
