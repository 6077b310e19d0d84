check_PROGRAMS += tests/unit/test_json
TESTS += tests/unit/test_json
tests_unit_test_json_SOURCES = tests/unit/test_json.c
tests_unit_test_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_json_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
