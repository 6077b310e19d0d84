/* The seeded hash map (hmap.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hmap.h"

/* ---- SipHash-1-3 ---- */

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t le64(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
	       (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

#define SIPROUND                                                        \
	do {                                                            \
		v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32); \
		v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;                  \
		v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;                  \
		v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32); \
	} while (0)

uint64_t cw_siphash13(const struct cw_hash_key *key, const void *data, size_t len)
{
	const unsigned char *in = data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ key->k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ key->k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ key->k0;
	uint64_t v3 = 0x7465646279746573ULL ^ key->k1;
	uint64_t b = (uint64_t)len << 56;
	size_t whole = len & ~(size_t)7;

	for (size_t i = 0; i < whole; i += 8) {
		uint64_t m = le64(in + i);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t i = 0; i < (len & 7); i++)
		b |= (uint64_t)in[whole + i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- the map ----
 *
 * A slot: the key's hash with the top bit set (0: empty), the key (KSIZE
 * bytes, or a pointer and a length to an owned copy), the value. The low
 * bits of the hash pick the home slot; the top bit is free for the mark
 * because no capacity needs it. */

#define USED (1ULL << 63)
#define MIN_CAP 16

struct varkey {
	unsigned char *p;
	size_t len;
};

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

void cw_hmap_init(struct cw_hmap *m, const struct cw_hash_key *key, size_t ksize, size_t vsize,
		  size_t limit)
{
	const size_t al = _Alignof(max_align_t);
	memset(m, 0, sizeof(*m));
	m->key = *key;
	m->ksize = ksize;
	m->vsize = vsize;
	m->limit = limit;
	m->koff = sizeof(uint64_t);
	m->voff = align_up(m->koff + (ksize ? ksize : sizeof(struct varkey)), al);
	m->stride = align_up(m->voff + vsize, al);
}

static inline unsigned char *slot(const struct cw_hmap *m, size_t i)
{
	return m->slots + i * m->stride;
}

static inline uint64_t slot_hash(const unsigned char *s)
{
	uint64_t h;
	memcpy(&h, s, sizeof(h));
	return h;
}

static void free_keys(struct cw_hmap *m)
{
	if (m->ksize)
		return;
	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *s = slot(m, i);
		if (slot_hash(s)) {
			struct varkey vk;
			memcpy(&vk, s + m->koff, sizeof(vk));
			free(vk.p);
		}
	}
}

void cw_hmap_free(struct cw_hmap *m)
{
	free_keys(m);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

void cw_hmap_clear(struct cw_hmap *m)
{
	free_keys(m);
	if (m->slots)
		memset(m->slots, 0, m->cap * m->stride);
	m->count = 0;
}

static uint64_t hash_of(const struct cw_hmap *m, const void *k, size_t klen)
{
	return cw_siphash13(&m->key, k, klen) | USED;
}

static bool key_equal(const struct cw_hmap *m, const unsigned char *s, const void *k, size_t klen)
{
	if (m->ksize)
		return memcmp(s + m->koff, k, klen) == 0;
	struct varkey vk;
	memcpy(&vk, s + m->koff, sizeof(vk));
	return vk.len == klen && (klen == 0 || memcmp(vk.p, k, klen) == 0);
}

/* The slot of K, or the empty slot where it would go: its index. */
static size_t probe(const struct cw_hmap *m, uint64_t h, const void *k, size_t klen, bool *found)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		const unsigned char *s = slot(m, i);
		uint64_t sh = slot_hash(s);
		if (!sh) {
			*found = false;
			return i;
		}
		if (sh == h && key_equal(m, s, k, klen)) {
			*found = true;
			return i;
		}
	}
}

void *cw_hmap_find(const struct cw_hmap *m, const void *k, size_t klen)
{
	bool found;
	if (!m->count || (m->ksize && klen != m->ksize))
		return NULL;
	size_t i = probe(m, hash_of(m, k, klen), k, klen, &found);
	return found ? slot(m, i) + m->voff : NULL;
}

/* Rehash every slot into a table of NCAP slots. */
static int resize(struct cw_hmap *m, size_t ncap)
{
	if (ncap > SIZE_MAX / m->stride)
		return -ENOMEM;
	unsigned char *ns = calloc(ncap, m->stride);
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		const unsigned char *s = slot(m, i);
		uint64_t h = slot_hash(s);
		if (!h)
			continue;
		size_t j = (size_t)h & (ncap - 1);
		while (slot_hash(ns + j * m->stride))
			j = (j + 1) & (ncap - 1);
		memcpy(ns + j * m->stride, s, m->stride);
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

int cw_hmap_insert(struct cw_hmap *m, const void *k, size_t klen, void **val)
{
	bool found = false;
	if (m->ksize && klen != m->ksize)
		return -EINVAL;
	uint64_t h = hash_of(m, k, klen);
	size_t i = 0;
	if (m->cap) {
		i = probe(m, h, k, klen, &found);
		if (found) {
			if (val)
				*val = slot(m, i) + m->voff;
			return 0;
		}
	}
	if (m->limit && m->count >= m->limit)
		return -ENOSPC;
	/* At most half full: with a keyed hash, linear probing then takes
	 * about 1.5 probes for a hit and 2.5 for a miss. */
	if ((m->count + 1) * 2 > m->cap) {
		if (m->cap > SIZE_MAX / 4)
			return -ENOMEM;
		int e = resize(m, m->cap ? m->cap * 2 : MIN_CAP);
		if (e < 0)
			return e;
		i = probe(m, h, k, klen, &found);
	}
	unsigned char *s = slot(m, i);
	if (m->ksize) {
		memcpy(s + m->koff, k, klen);
	} else {
		struct varkey vk = { malloc(klen ? klen : 1), klen };
		if (!vk.p)
			return -ENOMEM;
		if (klen)
			memcpy(vk.p, k, klen);
		memcpy(s + m->koff, &vk, sizeof(vk));
	}
	memset(s + m->voff, 0, m->vsize);
	memcpy(s, &h, sizeof(h));
	m->count++;
	if (val)
		*val = s + m->voff;
	return 1;
}

bool cw_hmap_remove(struct cw_hmap *m, const void *k, size_t klen)
{
	bool found;
	if (!m->count || (m->ksize && klen != m->ksize))
		return false;
	size_t mask = m->cap - 1;
	size_t i = probe(m, hash_of(m, k, klen), k, klen, &found);
	if (!found)
		return false;
	if (!m->ksize) {
		struct varkey vk;
		memcpy(&vk, slot(m, i) + m->koff, sizeof(vk));
		free(vk.p);
	}
	/* Backward shift: every later slot of the cluster whose home is not
	 * between the hole and itself moves into the hole, so that no lookup
	 * meets an empty slot before its key. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		unsigned char *sj = slot(m, j);
		uint64_t h = slot_hash(sj);
		if (!h)
			break;
		size_t home = (size_t)h & mask;
		/* distance from home to j, and from home to the hole */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			memcpy(slot(m, i), sj, m->stride);
			i = j;
		}
	}
	memset(slot(m, i), 0, m->stride);
	m->count--;
	return true;
}

bool cw_hmap_next(const struct cw_hmap *m, size_t *pos, const void **k, size_t *klen, void **val)
{
	for (; *pos < m->cap; (*pos)++) {
		unsigned char *s = slot(m, *pos);
		if (!slot_hash(s))
			continue;
		if (m->ksize) {
			if (k)
				*k = s + m->koff;
			if (klen)
				*klen = m->ksize;
		} else {
			struct varkey vk;
			memcpy(&vk, s + m->koff, sizeof(vk));
			if (k)
				*k = vk.p;
			if (klen)
				*klen = vk.len;
		}
		if (val)
			*val = s + m->voff;
		(*pos)++;
		return true;
	}
	return false;
}

size_t cw_hmap_longest_probe(const struct cw_hmap *m)
{
	size_t longest = 0, mask = m->cap ? m->cap - 1 : 0;
	for (size_t i = 0; i < m->cap; i++) {
		uint64_t h = slot_hash(slot(m, i));
		if (!h)
			continue;
		size_t d = ((i - (size_t)h) & mask) + 1;
		if (d > longest)
			longest = d;
	}
	return longest;
}
