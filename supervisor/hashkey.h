#ifndef CAPWATCH_HASHKEY_H
#define CAPWATCH_HASHKEY_H
/* The random key of a hash map with target-chosen keys (policy/hmap.h),
 * drawn by the supervisor since policy/ makes no syscalls. One key per
 * map: nothing learnt about one table's layout says anything of
 * another's. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "hmap.h"

/* getrandom(2); where it cannot answer (a kernel before 3.17, or a pool
 * not yet initialised at early boot), a key derived from the 16 random
 * bytes the kernel gave this process at exec (AT_RANDOM), which glibc
 * also uses, so they are never used as they are: hashed under themselves
 * with the time and the address of K (which tells maps apart). Never
 * fails. */
static inline void cw_hash_key_random(struct cw_hash_key *k)
{
	ssize_t r;
	while ((r = getrandom(k, sizeof(*k), GRND_NONBLOCK)) < 0 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof(*k))
		return;
	struct cw_hash_key base = { 0x9e3779b97f4a7c15ULL, (uint64_t)getpid() };
	const void *at = (const void *)getauxval(AT_RANDOM);
	if (at)
		memcpy(&base, at, sizeof(base));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t in[4] = { (uint64_t)ts.tv_sec, (uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)k, 0 };
	k->k0 = cw_siphash13(&base, in, sizeof(in));
	in[3] = 1;
	k->k1 = cw_siphash13(&base, in, sizeof(in));
}

#endif
