#ifndef CAPWATCH_JBUF_H
#define CAPWATCH_JBUF_H
/* A small streaming JSON writer into a growable buffer that is reused across
 * events (no allocation per event once warm). Every string goes through one
 * escaper, so any byte sequence yields valid JSON on one line:
 *   - '"', '\\' and all control characters (incl. newline, U+2028/2029 as
 *     \u2028/\u2029) are escaped;
 *   - valid UTF-8 is kept; each byte of an invalid sequence is written as
 *     U+FFFD, and cw_jbuf_kv_bytes() then also writes a sibling key
 *     "<key>_hex" holding the exact bytes in lower-case hex, so nothing is lost.
 * Commas between members are inserted automatically. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CW_JBUF_DEPTH 32

struct cw_jbuf {
	char *buf;       /* NUL-terminated after every call */
	size_t len, cap;
	bool oom;        /* sticky: an allocation failed, output is incomplete */
	int depth;
	bool need_comma[CW_JBUF_DEPTH];
};

void cw_jbuf_init(struct cw_jbuf *j);
void cw_jbuf_reset(struct cw_jbuf *j); /* len = 0, keeps the allocation */
void cw_jbuf_free(struct cw_jbuf *j);

void cw_jbuf_obj_begin(struct cw_jbuf *j);
void cw_jbuf_obj_end(struct cw_jbuf *j);
void cw_jbuf_arr_begin(struct cw_jbuf *j);
void cw_jbuf_arr_end(struct cw_jbuf *j);
void cw_jbuf_key(struct cw_jbuf *j, const char *key); /* next value belongs to KEY */

void cw_jbuf_str(struct cw_jbuf *j, const char *s);           /* NULL -> null */
void cw_jbuf_strn(struct cw_jbuf *j, const char *s, size_t n); /* may contain NUL bytes */
void cw_jbuf_int(struct cw_jbuf *j, long long v);
void cw_jbuf_uint(struct cw_jbuf *j, unsigned long long v);
void cw_jbuf_double(struct cw_jbuf *j, double v); /* %.6f; non-finite -> null */
void cw_jbuf_bool(struct cw_jbuf *j, bool v);
void cw_jbuf_null(struct cw_jbuf *j);

/* key + string; for byte strings from the target (paths, argv) use
 * cw_jbuf_kv_bytes so that invalid UTF-8 also gets "<key>_hex". */
void cw_jbuf_kv_str(struct cw_jbuf *j, const char *key, const char *s);
void cw_jbuf_kv_bytes(struct cw_jbuf *j, const char *key, const char *s, size_t n);
void cw_jbuf_kv_int(struct cw_jbuf *j, const char *key, long long v);
void cw_jbuf_kv_bool(struct cw_jbuf *j, const char *key, bool v);

/* S[0..n) as a lower-case hex string value. */
void cw_jbuf_hex(struct cw_jbuf *j, const char *s, size_t n);
/* key + array of N byte strings (argv, roots); when any element is not
 * valid UTF-8 a sibling "<key>_hex" array follows, holding the hex of each
 * such element and null for the others. */
void cw_jbuf_arr_bytes(struct cw_jbuf *j, const char *key, const char *const *v, size_t n);

/* True when S[0..n) is valid UTF-8 with no NUL bytes. */
bool cw_utf8_valid(const char *s, size_t n);

/* A malloc'd NUL-terminated copy of S[0..n) in which each byte of an invalid
 * sequence, and each NUL, is replaced by U+FFFD (the rule the report uses
 * before handing strings to cJSON). NULL on allocation failure. */
char *cw_utf8_sanitize(const char *s, size_t n);

#endif
