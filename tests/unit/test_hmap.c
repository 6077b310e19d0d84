/* Unit tests of the seeded hash map (policy/hmap.h): SipHash-1-3 against
 * another implementation's values, then the map under growth, deletion,
 * variable keys, its limit, and keys chosen to collide. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hmap.h"

static const struct cw_hash_key zero_key = { 0, 0 };
/* 0x41f6394f25dd9b43, 0xc64ae48da2032d08: the key CPython (whose bytes
 * hash is SipHash-1-3) derives from PYTHONHASHSEED=4242. */
static const struct cw_hash_key py_key = { 0x41f6394f25dd9b43ULL, 0xc64ae48da2032d08ULL };

/* ---- SipHash-1-3 ---- */

/* hash(bytes(range(n))) & (2**64-1) under PYTHONHASHSEED=0 (key 0) and
 * =4242 (py_key), CPython 3.11: an independent implementation. Length 0
 * is left out (CPython answers 0 for an empty string without hashing). */
static const struct { size_t n; uint64_t zero, seeded; } sip_vectors[] = {
	{ 1, 7541581120933061747ULL, 858218397747988476ULL },
	{ 2, 75343234424780393ULL, 7231883934465646453ULL },
	{ 3, 5569996484167262381ULL, 18406129149680401510ULL },
	{ 4, 8990380680374275517ULL, 16661403163878259795ULL },
	{ 5, 6538700447601091189ULL, 8551105701514859656ULL },
	{ 6, 16411785027166084315ULL, 1984964936458437671ULL },
	{ 7, 3389392686435873370ULL, 3542017941282392551ULL },
	{ 8, 16921169381604339434ULL, 7365533678757014314ULL },
	{ 9, 8471974163824919394ULL, 16525332700035227955ULL },
	{ 10, 12654965034304477725ULL, 11239165389745450735ULL },
	{ 11, 18331003481413385471ULL, 9939318183552489148ULL },
	{ 12, 12014184315100324290ULL, 7664435855522086742ULL },
	{ 13, 11587535417075797517ULL, 7983813576935891595ULL },
	{ 14, 9189037121149337191ULL, 8500043920067022440ULL },
	{ 15, 17514137373579004394ULL, 9139665532808698020ULL },
	{ 16, 9904005486622393783ULL, 4817168624598738139ULL },
	{ 63, 4061470857350050649ULL, 12063959413232888232ULL },
};

static void test_siphash13_vectors(void **state)
{
	(void)state;
	unsigned char msg[64];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	for (size_t i = 0; i < sizeof(sip_vectors) / sizeof(sip_vectors[0]); i++) {
		size_t n = sip_vectors[i].n;
		if (cw_siphash13(&zero_key, msg, n) != sip_vectors[i].zero)
			fail_msg("length %zu, key 0: %llx", n, (unsigned long long)cw_siphash13(&zero_key, msg, n));
		if (cw_siphash13(&py_key, msg, n) != sip_vectors[i].seeded)
			fail_msg("length %zu, seeded: %llx", n, (unsigned long long)cw_siphash13(&py_key, msg, n));
	}
	assert_true(cw_siphash13(&zero_key, "abc", 3) == 13851880170939887858ULL);
	assert_true(cw_siphash13(&py_key, "abc", 3) == 15115180415171079097ULL);
	/* Reads only LEN bytes: the same prefix in a longer buffer. */
	char a[] = "abcdefgh-XXXX", b[] = "abcdefgh-YYYY";
	assert_true(cw_siphash13(&py_key, a, 9) == cw_siphash13(&py_key, b, 9));
	assert_true(cw_siphash13(&py_key, a, 10) != cw_siphash13(&py_key, b, 10));
}

/* ---- the map ---- */

struct val {
	uint64_t n;
	char tag[12];
};

static void test_basic(void **state)
{
	(void)state;
	struct cw_hmap m;
	struct val *v;
	cw_hmap_init(&m, &py_key, sizeof(int), sizeof(struct val), 0);
	int k = 7;
	assert_null(cw_hmap_find(&m, &k, sizeof(k)));
	assert_false(cw_hmap_remove(&m, &k, sizeof(k)));
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), (void **)&v), 1);
	assert_int_equal(v->n, 0); /* zeroed */
	assert_int_equal(v->tag[0], 0);
	v->n = 42;
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), (void **)&v), 0);
	assert_int_equal(v->n, 42); /* the same entry */
	assert_int_equal(cw_hmap_count(&m), 1);
	v = cw_hmap_find(&m, &k, sizeof(k));
	assert_non_null(v);
	assert_int_equal(v->n, 42);
	/* A fixed-key map refuses another length. */
	long long wide = 7;
	assert_int_equal(cw_hmap_insert(&m, &wide, sizeof(wide), NULL), -EINVAL);
	assert_null(cw_hmap_find(&m, &wide, sizeof(wide)));
	assert_false(cw_hmap_remove(&m, &wide, sizeof(wide)));
	assert_true(cw_hmap_remove(&m, &k, sizeof(k)));
	assert_null(cw_hmap_find(&m, &k, sizeof(k)));
	assert_int_equal(cw_hmap_count(&m), 0);
	cw_hmap_free(&m);
	/* Usable again after free. */
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), NULL), 1);
	cw_hmap_free(&m);
}

static void test_growth(void **state)
{
	(void)state;
	struct cw_hmap m;
	cw_hmap_init(&m, &py_key, sizeof(uint32_t), sizeof(uint32_t), 0);
	const uint32_t n = 200000;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *v;
		assert_int_equal(cw_hmap_insert(&m, &i, sizeof(i), (void **)&v), 1);
		*v = i * 3 + 1;
	}
	assert_int_equal(cw_hmap_count(&m), n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *v = cw_hmap_find(&m, &i, sizeof(i));
		if (!v || *v != i * 3 + 1)
			fail_msg("key %u lost in growth", i);
	}
	uint32_t absent = n + 5;
	assert_null(cw_hmap_find(&m, &absent, sizeof(absent)));
	/* Consecutive keys (pids, inode numbers) do not cluster. */
	assert_true(cw_hmap_longest_probe(&m) < 64);
	/* Every entry is visited once. */
	size_t pos = 0, seen = 0;
	const void *k;
	size_t kl;
	void *val;
	uint64_t sum = 0;
	while (cw_hmap_next(&m, &pos, &k, &kl, &val)) {
		uint32_t key;
		assert_int_equal(kl, sizeof(key));
		memcpy(&key, k, sizeof(key));
		assert_int_equal(*(uint32_t *)val, key * 3 + 1);
		sum += key;
		seen++;
	}
	assert_int_equal(seen, n);
	assert_true(sum == (uint64_t)n * (n - 1) / 2);
	cw_hmap_clear(&m);
	assert_int_equal(cw_hmap_count(&m), 0);
	uint32_t one = 1;
	assert_null(cw_hmap_find(&m, &one, sizeof(one)));
	cw_hmap_free(&m);
}

/* Random insertions and removals over a small key space, checked after
 * every step against a plain array: removals in the middle of clusters,
 * clusters that wrap around the end of the table. */
static void test_delete_against_reference(void **state)
{
	(void)state;
	enum { SPACE = 3000, STEPS = 60000 };
	static bool ref[SPACE];
	struct cw_hmap m;
	memset(ref, 0, sizeof(ref));
	cw_hmap_init(&m, &zero_key, sizeof(uint16_t), 0, 0);
	uint64_t x = 88172645463325252ULL; /* xorshift64: a fixed sequence */
	size_t count = 0;
	for (int step = 0; step < STEPS; step++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint16_t k = (uint16_t)(x % SPACE);
		/* More removals than additions in the second half: the table
		 * shrinks in count while keeping its size (sparse clusters). */
		bool add = (x >> 32) % 100 < (step < STEPS / 2 ? 60u : 35u);
		if (add) {
			int r = cw_hmap_insert(&m, &k, sizeof(k), NULL);
			assert_int_equal(r, ref[k] ? 0 : 1);
			count += !ref[k];
			ref[k] = true;
		} else {
			assert_int_equal(cw_hmap_remove(&m, &k, sizeof(k)), ref[k]);
			count -= ref[k];
			ref[k] = false;
		}
		assert_int_equal(cw_hmap_count(&m), count);
		if (step % 997 == 0)
			for (uint16_t j = 0; j < SPACE; j++)
				if ((cw_hmap_find(&m, &j, sizeof(j)) != NULL) != ref[j])
					fail_msg("step %d: key %u is %s", step, j, ref[j] ? "lost" : "back");
	}
	for (uint16_t j = 0; j < SPACE; j++)
		assert_int_equal(cw_hmap_find(&m, &j, sizeof(j)) != NULL, ref[j]);
	cw_hmap_free(&m);
}

static void test_variable_keys(void **state)
{
	(void)state;
	struct cw_hmap m;
	cw_hmap_init(&m, &py_key, 0, sizeof(int), 0);
	/* Prefixes, an empty key, NUL bytes inside: all distinct keys. */
	static const struct { const char *k; size_t n; } keys[] = {
		{ "", 0 }, { "a", 1 }, { "a\0", 2 }, { "ab", 2 }, { "\0b", 2 },
		{ "/home/u/.ssh/id_rsa", 19 }, { "/home/u/.ssh/id_rsa.pub", 23 },
	};
	const size_t nk = sizeof(keys) / sizeof(keys[0]);
	for (size_t i = 0; i < nk; i++) {
		int *v;
		char copy[64];
		memcpy(copy, keys[i].k, keys[i].n);
		assert_int_equal(cw_hmap_insert(&m, copy, keys[i].n, (void **)&v), 1);
		*v = (int)i + 100;
		memset(copy, 'Z', sizeof(copy)); /* the map keeps its own copy */
	}
	assert_int_equal(cw_hmap_count(&m), nk);
	for (size_t i = 0; i < nk; i++) {
		int *v = cw_hmap_find(&m, keys[i].k, keys[i].n);
		assert_non_null(v);
		assert_int_equal(*v, (int)i + 100);
	}
	assert_null(cw_hmap_find(&m, "a\0\0", 3));
	assert_null(cw_hmap_find(&m, "/home/u/.ssh/id_rs", 18));
	/* Iteration gives the copies back. */
	size_t pos = 0, seen = 0, kl;
	const void *k;
	void *val;
	while (cw_hmap_next(&m, &pos, &k, &kl, &val)) {
		size_t i = (size_t)(*(int *)val - 100);
		assert_true(i < nk);
		assert_int_equal(kl, keys[i].n);
		if (kl)
			assert_memory_equal(k, keys[i].k, kl);
		seen++;
	}
	assert_int_equal(seen, nk);
	assert_true(cw_hmap_remove(&m, "a", 1));
	assert_null(cw_hmap_find(&m, "a", 1));
	assert_non_null(cw_hmap_find(&m, "a\0", 2));
	/* Growth with owned keys: many strings, then free (valgrind/ASan
	 * see no leak). */
	for (int i = 0; i < 5000; i++) {
		char s[32];
		int l = snprintf(s, sizeof(s), "scope-%d", i);
		assert_int_equal(cw_hmap_insert(&m, s, (size_t)l, NULL), 1);
	}
	for (int i = 0; i < 5000; i += 2) {
		char s[32];
		int l = snprintf(s, sizeof(s), "scope-%d", i);
		assert_true(cw_hmap_remove(&m, s, (size_t)l));
	}
	for (int i = 0; i < 5000; i++) {
		char s[32];
		int l = snprintf(s, sizeof(s), "scope-%d", i);
		assert_int_equal(cw_hmap_find(&m, s, (size_t)l) != NULL, i % 2 == 1);
	}
	cw_hmap_free(&m);
}

static void test_limit(void **state)
{
	(void)state;
	struct cw_hmap m;
	cw_hmap_init(&m, &py_key, sizeof(int), 0, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cw_hmap_insert(&m, &i, sizeof(i), NULL), 1);
	int k = 3;
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), NULL), -ENOSPC);
	assert_null(cw_hmap_find(&m, &k, sizeof(k)));
	k = 1;
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), NULL), 0); /* present: fine */
	assert_true(cw_hmap_remove(&m, &k, sizeof(k)));
	k = 3;
	assert_int_equal(cw_hmap_insert(&m, &k, sizeof(k), NULL), 1);
	assert_int_equal(cw_hmap_count(&m), 3);
	cw_hmap_free(&m);
}

/* Keys chosen to collide: with the hash key known (the attacker's best
 * case), integers whose hashes agree in their low 12 bits all go to the
 * last slot of any table of up to 4096 slots, one cluster that wraps
 * around the end. The map stays correct under it; and the same keys under
 * another hash key (what a command that does not know capwatch's gets)
 * spread out. */
#define NCOLL 300
static uint32_t coll[NCOLL];

static void find_colliding(const struct cw_hash_key *key)
{
	size_t n = 0;
	for (uint32_t i = 0; n < NCOLL; i++)
		if ((cw_siphash13(key, &i, sizeof(i)) & 4095) == 4095)
			coll[n++] = i;
}

static void test_adversarial_keys(void **state)
{
	(void)state;
	struct cw_hmap m;
	find_colliding(&zero_key);
	cw_hmap_init(&m, &zero_key, sizeof(uint32_t), sizeof(uint32_t), 0);
	for (size_t i = 0; i < NCOLL; i++) {
		uint32_t *v;
		assert_int_equal(cw_hmap_insert(&m, &coll[i], sizeof(coll[i]), (void **)&v), 1);
		*v = (uint32_t)i;
	}
	/* The attack works against a known key: one cluster. */
	assert_int_equal(cw_hmap_longest_probe(&m), NCOLL);
	/* ... and the map is still right: remove every third key from the
	 * middle of the cluster, then look every key up. */
	for (size_t i = 1; i < NCOLL; i += 3)
		assert_true(cw_hmap_remove(&m, &coll[i], sizeof(coll[i])));
	for (size_t i = 0; i < NCOLL; i++) {
		uint32_t *v = cw_hmap_find(&m, &coll[i], sizeof(coll[i]));
		if (i % 3 == 1) {
			assert_null(v);
		} else {
			assert_non_null(v);
			assert_int_equal(*v, i);
		}
	}
	assert_int_equal(cw_hmap_count(&m), NCOLL - NCOLL / 3);
	cw_hmap_free(&m);

	/* Under another key the same keys are ordinary ones. */
	cw_hmap_init(&m, &py_key, sizeof(uint32_t), 0, 0);
	for (size_t i = 0; i < NCOLL; i++)
		assert_int_equal(cw_hmap_insert(&m, &coll[i], sizeof(coll[i]), NULL), 1);
	assert_true(cw_hmap_longest_probe(&m) < 16);
	cw_hmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash13_vectors),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_delete_against_reference),
		cmocka_unit_test(test_variable_keys),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_adversarial_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
