# The JSON layer: jbuf, trace writer/reader, report (policy/), and the
# schemas in schemas/ checked against the library's real output.
check_PROGRAMS += tests/unit/test_json tests/unit/gen_samples
TESTS += tests/unit/test_json tests/unit/schemas.sh
EXTRA_DIST += tests/unit/schemas.sh tests/unit/schema_check.py
tests_unit_test_json_SOURCES = tests/unit/test_json.c
tests_unit_test_json_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_json_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
tests_unit_gen_samples_SOURCES = tests/unit/gen_samples.c
tests_unit_gen_samples_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_unit_gen_samples_LDADD = policy/libcwpolicy.la $(CJSON_LIBS)
# The report's spill file and streamed writer (bounded memory per denial).
check_PROGRAMS += tests/unit/test_report_spill
TESTS += tests/unit/test_report_spill
tests_unit_test_report_spill_SOURCES = tests/unit/test_report_spill.c
tests_unit_test_report_spill_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_report_spill_LDADD = policy/libcwpolicy.la $(CMOCKA_LIBS) $(CJSON_LIBS)
