check_PROGRAMS += tests/unit/test_policy tests/unit/test_profile
TESTS += tests/unit/test_policy tests/unit/test_profile
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c
tests_unit_test_policy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_policy_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_profile_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
# The seeded hash map (issue 16 item 6): SipHash-1-3 vectors, growth,
# deletion, variable keys, the limit, and keys chosen to collide.
check_PROGRAMS += tests/unit/test_hmap
TESTS += tests/unit/test_hmap
tests_unit_test_hmap_SOURCES = tests/unit/test_hmap.c
tests_unit_test_hmap_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_hmap_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS)
