/* outcome.changes (changes.h): the first state seen of every path written,
 * compared with the disk at the end of the run. */
#include "config.h"
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include "supervisor/changes.h"
#include "supervisor/state.h"
#include "supervisor/resolve.h"

struct change {
	char *path, *path2;     /* path2: rename target */
	enum cw_change_kind kind;
	bool existed;
	struct stat before;
};

/* The list's bounds (issue 15, red team 24 F2: 15,000 renames a<->b
 * in a deep directory were 15,000 entries of two full paths, 347 MiB).
 * A rename of the same path to the same target is one entry, however
 * often it happens; past CW_CHANGES_MAX paths or CW_CHANGES_BYTES of path
 * text, a write to a path not yet tracked is counted, not kept, and the
 * report says the list is partial (outcome.changes_truncated,
 * changesOmitted). 10,000 is more than a build touches in one workspace
 * (a kernel tree build writes ~30,000 files, but its report would be a
 * list nobody reads); 16 MiB keeps even paths of 4 KiB (PATH_MAX) each
 * for 2,000 renames. */
#define CW_CHANGES_MAX 10000u
#define CW_CHANGES_BYTES (16u << 20)

struct cw_changes {
	struct change *v;
	size_t n, cap;
	size_t *index; /* open addressing on path, and path2 for a rename */
	size_t index_cap;
	size_t bytes;     /* path text kept, of CW_CHANGES_BYTES */
	uint64_t omitted; /* writes not tracked: over a bound above */
};

struct cw_changes *cw_changes_new(void)
{
	return calloc(1, sizeof(struct cw_changes));
}

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* A rename is keyed on both its paths, anything else on its path. */
static size_t hash_change(enum cw_change_kind kind, const char *path, const char *path2)
{
	size_t h = hash_str(path);
	if (kind == CW_CHANGE_RENAME)
		h = (h ^ 0x52454e414d45ull) * 1099511628211ull ^ hash_str(path2 ? path2 : "");
	return h;
}

static bool same_key(const struct change *ch, enum cw_change_kind kind, const char *path, const char *path2)
{
	if ((ch->kind == CW_CHANGE_RENAME) != (kind == CW_CHANGE_RENAME) || strcmp(ch->path, path))
		return false;
	if (kind != CW_CHANGE_RENAME)
		return true;
	return ch->path2 && path2 ? strcmp(ch->path2, path2) == 0 : ch->path2 == path2;
}

static int changes_grow(struct cw_changes *c)
{
	size_t ncap = c->index_cap ? c->index_cap * 2 : 1024;
	size_t *ni = calloc(ncap, sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		size_t h = hash_change(c->v[i].kind, c->v[i].path, c->v[i].path2) & (ncap - 1);
		while (ni[h])
			h = (h + 1) & (ncap - 1);
		ni[h] = i + 1;
	}
	free(c->index);
	c->index = ni;
	c->index_cap = ncap;
	return 0;
}

void cw_changes_add(struct cw_run *run, enum cw_change_kind kind, const char *path, const char *path2)
{
	struct cw_changes *c = run->changes;
	if (!c || !path)
		return;
	if ((c->n + 1) * 2 > c->index_cap && changes_grow(c) < 0)
		return;
	size_t h = hash_change(kind, path, path2) & (c->index_cap - 1);
	while (c->index[h]) {
		struct change *old = &c->v[c->index[h] - 1];
		if (same_key(old, kind, path, path2)) {
			/* First touch decides the "before" state. A rename
			 * seen again (a->b, b->a, a->b...) is the same entry:
			 * the report names it when its source existed before
			 * one of them and is gone at the end. */
			struct stat st;
			if (kind == CW_CHANGE_RENAME && !old->existed)
				old->existed = cw_stat_long(path, &st, false) == 0;
			return;
		}
		h = (h + 1) & (c->index_cap - 1);
	}
	size_t *slot = &c->index[h];
	size_t need = strlen(path) + 1 + (path2 ? strlen(path2) + 1 : 0);
	if (c->n >= CW_CHANGES_MAX || c->bytes + need > CW_CHANGES_BYTES) {
		c->omitted++;
		return;
	}
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct change *nv = realloc(c->v, ncap * sizeof(*nv));
		if (!nv)
			return;
		c->v = nv;
		c->cap = ncap;
	}
	struct change *ch = &c->v[c->n];
	memset(ch, 0, sizeof(*ch));
	ch->kind = kind;
	ch->path = strdup(path);
	ch->path2 = path2 ? strdup(path2) : NULL;
	if (!ch->path || (path2 && !ch->path2)) {
		free(ch->path);
		free(ch->path2);
		return;
	}
	ch->existed = cw_stat_long(path, &ch->before, false) == 0; /* also deeper than PATH_MAX */
	c->n++;
	c->bytes += need;
	*slot = c->n;
}

static bool same_state(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mode == b->st_mode &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* outcome.changes: the net effect on disk of the writes capwatch let
 * through, so that a write that failed (or was undone) leaves nothing. */
void cw_changes_report(struct cw_run *run)
{
	struct cw_changes *c = run->changes;
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct change *ch = &c->v[i];
		struct stat now;
		bool exists = cw_stat_long(ch->path, &now, false) == 0;
		if (ch->kind == CW_CHANGE_RENAME) {
			struct stat st2;
			if (ch->existed && !exists && ch->path2 && cw_stat_long(ch->path2, &st2, false) == 0)
				cw_report_add_change(run->report, "renamed", ch->path, ch->path2);
			continue;
		}
		if (!ch->existed && exists)
			cw_report_add_change(run->report, "created", ch->path, NULL);
		else if (ch->existed && !exists)
			cw_report_add_change(run->report, "deleted", ch->path, NULL);
		else if (ch->existed && exists && !same_state(&ch->before, &now))
			cw_report_add_change(run->report, "modified", ch->path, NULL);
	}
	if (c->omitted)
		cw_report_set_changes_omitted(run->report, c->omitted);
}

void cw_changes_free(struct cw_changes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].path2);
	}
	free(c->v);
	free(c->index);
	free(c);
}
