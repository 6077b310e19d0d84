check_PROGRAMS += tests/unit/test_policy tests/unit/test_profile
TESTS += tests/unit/test_policy tests/unit/test_profile
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c
tests_unit_test_policy_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_policy_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_profile_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
