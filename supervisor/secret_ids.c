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
#include "supervisor/util.h"
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
	bool key;    /* it held a private key when the tree opened it to write
			(cw_secret_ids_key_note): a secret whatever it holds now */
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
	v->key = false;
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

bool cw_secret_ids_key_note(struct cw_run *run, const struct stat *st, const char *path)
{
	if (!S_ISREG(st->st_mode) || !path)
		return false;
	cw_secret_ids_start(run);
	struct cw_secret_ids *S = run->secret_ids;
	if (!S)
		return false;
	add(run, st, path);
	struct id_val *e = lookup(S, st->st_dev, st->st_ino);
	if (!e)
		return false; /* the map is full (noted once), or no memory */
	e->key = true;
	return true;
}

bool cw_secret_ids_key_held(struct cw_run *run, dev_t dev, ino_t ino)
{
	struct id_val *e = lookup(run->secret_ids, dev, ino);
	return e && e->key;
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
	/* A file that held a private key is never forgotten: the name may
	 * not go away at all (a rename onto itself, one that fails: red team
	 * e169), or the inode may live on in a descriptor the tree holds.
	 * Its number, if reused by a new file after all, reads as a secret's
	 * (fail closed). */
	if (e->key) {
		if (st.st_nlink > 1)
			e->orphan = true;
		return;
	}
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

/* A directory stream of DFD, or NULL with DFD closed (DFD < 0: NULL). */
static DIR *dir_of(int dfd)
{
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d && dfd >= 0)
		close(dfd);
	return d;
}

/* Breadth first from ROOT; BUDGET is the number of directory entries
 * still to be looked at (shared by every walk of the scan). Only the
 * regular files whose names the policy classes as secrets (or that a
 * home's secret place leads to through a link) are stat'ed; symlinks are
 * not followed. */
static void walk(struct cw_run *run, const char *root, long *budget)
{
	struct queue q = { 0 };
	char path[PATH_MAX];
	push(&q, root);
	while (q.head < q.tail && *budget > 0) {
		char *dir = q.dirs[q.head++];
		DIR *d = dir_of(open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
		if (!d) {
			free(dir);
			continue;
		}
		int dfd = dirfd(d);
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
			/* a file where a home's secret place leads through a
			 * link is one too (its hard links read as it: e158) */
			bool secret = cw_path_is_secret(&run->ctx, path) || cw_secret_ids_linked(run, path);
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
static void walk_link_targets(struct cw_run *run, struct cw_secret_links *L, long *budget);

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
	 * then is what the run protects, and no decision waits on a walk.
	 * What they lead to is scanned like the places themselves, so that
	 * a hard link to it reads as the secret (red team e158). */
	walk_link_targets(run, links_get(run), &budget);
}

/* ---- home secrets reached through symbolic links (cw_secret_ids_linked) ---- */

/* Links followed per home: each home has its own bound, so that one
 * user's links cannot use up another's (red team e162: eve's 65 links in
 * ~eve/.ssh, listed first in /home, left bob's ~/.aws -> dotfiles/aws
 * unfollowed and read as a plain file). At most LINKS_MAX times the
 * homes looked at, LINKED_HOMES_MAX + 2. */
#define LINKS_MAX 64
/* The walk of a home's links is done before the command starts, so it
 * has a time bound, per home like the count (one user's slow tree costs
 * only that user's links): a home on a slow file system, or a tree made to
 * be slow to walk (e164), must not hold up every run. The run's own home
 * and root's get longer (an NFS home is slow and legitimate). */
#define LINKS_SECONDS_OWN 2.0
#define LINKS_SECONDS_OTHER 0.5
#define LINKS_WALK_ENTRIES 2048 /* entries looked at below one home's secret directories */
#define LINKS_WALK_DIRS 256
#define LINKED_HOMES_MAX 32

struct cw_secret_links {
	size_t n, cap;
	size_t home_n;     /* links followed of the home being looked at */
	size_t dropped;    /* links past a home's LINKS_MAX, not followed */
	size_t homes_skipped; /* homes in /home past LINKED_HOMES_MAX */
	size_t late;       /* links not followed: their home's walk took too long */
	double deadline;
	size_t holding;    /* links not followed: their target holds a workspace root */
	size_t foreign;    /* links of another user's home to what that user does not own */
	bool walk_spent;   /* a home's secret directories had more than LINKS_WALK_ENTRIES entries */
	const struct cw_context *ctx;
	struct {
		char *real, *lex; /* what the kernel names, the name the policy knows */
	} *p;
	char buf[PATH_MAX];
};

/* What LEX leads to, as the kernel names it (malloc'd), or NULL: one
 * O_PATH open (the kernel's own walk, bounded by its 40 links) and the
 * name of the descriptor. Not realpath(3): it walks component by
 * component from user space, and a home's link into a tree 1,900 levels
 * deep through links of "a/../" repeated took it 7 s, at every run's
 * start, for any local user to set up (red team e164). */
static char *resolve_link(const char *lex)
{
	int fd = open(lex, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char lp[64], out[PATH_MAX];
	snprintf(lp, sizeof(lp), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(lp, out, sizeof(out) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(out) - 1 || out[0] != '/')
		return NULL; /* too long, or not a path of this root (" (deleted)" aside) */
	out[n] = '\0';
	return strdup(out);
}

/* Follow the link LEX (a home's secret place, or a link in one): true
 * when what it leads to is now a secret by LEX's name. OWNER: the uid of
 * another user's home the link is in, or (uid_t)-1 for the run's own
 * home and root's. */
static bool link_add(struct cw_secret_links *L, const char *lex, uid_t owner)
{
	if (!lex || lex[0] != '/')
		return false;
	/* a home's bounds first: a link past them costs nothing (e164) */
	if (L->home_n >= LINKS_MAX) {
		L->dropped++;
		return false;
	}
	if (cw_now() > L->deadline) {
		L->late++;
		return false;
	}
	char *r = resolve_link(lex);
	/* "/" would make every path a secret's: a link that names the root
	 * is not where anybody keeps credentials. */
	if (!r || strcmp(r, lex) == 0 || strcmp(r, "/") == 0) {
		free(r);
		return false;
	}
	/* Another user's links decide nothing of this run's but their own
	 * files: a ~eve/.ssh -> /usr must not make every program a secret
	 * (a denial of every run on the machine by any local user). What a
	 * user keeps credentials in, that user owns. */
	struct stat ost;
	if (owner != (uid_t)-1 && (stat(r, &ost) < 0 || ost.st_uid != owner)) {
		L->foreign++;
		cw_debug("secret links: %s -> %s is not its home owner's: not followed", lex, r);
		free(r);
		return false;
	}
	/* A target that holds a workspace root (or the scratch directory)
	 * with the root a secret by the link's name (~/.ssh/sockets -> /tmp)
	 * would make the command's own files secrets: not followed (e160).
	 * A target below the workspace stays a secret. */
	size_t rl = strlen(r);
	const struct cw_context *ctx = L->ctx;
	for (size_t i = 0; ctx && i <= ctx->nroots; i++) {
		const char *root = i < ctx->nroots ? ctx->roots[i] : ctx->scratch;
		char m[PATH_MAX];
		if (!root || strncmp(root, r, rl) != 0 || (root[rl] != '\0' && root[rl] != '/'))
			continue;
		if ((size_t)snprintf(m, sizeof(m), "%s%s", lex, root + rl) < sizeof(m) && !cw_path_is_secret(ctx, m))
			continue;
		L->holding++;
		cw_debug("secret links: %s -> %s holds %s: not followed", lex, r, root);
		free(r);
		return false;
	}
	for (size_t i = 0; i < L->n; i++)
		if (strcmp(L->p[i].real, r) == 0 && strcmp(L->p[i].lex, lex) == 0) {
			free(r);
			return true;
		}
	if (L->n == L->cap) {
		size_t nc = L->cap ? L->cap * 2 : 16;
		void *np = realloc(L->p, nc * sizeof(*L->p));
		if (!np) {
			L->dropped++;
			free(r);
			return false;
		}
		L->p = np;
		L->cap = nc;
	}
	char *l = strdup(lex);
	if (!l) {
		L->dropped++;
		free(r);
		return false;
	}
	L->p[L->n].real = r;
	L->p[L->n].lex = l;
	L->n++;
	L->home_n++;
	return true;
}

/* HOME itself, each of its secret places, and the links directly in its
 * secret directories (~/.ssh/config -> a dotfiles repository). */
static void links_of_home(struct cw_secret_links *L, const char *home, uid_t owner)
{
	char path[PATH_MAX];
	if (!home || home[0] != '/' || strlen(home) > PATH_MAX - 64)
		return;
	L->home_n = 0;
	L->deadline = cw_now() + (owner == (uid_t)-1 ? LINKS_SECONDS_OWN : LINKS_SECONDS_OTHER);
	link_add(L, home, owner);
	for (size_t i = 0; cw_home_secret_files[i]; i++) {
		/* the file, and the directory that holds it (~/.kube) */
		const char *f = cw_home_secret_files[i], *sub = strchr(f + 1, '/');
		if (sub) {
			snprintf(path, sizeof(path), "%s%.*s", home, (int)(sub - f), f);
			link_add(L, path, owner);
		}
		snprintf(path, sizeof(path), "%s%s", home, f);
		link_add(L, path, owner);
	}
	/* The secret directories breadth first, through their links (a
	 * link in ~/.ssh/keys, in the directory ~/.gnupg links to: e159):
	 * every link met is followed; directories are told by what they
	 * lead to, each looked at once (by device and inode). */
	char *q[LINKS_WALK_DIRS];
	struct {
		dev_t dev;
		ino_t ino;
	} seen[LINKS_WALK_DIRS];
	size_t qh = 0, qt = 0, ns = 0;
	long budget = LINKS_WALK_ENTRIES;
	for (size_t i = 0; cw_home_secret_dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s%s", home, cw_home_secret_dirs[i]);
		/* walked when a directory of its own or a link followed */
		struct stat ls;
		bool walk_it = link_add(L, path, owner) || (lstat(path, &ls) == 0 && S_ISDIR(ls.st_mode));
		if (walk_it && qt < LINKS_WALK_DIRS && (q[qt] = strdup(path)))
			qt++;
	}
	while (qh < qt) {
		char *dir = q[qh++];
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
		struct stat ds;
		bool again = false;
		if (dfd >= 0 && fstat(dfd, &ds) == 0) {
			for (size_t j = 0; j < ns; j++)
				again |= seen[j].dev == ds.st_dev && seen[j].ino == ds.st_ino;
			if (!again && ns < LINKS_WALK_DIRS) {
				seen[ns].dev = ds.st_dev;
				seen[ns].ino = ds.st_ino;
				ns++;
			}
		}
		if (again && dfd >= 0) {
			close(dfd);
			dfd = -1;
		}
		DIR *d = dir_of(dfd);
		if (!d) {
			free(dir);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			struct stat st;
			if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			if (budget-- <= 0 || cw_now() > L->deadline) {
				L->walk_spent = true;
				break;
			}
			if (de->d_type != DT_LNK && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
				continue;
			char ep[PATH_MAX];
			if ((size_t)snprintf(ep, sizeof(ep), "%s/%s", dir, de->d_name) >= sizeof(ep))
				continue;
			bool lnk = de->d_type == DT_LNK;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
					continue;
				lnk = S_ISLNK(st.st_mode);
				if (!lnk && !S_ISDIR(st.st_mode))
					continue;
			}
			/* a link is walked through only when followed */
			bool followed = lnk && link_add(L, ep, owner);
			if ((!lnk || (followed && fstatat(dfd, de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode))) &&
			    strcmp(de->d_name, ".git") != 0) {
				if (qt < LINKS_WALK_DIRS && (q[qt] = strdup(ep)))
					qt++;
				else
					L->walk_spent = true;
			}
		}
		closedir(d);
		free(dir);
	}
	while (qh < qt)
		free(q[qh++]);
}

static struct cw_secret_links *links_get(struct cw_run *run)
{
	if (run->secret_links)
		return run->secret_links;
	struct cw_secret_links *L = calloc(1, sizeof(*L));
	if (!L)
		return NULL;
	run->secret_links = L;
	L->ctx = &run->ctx;
	links_of_home(L, run->ctx.home, (uid_t)-1);
	links_of_home(L, "/root", (uid_t)-1);
	/* /home/X for any X (path.c secret_by_home): /home itself may be a
	 * link (/home -> /var/home), and so may each home in it. */
	L->home_n = 0;
	L->deadline = cw_now() + LINKS_SECONDS_OWN;
	link_add(L, "/home", (uid_t)-1);
	DIR *d = opendir("/home");
	if (d) {
		struct dirent *de;
		for (int k = 0; (de = readdir(d));) {
			if (de->d_name[0] == '.')
				continue;
			if (k++ == LINKED_HOMES_MAX) {
				L->homes_skipped++;
				continue;
			}
			char hp[PATH_MAX];
			struct stat hs;
			/* another user's home: its links count for that user's files */
			if ((size_t)snprintf(hp, sizeof(hp), "/home/%s", de->d_name) < sizeof(hp) &&
			    stat(hp, &hs) == 0 && S_ISDIR(hs.st_mode))
				links_of_home(L, hp, hs.st_uid == geteuid() ? (uid_t)-1 : hs.st_uid);
		}
		closedir(d);
	}
	if (L->walk_spent)
		cw_record_note(run, 0, "warning",
			       "a home's secret directories hold more than %d entries or %d directories: symbolic "
			       "links below that are not followed, what they lead to is a secret only by its own name",
			       LINKS_WALK_ENTRIES, LINKS_WALK_DIRS);
	if (L->holding)
		cw_record_note(run, 0, "warning",
			       "%zu symbolic links in homes' secret places lead to a directory holding a workspace "
			       "root or the scratch directory: not followed (the workspace is not a secret)",
			       L->holding);
	if (L->foreign)
		cw_debug("secret links: %zu links of other users' homes lead to what they do not own: not followed",
			 L->foreign);
	if (L->dropped)
		cw_record_note(run, 0, "warning",
			       "%zu symbolic links to homes' secret places past the first %d of their home are not "
			       "followed: what they lead to is a secret only by its own name",
			       L->dropped, LINKS_MAX);
	if (L->late)
		cw_record_note(run, 0, "warning",
			       "the walk of a home's secret places for symbolic links took over %.1f s (%.1f s for the "
			       "run's own home and root's): %zu links not followed, what they lead to is a secret only "
			       "by its own name", LINKS_SECONDS_OTHER, LINKS_SECONDS_OWN, L->late);
	if (L->homes_skipped)
		cw_record_note(run, 0, "warning",
			       "%zu homes in /home past the first %d are not looked at for symbolic links: what "
			       "links there lead to is a secret only by its own name",
			       L->homes_skipped, LINKED_HOMES_MAX);
	return L;
}

static void walk_link_targets(struct cw_run *run, struct cw_secret_links *L, long *budget)
{
	for (size_t i = 0; L && i < L->n && *budget > 0; i++) {
		struct stat st;
		/* (a home that is a link: its secret places have entries of
		 * their own) */
		if (!cw_path_is_secret(&run->ctx, L->p[i].lex) || lstat(L->p[i].real, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(run, L->p[i].real, budget);
		else if (S_ISREG(st.st_mode) && cw_secret_ids_linked(run, L->p[i].real))
			add(run, &st, L->p[i].real);
	}
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
		free(L->p);
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

const char *cw_secret_ids_linked_moved(struct cw_run *run, const char *path, char *buf, size_t n)
{
	const char *lex = cw_secret_ids_linked(run, path);
	struct cw_secret_links *L = run->secret_links;
	size_t pl = path ? strlen(path) : 0;
	for (size_t i = 0; !lex && L && pl && i < L->n; i++)
		/* a directory holding what a secret place leads to (the
		 * dotfiles repository of ~/.aws -> dotfiles/aws) */
		if (strncmp(L->p[i].real, path, pl) == 0 && (L->p[i].real[pl] == '/' || pl == 1) &&
		    cw_path_is_secret(&run->ctx, L->p[i].lex))
			lex = L->p[i].lex;
	if (!lex || (size_t)snprintf(buf, n, "%s", lex) >= n)
		return NULL;
	return buf;
}
