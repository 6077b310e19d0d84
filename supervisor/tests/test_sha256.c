/* SHA-256 against the FIPS 180-4 / NIST example vectors, fed whole and in
 * odd-sized pieces. */
#include "config.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "supervisor/sha256.h"

static void check(const char *msg, size_t len, size_t piece, const char *want)
{
	struct cw_sha256 s;
	char hex[65];
	cw_sha256_init(&s);
	for (size_t off = 0; off < len; off += piece)
		cw_sha256_update(&s, msg + off, len - off < piece ? len - off : piece);
	cw_sha256_hex(&s, hex);
	assert_string_equal(hex, want);
}

static void test_vectors(void **state)
{
	(void)state;
	static const char *l448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char *l896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
				  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	static const size_t pieces[] = { 1, 3, 63, 64, 65, 1000000 };
	for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
		check("", 0, pieces[i], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
		check("abc", 3, pieces[i], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		check(l448, strlen(l448), pieces[i],
		      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
		check(l896, strlen(l896), pieces[i],
		      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	}
	char *a = malloc(1000000);
	assert_non_null(a);
	memset(a, 'a', 1000000);
	check(a, 1000000, 4096, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	check(a, 1000000, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* 55 and 56 bytes: the padding boundary */
	check(a, 55, 7, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check(a, 56, 7, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_vectors) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
