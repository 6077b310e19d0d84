/* Secrets by identity: see secret_ids.h. */
#include "config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "supervisor/secret_ids.h"
#include "supervisor/state.h"
#include "supervisor/record.h"
#include "supervisor/log.h"
#include "supervisor/resolve.h"
#include "supervisor/hashkey.h"
#include "path.h"

/* (dev, ino) -> the name it was seen under. Inode numbers are chosen by
 * the command as much as by anyone (it creates files at will): the map is
 * keyed (hashkey.h). */
struct id_key {
	uint64_t dev, ino;
};
struct id_val {
	char *name;
	bool orphan; /* a name of it was removed while it had others */
};
/* The module's state (run->secret_ids): made by the scan, the first
 * cw_secret_ids_start of the run; used by the notification thread under
 * run_lock. */
struct cw_secret_ids {
	struct cw_hmap ids;
	bool ids_ready;
	bool full_noted;
};

static struct id_key key_of(dev_t dev, ino_t ino)
{
	struct id_key k = { (uint64_t)dev, (uint64_t)ino };
	return k;
}

static struct id_val *lookup(struct cw_secret_ids *S, dev_t dev, ino_t ino)
{
	struct id_key k = key_of(dev, ino);
	return S && S->ids_ready ? cw_hmap_find(&S->ids, &k, sizeof(k)) : NULL;
}

static void add(struct cw_run *run, const struct stat *st, const char *path)
{
	struct cw_secret_ids *S = run->secret_ids;
	if (!S || !S_ISREG(st->st_mode) || lookup(S, st->st_dev, st->st_ino))
		return;
	if (!S->ids_ready) {
		struct cw_hash_key hk;
		cw_hash_key_random(&hk);
		cw_hmap_init(&S->ids, &hk, sizeof(struct id_key), sizeof(struct id_val), CW_SECRET_IDS_MAX);
		S->ids_ready = true;
	}
	if (cw_hmap_count(&S->ids) >= CW_SECRET_IDS_MAX) {
		if (!S->full_noted)
			cw_record_note(run, 0, "warning",
				    "more than %d secrets seen: later ones are recognised by name only",
				    CW_SECRET_IDS_MAX);
		S->full_noted = true;
		return;
	}
	char *name = strdup(path);
	if (!name)
		return;
	struct id_key k = key_of(st->st_dev, st->st_ino);
	struct id_val *v;
	if (cw_hmap_insert(&S->ids, &k, sizeof(k), (void **)&v) != 1) {
		free(name);
		return;
	}
	v->name = name;
	v->orphan = false;
}

void cw_secret_ids_note(struct cw_run *run, const char *path)
{
	struct stat st;
	/* lstat: a symlink named like a secret is not its target */
	if (run->secret_ids && path && path[0] == '/' && cw_stat_long(path, &st, false) == 0) /* any depth */
		add(run, &st, path);
}

const char *cw_secret_ids_find(struct cw_run *run, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return NULL;
	if (st->st_nlink > 1)
		cw_secret_ids_start(run);
	struct id_val *e = lookup(run->secret_ids, st->st_dev, st->st_ino);
	if (!e || (st->st_nlink <= 1 && !e->orphan))
		return NULL;
	return e->name;
}

const char *cw_secret_ids_find_any(struct cw_run *run, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return NULL;
	cw_secret_ids_start(run);
	struct id_val *e = lookup(run->secret_ids, st->st_dev, st->st_ino);
	return e ? e->name : NULL;
}

void cw_secret_ids_unlinking(struct cw_run *run, const char *path)
{
	struct cw_secret_ids *S = run->secret_ids;
	struct stat st;
	if (!S || !S->ids_ready || !path || cw_stat_long(path, &st, false) < 0 || !S_ISREG(st.st_mode))
		return;
	struct id_val *e = lookup(S, st.st_dev, st.st_ino);
	if (!e)
		return;
	if (st.st_nlink > 1) {
		e->orphan = true;
		return;
	}
	free(e->name);
	struct id_key k = key_of(st.st_dev, st.st_ino);
	cw_hmap_remove(&S->ids, &k, sizeof(k));
}

/* ---- the start-up scan ---- */

struct queue {
	char **dirs;
	size_t head, tail, cap;
};

static void push(struct queue *q, const char *path)
{
	if (q->tail == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64;
		char **nd = realloc(q->dirs, ncap * sizeof(*nd));
		if (!nd)
			return;
		q->dirs = nd;
		q->cap = ncap;
	}
	char *d = strdup(path);
	if (d)
		q->dirs[q->tail++] = d;
}

/* Breadth first from ROOT; BUDGET is the number of directory entries
 * still to be looked at (shared by every walk of the scan). Only the
 * regular files whose names the policy classes as secrets are stat'ed;
 * symlinks are not followed. */
static void walk(struct cw_run *run, const char *root, long *budget)
{
	struct queue q = { 0 };
	char path[PATH_MAX];
	push(&q, root);
	while (q.head < q.tail && *budget > 0) {
		char *dir = q.dirs[q.head++];
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d) {
			if (dfd >= 0)
				close(dfd);
			free(dir);
			continue;
		}
		struct dirent *de;
		while (*budget > 0 && (de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			(*budget)--;
			int n = snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
					 de->d_name);
			if (n < 0 || (size_t)n >= sizeof(path))
				continue;
			unsigned char type = de->d_type;
			struct stat st;
			bool secret = cw_path_is_secret(&run->ctx, path);
			if (type == DT_UNKNOWN || (type == DT_REG && secret)) {
				if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
			}
			if (type == DT_DIR) {
				/* a repository's object store holds no secret names */
				if (strcmp(de->d_name, ".git") != 0)
					push(&q, path);
			} else if (type == DT_REG && secret) {
				add(run, &st, path);
			}
		}
		closedir(d);
		free(dir);
	}
	while (q.head < q.tail)
		free(q.dirs[q.head++]);
	free(q.dirs);
	if (*budget <= 0)
		cw_debug("secret scan: entry budget spent in %s", root);
}

static struct cw_secret_links *links_get(struct cw_run *run);

void cw_secret_ids_start(struct cw_run *run)
{
	if (run->secret_ids)
		return;
	run->secret_ids = calloc(1, sizeof(*run->secret_ids));
	if (!run->secret_ids) {
		cw_warn("secret scan: out of memory: secrets are recognised by name only");
		return;
	}
	long budget = CW_SECRET_SCAN_ENTRIES;
	const char *home = run->ctx.home;
	char path[PATH_MAX];
	if (home && home[0] == '/') {
		for (size_t i = 0; cw_home_secret_files[i]; i++) {
			struct stat st;
			snprintf(path, sizeof(path), "%s%s", home, cw_home_secret_files[i]);
			if (lstat(path, &st) == 0)
				add(run, &st, path);
		}
		for (size_t i = 0; cw_home_secret_dirs[i] && budget > 0; i++) {
			snprintf(path, sizeof(path), "%s%s", home, cw_home_secret_dirs[i]);
			walk(run, path, &budget);
		}
	}
	for (size_t i = 0; i < run->ctx.nroots && budget > 0; i++)
		if (run->ctx.roots[i])
			walk(run, run->ctx.roots[i], &budget);
	if (budget <= 0)
		cw_record_note(run, 0, "info",
			    "secret scan stopped after %d directory entries: files past them are recognised "
			    "as secrets by name, and by identity only once opened or renamed by a secret name",
			    CW_SECRET_SCAN_ENTRIES);
	struct cw_secret_ids *S = run->secret_ids;
	cw_debug("secret scan: %zu secrets, %ld entries left", S->ids_ready ? cw_hmap_count(&S->ids) : 0, budget);
	/* The homes' links too, before the command runs: what they named
	 * then is what the run protects, and no decision waits on a walk. */
	(void)links_get(run);
}

/* ---- home secrets reached through symbolic links (cw_secret_ids_linked) ---- */

#define LINKS_MAX 64
#define LINKS_PER_DIR 32
#define LINKED_HOMES_MAX 32

struct cw_secret_links {
	size_t n, dropped; /* dropped: links past LINKS_MAX, not followed */
	struct {
		char *real, *lex; /* what the kernel names, the name the policy knows */
	} p[LINKS_MAX];
	char buf[PATH_MAX];
};

static void link_add(struct cw_secret_links *L, const char *lex)
{
	if (!lex || lex[0] != '/')
		return;
	char *r = realpath(lex, NULL);
	/* "/" would make every path a secret's: a link that names the root
	 * is not where anybody keeps credentials. */
	if (!r || strcmp(r, lex) == 0 || strcmp(r, "/") == 0) {
		free(r);
		return;
	}
	for (size_t i = 0; i < L->n; i++)
		if (strcmp(L->p[i].real, r) == 0 && strcmp(L->p[i].lex, lex) == 0) {
			free(r);
			return;
		}
	char *l = L->n < LINKS_MAX ? strdup(lex) : NULL;
	if (!l) {
		L->dropped++;
		free(r);
		return;
	}
	L->p[L->n].real = r;
	L->p[L->n].lex = l;
	L->n++;
}

/* HOME itself, each of its secret places, and the links directly in its
 * secret directories (~/.ssh/config -> a dotfiles repository). */
static void links_of_home(struct cw_secret_links *L, const char *home)
{
	char path[PATH_MAX];
	if (!home || home[0] != '/' || strlen(home) > PATH_MAX - 64)
		return;
	link_add(L, home);
	for (size_t i = 0; cw_home_secret_files[i]; i++) {
		/* the file, and the directory that holds it (~/.kube) */
		const char *f = cw_home_secret_files[i], *sub = strchr(f + 1, '/');
		if (sub) {
			snprintf(path, sizeof(path), "%s%.*s", home, (int)(sub - f), f);
			link_add(L, path);
		}
		snprintf(path, sizeof(path), "%s%s", home, f);
		link_add(L, path);
	}
	for (size_t i = 0; cw_home_secret_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s%s", home, cw_home_secret_dirs[i]);
		link_add(L, path);
		int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (!d) {
			if (dfd >= 0)
				close(dfd);
			continue;
		}
		struct dirent *de;
		for (int k = 0; k < LINKS_PER_DIR && (de = readdir(d));) {
			struct stat st;
			if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			k++;
			if (de->d_type != DT_LNK &&
			    (de->d_type != DT_UNKNOWN || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			     !S_ISLNK(st.st_mode)))
				continue;
			char ep[PATH_MAX];
			if ((size_t)snprintf(ep, sizeof(ep), "%s/%s", path, de->d_name) < sizeof(ep))
				link_add(L, ep);
		}
		closedir(d);
	}
}

static struct cw_secret_links *links_get(struct cw_run *run)
{
	if (run->secret_links)
		return run->secret_links;
	struct cw_secret_links *L = calloc(1, sizeof(*L));
	if (!L)
		return NULL;
	run->secret_links = L;
	links_of_home(L, run->ctx.home);
	links_of_home(L, "/root");
	/* /home/X for any X (path.c secret_by_home): /home itself may be a
	 * link (/home -> /var/home), and so may each home in it. */
	link_add(L, "/home");
	DIR *d = opendir("/home");
	if (d) {
		struct dirent *de;
		for (int k = 0; k < LINKED_HOMES_MAX && (de = readdir(d));) {
			if (de->d_name[0] == '.')
				continue;
			k++;
			char hp[PATH_MAX];
			if ((size_t)snprintf(hp, sizeof(hp), "/home/%s", de->d_name) < sizeof(hp))
				links_of_home(L, hp);
		}
		closedir(d);
	}
	if (L->dropped)
		cw_record_note(run, 0, "warning",
			       "%zu symbolic links to homes' secret places past the first %d are not followed: what "
			       "they lead to is a secret only by its own name",
			       L->dropped, LINKS_MAX);
	return L;
}

const char *cw_secret_ids_linked(struct cw_run *run, const char *path)
{
	if (!path || path[0] != '/')
		return NULL;
	struct cw_secret_links *L = links_get(run);
	if (!L)
		return NULL;
	for (size_t i = 0; i < L->n; i++) {
		size_t rl = strlen(L->p[i].real);
		if (strncmp(path, L->p[i].real, rl) != 0 || (path[rl] != '\0' && path[rl] != '/'))
			continue;
		int w = snprintf(L->buf, sizeof(L->buf), "%s%s", L->p[i].lex, path + rl);
		if (w > 0 && (size_t)w < sizeof(L->buf) && cw_path_is_secret(&run->ctx, L->buf))
			return L->buf;
	}
	return NULL;
}

void cw_secret_ids_free(struct cw_run *run)
{
	struct cw_secret_links *L = run->secret_links;
	if (L) {
		for (size_t i = 0; i < L->n; i++) {
			free(L->p[i].real);
			free(L->p[i].lex);
		}
		free(L);
		run->secret_links = NULL;
	}
	struct cw_secret_ids *S = run->secret_ids;
	if (!S)
		return;
	if (S->ids_ready) {
		size_t pos = 0;
		const void *k;
		size_t klen;
		void *v;
		while (cw_hmap_next(&S->ids, &pos, &k, &klen, &v))
			free(((struct id_val *)v)->name);
		cw_hmap_free(&S->ids);
	}
	free(S);
	run->secret_ids = NULL;
}
