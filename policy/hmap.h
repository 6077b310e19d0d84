#ifndef CAPWATCH_HMAP_H
#define CAPWATCH_HMAP_H
/* One hash map for every table whose keys the supervised command chooses
 * (pids, inode numbers, scopes): open addressing with linear probing and
 * backward-shift deletion (no tombstones), keyed by SipHash-1-3 under a
 * 128-bit key the caller draws at random once per map.
 *
 * Why keyed: a table indexed by an unkeyed hash of target-chosen values
 * can be filled with keys that all land in one cluster, and every lookup
 * then scans it (a supervisor slowed to a crawl by its own bookkeeping).
 * With SipHash under a secret key the command cannot tell which keys
 * collide. policy/ makes no syscalls, so the key is a parameter: the
 * supervisor draws it with getrandom (supervisor/util.h,
 * cw_hash_key_random). A fixed key makes the map deterministic (tests).
 *
 * Keys are bytes: either every key has KSIZE bytes (an integer, a struct
 * with no padding such as {dev, ino} zeroed first) stored in the slot, or
 * KSIZE is 0 and each key has its own length and is copied (a string).
 * A value is VSIZE bytes stored in the slot, zeroed when its key is
 * added (VSIZE 0: a set). Pointers to values stay valid until the next
 * insertion or removal; the map owns neither what a value points to nor
 * anything else but its copies of variable-length keys.
 *
 * Not thread-safe: each user keeps its own map on one thread. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cw_hash_key {
	uint64_t k0, k1;
};

/* SipHash-1-3 (Aumasson and Bernstein; the variant Rust's and Python's
 * hash tables use) of DATA[0..LEN) under KEY. */
uint64_t cw_siphash13(const struct cw_hash_key *key, const void *data, size_t len);

struct cw_hmap {
	struct cw_hash_key key;
	size_t ksize;          /* bytes of every key; 0: variable, copied */
	size_t vsize;          /* bytes of a value; 0: a set */
	size_t limit;          /* most entries; 0: no limit but memory */
	/* private */
	size_t koff, voff, stride;
	unsigned char *slots;  /* cap slots; NULL until the first insertion */
	size_t cap;            /* a power of two, or 0 */
	size_t count;
};

/* An empty map (no allocation yet). LIMIT: insertions of new keys past
 * that many entries fail -ENOSPC (0: no limit). */
void cw_hmap_init(struct cw_hmap *m, const struct cw_hash_key *key, size_t ksize, size_t vsize,
		  size_t limit);
/* Free everything; the map is empty and usable again. */
void cw_hmap_free(struct cw_hmap *m);
/* Remove every entry, keeping the memory. */
void cw_hmap_clear(struct cw_hmap *m);

/* The value of key K (KLEN bytes; must be KSIZE when the map has fixed
 * keys), or NULL. For a set, a non-NULL pointer means present. */
void *cw_hmap_find(const struct cw_hmap *m, const void *k, size_t klen);
/* Add K unless present. Returns 1 when added (its value zeroed), 0 when
 * it was there already, -ENOMEM, -ENOSPC (at the limit) or -EINVAL (a
 * fixed-key map given another length); *VAL (may be NULL) points at the
 * value on success. */
int cw_hmap_insert(struct cw_hmap *m, const void *k, size_t klen, void **val);
/* Remove K: true when it was there. */
bool cw_hmap_remove(struct cw_hmap *m, const void *k, size_t klen);
static inline size_t cw_hmap_count(const struct cw_hmap *m)
{
	return m->count;
}

/* Visit every entry: start with *POS = 0; each call that returns true
 * gives one entry's key (and its length) and value. The map must not be
 * changed during a visit, except through the value pointers. */
bool cw_hmap_next(const struct cw_hmap *m, size_t *pos, const void **k, size_t *klen, void **val);

/* The longest run of probes a lookup of a present key takes now (1: every
 * key sits in its own slot). For tests and diagnostics. */
size_t cw_hmap_longest_probe(const struct cw_hmap *m);

#endif
