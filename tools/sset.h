#ifndef CAPWATCH_TOOLS_SSET_H
#define CAPWATCH_TOOLS_SSET_H
/* The trace tools' string-keyed set/map with counts, insertion ordered
 * (distinct scopes, programs, pids of a run). */
#include <stdbool.h>
#include <stddef.h>

struct cw_sset_ent {
	char *key;
	unsigned long count;
	void *data;     /* owned by the caller; freed by cw_sset_free's FREEDATA */
	unsigned long aux;
};
struct cw_sset {
	struct cw_sset_ent *ents;
	size_t n, cap;
	size_t *idx;    /* open addressing, entry index + 1, 0 = empty */
	size_t idxcap;
};
/* Find KEY; with CREATE, add it (count 0). NULL when absent or on ENOMEM. */
struct cw_sset_ent *cw_sset_get(struct cw_sset *s, const char *key, bool create);
/* Add KEY and count one use. Returns the entry or NULL on ENOMEM. */
struct cw_sset_ent *cw_sset_bump(struct cw_sset *s, const char *key);
void cw_sset_sort(struct cw_sset *s); /* by key; keeps lookups working */
void cw_sset_free(struct cw_sset *s, void (*freedata)(void *));

#endif
