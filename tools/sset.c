/* The string set of the trace tools (sset.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/sset.h"

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static int sset_reindex(struct cw_sset *s, size_t newcap)
{
	size_t *idx = calloc(newcap, sizeof(*idx)), i;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		size_t h = hash_str(s->ents[i].key) & (newcap - 1);

		while (idx[h])
			h = (h + 1) & (newcap - 1);
		idx[h] = i + 1;
	}
	free(s->idx);
	s->idx = idx;
	s->idxcap = newcap;
	return 0;
}

struct cw_sset_ent *cw_sset_get(struct cw_sset *s, const char *key, bool create)
{
	size_t h;

	if (!key)
		key = "";
	if (s->idxcap) {
		h = hash_str(key) & (s->idxcap - 1);
		while (s->idx[h]) {
			struct cw_sset_ent *e = &s->ents[s->idx[h] - 1];

			if (!strcmp(e->key, key))
				return e;
			h = (h + 1) & (s->idxcap - 1);
		}
	}
	if (!create)
		return NULL;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct cw_sset_ent *ne = realloc(s->ents, nc * sizeof(*ne));

		if (!ne)
			return NULL;
		s->ents = ne;
		s->cap = nc;
	}
	if ((s->n + 1) * 2 > s->idxcap && sset_reindex(s, s->idxcap ? s->idxcap * 2 : 32) < 0)
		return NULL;
	memset(&s->ents[s->n], 0, sizeof(s->ents[s->n]));
	s->ents[s->n].key = strdup(key);
	if (!s->ents[s->n].key)
		return NULL;
	h = hash_str(key) & (s->idxcap - 1);
	while (s->idx[h])
		h = (h + 1) & (s->idxcap - 1);
	s->idx[h] = ++s->n;
	return &s->ents[s->n - 1];
}

struct cw_sset_ent *cw_sset_bump(struct cw_sset *s, const char *key)
{
	struct cw_sset_ent *e = cw_sset_get(s, key, true);

	if (e)
		e->count++;
	return e;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cw_sset_ent *)a)->key, ((const struct cw_sset_ent *)b)->key);
}

void cw_sset_sort(struct cw_sset *s)
{
	if (s->n < 2)
		return;
	qsort(s->ents, s->n, sizeof(*s->ents), ent_cmp);
	/* on ENOMEM the old index would point at the wrong entries: drop it and
	 * fall back to no lookups rather than wrong ones */
	if (sset_reindex(s, s->idxcap) < 0) {
		free(s->idx);
		s->idx = NULL;
		s->idxcap = 0;
	}
}

void cw_sset_free(struct cw_sset *s, void (*freedata)(void *))
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->ents[i].key);
		if (freedata)
			freedata(s->ents[i].data);
	}
	free(s->ents);
	free(s->idx);
	memset(s, 0, sizeof(*s));
}
