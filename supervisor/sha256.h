#ifndef CAPWATCH_SHA256_H
#define CAPWATCH_SHA256_H
/* SHA-256 (FIPS 180-4), streaming, for the digests of captured output in
 * `capwatch exec --request` outcomes. */
#include <stddef.h>
#include <stdint.h>

struct cw_sha256 {
	uint32_t h[8];
	uint64_t len;        /* bytes so far */
	unsigned char buf[64];
	size_t n;            /* bytes in buf */
};

void cw_sha256_init(struct cw_sha256 *s);
void cw_sha256_update(struct cw_sha256 *s, const void *data, size_t len);
void cw_sha256_final(struct cw_sha256 *s, unsigned char out[32]);
/* Lower-case hex of the digest, 64 characters and a NUL. */
void cw_sha256_hex(struct cw_sha256 *s, char out[65]);

#endif
